/**
 * The limits an egress map line shows after its type (`string  {required, maxLength 255}`):
 * reading them back from the text, and comparing two lists of them by what they let the
 * model send. A loosened limit (a bound raised or removed, a pattern changed or removed,
 * `required` or `uniqueItems` gone) is a widening; a tightened one a narrowing; a default
 * that changed neither (the server fills it in, the model may send the same values).
 */

/** Where the limits start in a `+` line's text after the path, and the list; undefined without limits. */
export function splitLimits(text: string): { type: string; limits: string[] } | undefined {
  if (!text.endsWith("}")) return undefined;
  // The first "  {" whose rest reads as a list of limits: a type label holds none outside a quoted value.
  for (let at = text.indexOf("  {"); at >= 0; at = text.indexOf("  {", at + 1)) {
    const limits = readLimits(text.slice(at + 3, -1));
    if (limits !== undefined) return { type: text.slice(0, at), limits };
  }
  return undefined;
}

const KEY = /^[^\s,{}"]+/;

/** `required, maxLength 255, pattern "a, b"` -> its items; undefined when it is not such a list. */
function readLimits(body: string): string[] | undefined {
  const out: string[] = [];
  let at = 0;
  while (at < body.length) {
    const key = KEY.exec(body.slice(at))?.[0];
    if (key === undefined) return undefined;
    let end = at + key.length;
    if (body[end] === " ") {
      const valueEnd = jsonEnd(body, end + 1);
      if (valueEnd === undefined) return undefined;
      end = valueEnd;
    }
    out.push(body.slice(at, end));
    if (end === body.length) break;
    if (!body.startsWith(", ", end)) return undefined;
    at = end + 2;
    if (at === body.length) return undefined;
  }
  return out.length > 0 ? out : undefined;
}

/** The end of the JSON value starting at `start` (strings, brackets, literals; not validated further). */
function jsonEnd(text: string, start: number): number | undefined {
  let level = 0;
  let quoted = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') {
        quoted = false;
        if (level === 0) return i + 1;
      }
      continue;
    }
    if (char === '"') quoted = true;
    else if (char === "[" || char === "{") level++;
    else if (char === "]" || char === "}") {
      if (level === 0) return undefined;
      if (--level === 0) return i + 1;
    } else if (level === 0 && (char === "," || char === " ")) return i === start ? undefined : i;
  }
  return quoted || level > 0 ? undefined : text.length === start ? undefined : text.length;
}

export type LimitChangeKind = "limit" | "required" | "default";

export interface LimitChange {
  kind: LimitChangeKind;
  /** What changed, in the map's words: `maxLength 300 (was 255)`, `pattern removed (was "^a")`, `no longer required`. */
  text: string;
}

export interface LimitComparison {
  wider: LimitChange[];
  narrower: LimitChange[];
  changed: LimitChange[];
}

interface Bound {
  value: number;
  exclusive: boolean;
  text: string;
}

const UPPER: Record<string, boolean> = { maximum: false, exclusiveMaximum: true };
const LOWER: Record<string, boolean> = { minimum: false, exclusiveMinimum: true };
const COUNT_UPPER = new Set(["maxLength", "maxItems", "maxProperties", "maxContains"]);
const COUNT_LOWER = new Set(["minLength", "minItems", "minProperties", "minContains"]);
const FLAGS = new Set(["required", "uniqueItems"]);

/** `items.maxLength 5` -> place `items.`, keyword `maxLength`, value `5`. */
function partsOf(item: string): { place: string; keyword: string; value: string } {
  const space = item.indexOf(" ");
  const key = space < 0 ? item : item.slice(0, space);
  const value = space < 0 ? "" : item.slice(space + 1);
  const dot = key.lastIndexOf(".");
  return { place: key.slice(0, dot + 1), keyword: key.slice(dot + 1), value };
}

/** The family a limit belongs to, compared as one: the bounds on one side of one place, say. */
function familyOf(keyword: string): string {
  if (keyword in UPPER) return "upper";
  if (keyword in LOWER) return "lower";
  return keyword;
}

/**
 * Compares the limits of one visible path, before and after. Each family of one place is
 * compared by meaning: the tightest upper (lower) bound, exclusive beating inclusive at the
 * same number; a count bound; the multiples a `multipleOf` admits; a flag; a pattern or a
 * whole subschema by text (any change of one counts as wider: the map cannot prove a
 * pattern narrower, and a check that errs must err towards naming).
 */
