import type { Candidate } from "./reformatter.ts";

/**
 * Text clean: what a terminal would show of a captured log, as plain text. Colour and mode
 * sequences (ECMA-48 SGR `ESC[...m`, private modes `ESC[?...h`, OSC titles and links) are
 * dropped; carriage-return redraws, backspaces, erase-in-line and cursor-up/down redraws
 * (progress bars, spinners, a test runner's live summary) are played out as a terminal
 * plays them, so only the last state of each line is left. A line the log wrote plainly
 * (no control character) and never redrew comes out byte for byte. Line ends come out as
 * `\n`. https://ecma-international.org/publications-and-standards/standards/ecma-48/
 */
export function cleanText(text: string): Candidate {
  if (!/[\u001b\u009b\b]|\r(?!\n)/.test(text)) return { declined: "no escapes or redraws" };
  const screen = render(text);
  const out = screen.text;
  return { text: out, verify: () => verifyClean(text, out, screen.plain) };
}

/** One screen row: its cells, and whether anything but one plain line's text ever reached it. */
interface Row {
  cells: string[];
  /** Index of the plain input line that wrote this row, or -1 once it was redrawn, erased or written with controls. */
  origin: number;
}

// A CSI sequence (parameters, intermediates, final byte), an OSC string, a two-byte escape, or a lone ESC.
const ESCAPE = /\u001b\[([0-?]*)[ -/]*([@-~])|\u009b([0-?]*)[ -/]*([@-~])|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** The farthest one cursor movement goes, in rows or columns. */
const MAX_MOVE = 1_000;

interface Screen {
  text: string;
  /** Each plain input line (by index) that kept its row unredrawn: the row's final text must be that line. */
  plain: Map<number, string>;
}

function render(text: string): Screen {
  const lines = text.split(/\r?\n/);
  const isPlain = lines.map((l) => !/[\u0000-\u0008\u000b-\u001f\u007f\u009b]/.test(l));
  // Origin -2: a row no output has reached yet.
  const rows: Row[] = [{ cells: [], origin: isPlain[0] === true ? 0 : -1 }];
  let row = 0;
  let col = 0;
  let line = 0;
  const at = (r: number): Row => {
    while (rows.length <= r) rows.push({ cells: [], origin: -2 });
    return rows[r]!;
  };
  const redraw = (r: number) => {
    at(r).origin = -1;
  };
  const write = (chars: string) => {
    const target = at(row);
    for (const ch of chars) {
      while (target.cells.length < col) target.cells.push(" ");
      target.cells[col++] = ch;
    }
  };
  ESCAPE.lastIndex = 0;
  let last = 0;
  const flushPrintable = (end: number) => {
    // Printable runs, split at line ends (\r\n and \n: a terminal's output post-processing makes \n a new line at column 0).
    const chunk = text.slice(last, end);
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === "\n") {
        write(chunk.slice(start, i));
        row++;
        col = 0;
        line++;
        const next = at(row);
        // A row reached by a new line belongs to that line, unless a redraw already wrote there.
        if (next.origin === -2) next.origin = isPlain[line] === true ? line : -1;
        else redraw(row);
        start = i + 1;
      } else if (c === "\r") {
        write(chunk.slice(start, i));
        // A lone \r redraws the row, if there is anything on it to draw over.
        if (chunk[i + 1] !== "\n" && (col > 0 || at(row).cells.length > 0)) redraw(row);
        col = 0;
        start = i + 1;
      }
    }
    write(chunk.slice(start));
  };
  for (let match = ESCAPE.exec(text); match !== null; match = ESCAPE.exec(text)) {
    flushPrintable(match.index);
    last = ESCAPE.lastIndex;
    const sequence = match[0];
    if (sequence === "\b") {
      col = Math.max(0, col - 1);
      redraw(row);
      continue;
    }
    const params = match[1] ?? match[3];
    const final = match[2] ?? match[4];
    if (params === undefined || final === undefined || params.startsWith("?")) continue; // styling, modes, titles, other controls: shown as nothing
    // Bounded: a hostile `ESC[999999999B` must not make a billion rows (a terminal is never that tall or wide either).
    const n = Math.min(MAX_MOVE, Math.max(1, Number.parseInt(params.split(";")[0] || "1", 10) || 1));
    const mode = Number.parseInt(params || "0", 10) || 0;
    switch (final) {
      case "A":
        row = Math.max(0, row - n);
        redraw(row);
        break;
      case "B":
        row += n;
        at(row);
        break;
      case "C":
        col += n;
        break;
      case "D":
        col = Math.max(0, col - n);
        break;
      case "E":
        row += n;
        col = 0;
        at(row);
        break;
      case "F":
        row = Math.max(0, row - n);
        col = 0;
        redraw(row);
        break;
      case "G":
        col = n - 1;
        break;
      case "K": {
        const target = at(row);
        if (mode === 0) target.cells.length = Math.min(target.cells.length, col);
        else if (mode === 1) for (let i = 0; i <= col && i < target.cells.length; i++) target.cells[i] = " ";
        else target.cells.length = 0;
        redraw(row);
        break;
      }
      case "J":
        // Erase below (the only form a log can replay without knowing the screen's height).
        if (mode === 0) {
          at(row).cells.length = Math.min(at(row).cells.length, col);
          redraw(row);
          for (let r = row + 1; r < rows.length; r++) {
            rows[r]!.cells.length = 0;
            redraw(r);
          }
        }
        break;
      default:
        break; // SGR colours and the rest change nothing a reader needs
    }
  }
  flushPrintable(text.length);
  const plain = new Map<number, string>();
  for (const r of rows) if (r.origin >= 0) plain.set(r.origin, r.cells.join(""));
  return { text: rows.map((r) => r.cells.join("")).join("\n"), plain };
}

/**
 * The inverse check a lossy-looking pass can have: no control character is left, cleaning
 * again changes nothing, and every plain line of the input that no redraw touched is in the
 * output, byte for byte, in its order.
 */
function verifyClean(input: string, out: string, plain: Map<number, string>): boolean {
  if (/[\u0000-\u0008\u000b-\u001f\u007f\u009b]/.test(out)) return false;
  const lines = input.split(/\r?\n/);
  const outLines = out.split("\n");
  let from = 0;
  for (const [index, shown] of [...plain].sort((a, b) => a[0] - b[0])) {
    if (lines[index] !== shown) return false;
    const found = outLines.indexOf(shown, from);
    if (found === -1) return false;
    from = found + 1;
  }
  return render(out).text === out;
}
