/**
 * Labels: the short types of the map. `Name (inner)` is a type without members listed by
 * value where it is used once; listed in a section, the same type is `Name` and its value
 * is the section's. Both become `Name`, with the value kept per type name.
 */

export const BASE_TYPES = new Set(["string", "number", "integer", "boolean", "null", "object", "array", "any"]);
const DELIMITERS = /[\s()|&]/;

export interface LabelInfo {
  /** The label with every `Name (inner)` reduced to `Name`. */
  label: string;
  /** The values of the types that were listed by value: Name -> inner (itself canonical). */
  scalars: Array<[string, string]>;
  /** Type names the label mentions. */
  tokens: string[];
  /**
   * Type names the values of its by-value types mention (`A (Base & object)`: A -> [Base]): a
   * type listed by value names the sections it includes only there.
   */
  inner: Array<[string, string[]]>;
  /** The type when the label is that one type (or an array of it): its members continue there. */
  single: string | undefined;
}

export class LabelCache {
  private readonly cache = new Map<string, LabelInfo>();
  get(label: string): LabelInfo {
    let info = this.cache.get(label);
    if (info === undefined) {
      info = analyzeLabel(label);
      this.cache.set(label, info);
    }
    return info;
  }
}

export function isValueLabel(label: string): boolean {
  return label.startsWith("enum: ") || label.startsWith("const ");
}

function analyzeLabel(raw: string): LabelInfo {
  const scalars: Array<[string, string]> = [];
  const label = isValueLabel(raw) ? raw : reduceByValue(raw, scalars, 0);
  const tokens = isValueLabel(label)
    ? []
    : [...new Set(label.split(/[\s()|&]+/).map((token) => token.replace(/(\[\])+$/, "")).filter((token) => token !== "" && !BASE_TYPES.has(token) && token !== "…"))];
  // `Item[] | null`: the value is that one type when it is not null, so its members continue there too.
  const single = /^([^\s()|&]+?)(?:\[\])*$/.exec(label.replace(/^null \| | \| null$/, ""))?.[1];
  const inner = scalars.filter(([, value]) => !isValueLabel(value)).map(([name, value]): [string, string[]] => [name, labelTokens(value)]);
  return { label, scalars, tokens, inner, single: single === undefined || BASE_TYPES.has(single) ? undefined : single };
}

function labelTokens(label: string): string[] {
  return [...new Set(label.split(/[\s()|&]+/).map((token) => token.replace(/(\[\])+$/, "")).filter((token) => token !== "" && !BASE_TYPES.has(token) && token !== "…"))];
}

/** `Status (enum: a | b)[]` -> `Status[]`, remembering Status's value; base types keep their format (`string (date-time)`). */
function reduceByValue(label: string, scalars: Array<[string, string]>, depth: number): string {
  if (depth > 8) return label;
  let out = "";
  let index = 0;
  const pattern = /([^\s()|&]+) \(/g;
  for (let match = pattern.exec(label); match !== null; match = pattern.exec(label)) {
    const name = match[1]!;
    const start = match.index;
    if (BASE_TYPES.has(name) || (start > 0 && !DELIMITERS.test(label[start - 1]!))) continue;
    const open = start + name.length + 1;
    let level = 0;
    let close = -1;
    for (let i = open; i < label.length; i++) {
      if (label[i] === "(") level++;
      else if (label[i] === ")" && --level === 0) {
        close = i;
        break;
      }
    }
    if (close < 0) break;
    const inner = label.slice(open + 1, close);
    scalars.push([name, isValueLabel(inner) ? inner : reduceByValue(inner, scalars, depth + 1)]);
    out += label.slice(index, start) + name;
    index = close + 1;
    pattern.lastIndex = close + 1;
  }
  out += label.slice(index);
  // `(Status)[]` once Status's value is gone: the parentheses only grouped it.
  let previous;
  do {
    previous = out;
    out = out.replace(/\(([^\s()|&]+)\)(?=\[\])/g, "$1");
  } while (out !== previous);
  return out;
}
