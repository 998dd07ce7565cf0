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
}
