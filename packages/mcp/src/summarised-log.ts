/**
 * Lines for stderr whose quoted texts are summarised: the snapshot lock logs a changed
 * description as its text before and after, and an upstream can make that text megabytes
 * long. Each quoted JSON string longer than {@link QUOTED_CHARS} keeps its start and says
 * how much was left out; a line still longer than {@link LINE_CHARS} keeps its two ends.
 */

/** Characters of a quoted text shown as they are. */
export const QUOTED_CHARS = 200;
/** Characters of one line at most (the summary included). */
export const LINE_CHARS = 2_000;

export function summariseLine(line: string): string {
  if (line.length <= QUOTED_CHARS) return line;
  // A scan, not a regular expression: a backtracking match of a megabyte string overflows the stack.
  let out = "";
  let at = 0;
  for (let open = line.indexOf('"'); open >= 0; open = line.indexOf('"', at)) {
    let close = open + 1;
    while (close < line.length && line.charCodeAt(close) !== 0x22) close += line.charCodeAt(close) === 0x5c ? 2 : 1;
    if (close >= line.length) break;
    const inner = close - open - 1;
    out += line.slice(at, open) + (inner <= QUOTED_CHARS ? line.slice(open, close + 1) : `${line.slice(open, open + 1 + QUOTED_CHARS)}…" (${inner.toLocaleString("en-US")} characters)`);
    at = close + 1;
  }
  out += line.slice(at);
  if (out.length > LINE_CHARS) {
    const left = out.length - (LINE_CHARS - 200);
    out = `${out.slice(0, LINE_CHARS - 300)} …[${left.toLocaleString("en-US")} characters left out]… ${out.slice(-100)}`;
  }
  return out;
}

/** `log` with every line summarised; undefined stays undefined. */
export function summarisedLog(log: ((line: string) => void) | undefined): ((line: string) => void) | undefined {
  return log === undefined ? undefined : (line) => log(summariseLine(line));
}
