/**
 * Where a command writes and which directory it works in: the process's streams for the
 * `sluice` bin, buffers in tests. Its own module so that the commands and `main`, which
 * dispatches to them, import it without importing each other.
 */
export interface Io {
  stdout: { write(text: string): unknown };
  /** `isTTY` (and `columns`) as Node's streams have them: a terminal gets a progress line (progress.ts). */
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  cwd: string;
  /**
   * The process a command that runs until stopped (serve) takes SIGINT/SIGTERM from and ends:
   * the bin's own when absent; a program that runs serve inside itself (a test worker) passes
   * a stand-in, so that a signal meant for it and serve's closing exit stay its own.
   */
  process?: HostProcess;
}

/** What serve uses of Node's `process`: its stop signals, a last word on stray rejections, and its exit. */
export interface HostProcess {
  once(event: "SIGINT" | "SIGTERM", listener: (signal: NodeJS.Signals) => void): unknown;
  on(event: "unhandledRejection", listener: (reason: unknown) => void): unknown;
  exit(code?: number | string): void;
  exitCode?: number | string | undefined;
}