export function compareLimits(before: readonly string[], after: readonly string[]): LimitComparison {
  const result: LimitComparison = { wider: [], narrower: [], changed: [] };
  if (before.length === after.length && before.every((item, i) => item === after[i])) return result;
  const group = (items: readonly string[]) => {
    const families = new Map<string, Array<{ keyword: string; value: string; item: string }>>();
    for (const item of items) {
      const { place, keyword, value } = partsOf(item);
      const key = `${place}\u0000${familyOf(keyword)}`;
      const list = families.get(key) ?? [];
      list.push({ keyword, value, item });
      families.set(key, list);
    }
    return families;
  };
  const was = group(before);
  const now = group(after);
  for (const key of [...new Set([...was.keys(), ...now.keys()])].sort()) {
    const [place, family] = key.split("\u0000") as [string, string];
    const old = was.get(key) ?? [];
    const next = now.get(key) ?? [];
    const name = (keyword: string) => `${place}${keyword}`;
    if (family === "upper" || family === "lower") {
      const upper = family === "upper";
      const a = tightest(old, upper);
      const b = tightest(next, upper);
      const describe = (bound: Bound | undefined) => bound?.text ?? `no ${upper ? "maximum" : "minimum"}`;
      if (a?.text === b?.text) continue;
      const text = `${place}${b === undefined ? `${upper ? "maximum" : "minimum"} removed` : b.text.slice(place.length)} (was ${describe(a).slice(a === undefined ? 0 : place.length)})`;
      const order = compareBounds(a, b, upper);
      if (order > 0) result.wider.push({ kind: "limit", text });
      else if (order < 0) result.narrower.push({ kind: "limit", text });
      continue;
    }
    if (COUNT_UPPER.has(family) || COUNT_LOWER.has(family)) {
      const upper = COUNT_UPPER.has(family);
      const pick = (list: typeof old) => (list.length === 0 ? undefined : (upper ? Math.min : Math.max)(...list.map((l) => Number(l.value))));
      const a = pick(old);
      const b = pick(next);
      if (a === b) continue;
      const text = b === undefined ? `${name(family)} removed (was ${a})` : a === undefined ? `${name(family)} ${b} (was none)` : `${name(family)} ${b} (was ${a})`;
      const looser = b === undefined || (a !== undefined && (upper ? b > a : b < a));
      (looser ? result.wider : result.narrower).push({ kind: "limit", text });
      continue;
    }
    if (family === "multipleOf") {
      const a = old.map((l) => Number(l.value));
      const b = next.map((l) => Number(l.value));
      // Every number the new steps admit is one the old admit when each old step divides some new one.
      const looser = a.some((step) => !b.some((other) => isMultiple(other, step)));
      const tighter = b.some((step) => !a.some((other) => isMultiple(other, step)));
      const text = `${name("multipleOf")} ${b.length === 0 ? "removed" : b.join(" & ")} (was ${a.length === 0 ? "none" : a.join(" & ")})`;
      if (looser) result.wider.push({ kind: "limit", text });
      else if (tighter) result.narrower.push({ kind: "limit", text });
      continue;
    }
    if (FLAGS.has(family) || (family === "propertyNames" && [...old, ...next].every((l) => l.value === "false")) || (family === "items" && [...old, ...next].every((l) => l.value === "false"))) {
      const kind: LimitChangeKind = family === "required" ? "required" : "limit";
      const label = family === "required" ? "required" : `${name(family)}${old[0]?.value || next[0]?.value ? ` ${old[0]?.value ?? next[0]?.value}` : ""}`;
      if (old.length > 0 && next.length === 0) result.wider.push({ kind, text: family === "required" ? `${place}no longer required` : `${label} removed` });
      else if (old.length === 0 && next.length > 0) result.narrower.push({ kind, text: family === "required" ? `${place}now required` : label });
      continue;
    }
    // Patterns, defaults and whole subschemas: compared by text.
    const oldValues = old.map((l) => l.value);
    const newValues = next.map((l) => l.value);
    const gone = oldValues.filter((value) => !newValues.includes(value));
    const added = newValues.filter((value) => !oldValues.includes(value));
    if (gone.length === 0 && added.length === 0) continue;
    const text =
      added.length === 0 ? `${name(family)} removed (was ${gone.join(" & ")})` : gone.length === 0 ? `${name(family)} ${added.join(" & ")} (was none)` : `${name(family)} ${added.join(" & ")} (was ${gone.join(" & ")})`;
    if (family === "default") result.changed.push({ kind: "default", text });
    else if (gone.length > 0) result.wider.push({ kind: "limit", text });
    else result.narrower.push({ kind: "limit", text });
  }
  return result;
}

/** Whether `value` is a whole multiple of `step` (within the rounding of decimal steps). */
function isMultiple(value: number, step: number): boolean {
  if (!(step > 0) || !Number.isFinite(value)) return false;
  const ratio = value / step;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9 * Math.max(1, Math.abs(ratio));
}

function tightest(list: ReadonlyArray<{ keyword: string; value: string; item: string }>, upper: boolean): Bound | undefined {
  let best: Bound | undefined;
  for (const { keyword, value, item } of list) {
    const bound: Bound = { value: Number(value), exclusive: (upper ? UPPER : LOWER)[keyword] === true, text: item };
    if (best === undefined || compareBounds(best, bound, upper) > 0) best = bound;
  }
  return best;
}

/** > 0 when `b` admits more than `a` (undefined: no bound), < 0 when less, 0 when the same. */
function compareBounds(a: Bound | undefined, b: Bound | undefined, upper: boolean): number {
  if (a === undefined) return b === undefined ? 0 : -1;
  if (b === undefined) return 1;
  if (a.value !== b.value) return (upper ? b.value > a.value : b.value < a.value) ? 1 : -1;
  if (a.exclusive === b.exclusive) return 0;
  return a.exclusive ? 1 : -1;
}
