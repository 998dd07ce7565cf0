import { canonicalJson, isSchemaObject } from "@sluice/schema";
import type { Encoding } from "../tokens.ts";
import { PieceCounter, startsPiece } from "./chunk-tokens.ts";

/** A tool definition as sent: what `schemaTokens` counts (`Tool.toJSON()`, or a tools/list entry's three members). */
export interface SentDefinition {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/**
 * `schemaTokens` of many tool definitions, exactly, without tokenizing the same
 * definition text twice. A pack's tools carry the same `$defs` entries over and over
 * (8,984 Kubernetes tools: 112 MiB as sent, of which 66 MiB are copies of 6 MiB of
 * distinct entries), so the definition as sent is counted in parts:
 *
 *   {"description":...,"inputSchema":{...,"$defs":{"  A":{...},"  B":{...},"  C":{...}},...}
 *
 * Each entry but the last, from its name to the `,"` before the next name, is one part
 * counted once per entry (remembered by the body object and the name; bodies are shared
 * objects in a loaded pack and in a read served list alike). Those parts start and end at
 * cut points (chunk-tokens.ts: just after `{"` or `,"` and before a letter or digit, where
 * a BPE pre-token always ends), so the sum of the parts is the count of the whole: the
 * same number as `schemaTokens`, not an estimate. An entry whose name, or whose
 * successor's name, does not start with a letter or digit has no such cut and stays in
 * the text around it; so does the last entry (`}},"` is one pre-token). What is not an
 * entry goes through the `PieceCounter`, which remembers every piece it tokenized.
 */
export class DefinitionTotals {
  readonly #counter: PieceCounter;

  constructor(encoding: Encoding, counter: PieceCounter = new PieceCounter(encoding)) {
    this.#counter = counter;
  }

  /** Tokens of the definition as sent: `schemaTokens` of it. */
  total(definition: SentDefinition): number {
    const schema = definition.inputSchema;
    const defs = isSchemaObject(schema) ? schema.$defs : undefined;
    if (!isPlainObject(defs)) return this.#counter.countOnce(canonicalJson(sent(definition)));
    const names = Object.keys(defs)
      .filter((name) => defs[name] !== undefined)
      .sort();
    if (names.length < 2) return this.#counter.countOnce(canonicalJson(sent(definition)));
    // The text around `$defs`, every value in its canonical text; each argument's through the counter,
    // which remembers it per object (a report's pricers count the same arguments' entries again).
    const textOf = (value: unknown, key: string) => (key === "properties" && isPlainObject(value) ? membersText(value, this.#counter) : canonicalJson(value));
    const [before, after] = objectAround(sent(definition), "inputSchema", canonicalJson, (value) => objectAround(value as Record<string, unknown>, "$defs", textOf));
    const parts: Array<string | number> = [`${before}{`];
    // Whether the part before already holds the current entry's opening quote (a counted entry ends with `,"`).
    let quoted = false;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const body = defs[name];
      const next = names[i + 1];
      if (next !== undefined && startsPiece(name) && startsPiece(next) && typeof body === "object" && body !== null) {
        // The quote before the name stays with the text before it; the part runs from the name to the next one's `,"`.
        if (!quoted) parts.push('"');
        parts.push(this.#counter.memberCount(name, body));
        quoted = true;
      } else {
        const entry = `${JSON.stringify(name)}:${this.#counter.textOf(body)}`;
        const text = next === undefined ? entry : `${entry},`;
        parts.push(quoted ? text.slice(1) : text);
        quoted = false;
      }
    }
    parts.push(`}${after}`);
    return this.#counter.countJoined(parts);
  }
}

/** The members `Tool.toJSON()` has (a tools/list entry's others, such as annotations, are not counted). */
function sent(definition: SentDefinition): Record<string, unknown> {
  return { name: definition.name, description: definition.description, inputSchema: definition.inputSchema };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}


/**
 * The canonical text of an object split around the value of `key`: what comes before
 * that value (ending with `"key":`) and what comes after it, every other member written
 * by `textOf` (its canonical text), in its order (keys sorted, members whose value is
 * undefined left out). `inner` splits the value itself the same way, one level further down.
 */
function objectAround(
  object: Record<string, unknown>,
  key: string,
  textOf: (value: unknown, key: string) => string,
  inner?: (value: unknown) => [string, string],
): [string, string] {
  const keys = Object.keys(object)
    .filter((k) => object[k] !== undefined)
    .sort();
  let before = "{";
  let after = "";
  let seen = false;
  for (const k of keys) {
    const member = `${JSON.stringify(k)}:`;
    const lead = k === keys[0] ? "" : ",";
    if (k === key) {
      const [open, close] = inner === undefined ? ["", ""] : inner(object[k]);
      before += `${lead}${member}${open}`;
      after = close;
      seen = true;
    } else if (seen) {
      after += `${lead}${member}${textOf(object[k], k)}`;
    } else {
      before += `${lead}${member}${textOf(object[k], k)}`;
    }
  }
  return [before, `${after}}`];
}

/** `canonicalJson(object)` made of the counter's remembered text of each member value. */
function membersText(object: Record<string, unknown>, counter: PieceCounter): string {
  const keys = Object.keys(object)
    .filter((k) => object[k] !== undefined)
    .sort();
  let text = "{";
  for (let i = 0; i < keys.length; i++) text += `${i === 0 ? "" : ","}${JSON.stringify(keys[i])}:${counter.textOf(object[keys[i]!])}`;
  return `${text}}`;
}
