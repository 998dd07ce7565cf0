/**
 * A status line on stderr for work a user would otherwise wait through in silence
 * (generating Kubernetes, checking a three-pack config, a report of a big pack). Only on a
 * terminal: piped or redirected stderr, and `--json`, get nothing, so logs and scripts read
 * exactly what they read before. The line is rewritten in place (`\r`, erase to the end of
 * the line) and erased before anything else is printed, so results on stdout never share a
 * line with it.
 *
 * The work it reports is synchronous (parsing, building the IR, emitting), so the line can
 * change only between steps: each step is named when it starts. Nothing is drawn during the
 * first `delayMs` of a command, so quick commands (a small spec) never flicker.
 * `SLUICE_NO_PROGRESS=1` turns it off on a terminal too.
 */

/** What a stream must offer to be drawn on: `isTTY` is Node's mark of a terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Progress {
  /** The step that starts now, e.g. `stripe: building tools`. */
  step(label: string): void;
  /** Erases the line (before a result is printed, and at the end). */
  clear(): void;
}

const SILENT: Progress = { step() {}, clear() {} };

/** Steps drawn before this much time has passed are not drawn: a quick command stays silent. */
export const PROGRESS_DELAY_MS = 250;

export function progressOn(stream: ProgressStream, options: { quiet?: boolean; delayMs?: number; now?: () => number } = {}): Progress {
  if (options.quiet === true || stream.isTTY !== true || process.env["SLUICE_NO_PROGRESS"] === "1") return SILENT;
  const now = options.now ?? (() => performance.now());
  // SLUICE_PROGRESS_DELAY_MS: tests (and the curious) see every step of a quick command.
  const fromEnv = Number(process.env["SLUICE_PROGRESS_DELAY_MS"] ?? Number.NaN);
  const delay = options.delayMs ?? (Number.isFinite(fromEnv) && fromEnv >= 0 ? fromEnv : PROGRESS_DELAY_MS);
  const started = now();
  let drawn = false;
  const draw = (label: string) => {
    const seconds = ((now() - started) / 1000).toFixed(1);
    // One line, cut to the terminal's width so that it never wraps (a wrapped line cannot be erased with \r).
    const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
    const width = Math.max(20, columns - 1);
    const text = `sluice: ${label} (${seconds} s)`;
    stream.write(`\r\x1b[K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    drawn = true;
  };
  return {
    step(label) {
      if (now() - started >= delay) draw(label);
    },
    clear() {
      if (drawn) stream.write("\r\x1b[K");
      drawn = false;
    },
  };
}

/** A counter prefix for a command over several items: `[2/3] stripe`, or the name alone for one. */
export function counted(index: number, total: number, name: string): string {
  return total > 1 ? `[${index + 1}/${total}] ${name}` : name;
}
