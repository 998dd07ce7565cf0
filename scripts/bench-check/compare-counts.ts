/**
 * Compares the counts of a bench file with a rerun's: the markdown tables of both, matched
 * by the heading above them and their header row, rows by their first cell (and its
 * occurrence). A cell is a count unless its column or its text is a measurement of time or
 * memory (`ms`, `s`, `MB`, a "time" column...): those are reported by bench:check, never compared.
 */

export interface Table {
  /** The nearest `#` heading above the table ("" before any). */
  heading: string;
  header: string[];
  rows: string[][];
}

const cellsOf = (line: string): string[] => line.trim().replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((cell) => cell.trim());
const isRule = (line: string): boolean => /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line.trim());

export function tablesOf(markdown: string): Table[] {
  const lines = markdown.split("\n");
  const tables: Table[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, "").trim();
    if (!line.trim().startsWith("|") || !isRule(lines[i + 1] ?? "")) continue;
    const table: Table = { heading, header: cellsOf(line), rows: [] };
    i += 2;
    for (; i < lines.length && lines[i]!.trim().startsWith("|"); i++) table.rows.push(cellsOf(lines[i]!));
    i--;
    tables.push(table);
  }
  return tables;
}

/** A column of measurements (time, memory, speed): reported, never compared. */
export function isMeasurementColumn(name: string): boolean {
  return /\b(ms|time|times|seconds?|wall|cpu|rss|memory|heap|mb|speed|median|rounds?\/s|ops\/s|duration)\b/i.test(name) || /\((ms|s|MB)\)/.test(name);
}

/** A cell that holds a measurement whatever its column says: a number with a unit of time or size. */
export function isMeasurementCell(text: string): boolean {
  return /\d\s*(ms|s|µs|us|ns|min|MB|KB|GB|MiB|KiB|GiB)\b/.test(text);
}

const tableKey = (table: Table): string => `${table.heading} :: ${table.header.join(" | ")}`;

function keyed<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T> {
  const seen = new Map<string, number>();
  const out = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    out.set(n === 0 ? key : `${key} #${n + 1}`, item);
  }
  return out;
}

export interface CompareOptions {
  /** The rerun is the whole bench, not a quick subset: a row only the file has is stale too. */
  complete?: boolean;
}

/** Every count of the rerun that the committed file does not hold as the same text; empty when they agree. */
export function countDifferences(committed: string, rerun: string, options: CompareOptions = {}): string[] {
  const theirs = keyed(tablesOf(committed), tableKey);
  const out: string[] = [];
  for (const [key, table] of keyed(tablesOf(rerun), tableKey)) {
    // A rerun that prints only its table (no heading) is matched by the header alone, when one table of the file has it.
    const byHeader = table.heading === "" ? [...theirs.values()].filter((t) => t.header.join(" | ") === table.header.join(" | ")) : [];
    const held = theirs.get(key) ?? (byHeader.length === 1 ? byHeader[0] : undefined);
    if (held === undefined) {
      out.push(`table "${key}": in the rerun, not in the file`);
      continue;
    }
    const heldRows = keyed(held.rows, (row) => row[0] ?? "");
    const rows = keyed(table.rows, (row) => row[0] ?? "");
    for (const [rowKey, row] of rows) {
      const old = heldRows.get(rowKey);
      if (old === undefined) {
        out.push(`table "${key}": row "${rowKey}" in the rerun, not in the file`);
        continue;
      }
      table.header.forEach((column, i) => {
        if (i === 0 || isMeasurementColumn(column)) return;
        const now = row[i] ?? "";
        const was = old[i] ?? "";
        if (now === was || isMeasurementCell(now) || isMeasurementCell(was)) return;
        out.push(`table "${key}": row "${rowKey}", ${column || `column ${i + 1}`}: the file says ${was}, the rerun ${now}`);
      });
    }
    if (options.complete) for (const rowKey of heldRows.keys()) if (!rows.has(rowKey)) out.push(`table "${key}": row "${rowKey}" in the file, not in the rerun`);
  }
  return out;
}
