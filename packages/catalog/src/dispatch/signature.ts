import { isSchemaObject, parseLocalRef, type JsonSchemaObject } from "@sluice/schema";

/**
 * One-line signatures: `name(arg: type, arg?: type) — First sentence.` They stand in for a
 * tool's description at level 1 and make up the code map at level 3, so they are short:
 * the model reads the full schema (level 1) or asks for it (level 3) when it needs more.
 */
export interface SignatureOptions {
  /** Arguments listed before `…`; required ones first. Default 8. */
  readonly maxArgs?: number;
  /** The first sentence is cut to this many characters; 0 leaves the sentence out. Default 100. */
  readonly sentenceChars?: number;
  /** List only the required arguments, then `…` when there are optional ones. Default false. */
  readonly requiredOnly?: boolean;
}

const MAX_UNION = 3;
const MAX_ENUM = 4;

// A period after these does not end a sentence.
const ABBREVIATIONS = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|incl|Inc|Ltd|Mr|Ms|Dr|No)$/i;

function refName(ref: string): string {
  const segments = parseLocalRef(ref);
  return segments?.[segments.length - 1] ?? ref;
}

function union(labels: string[]): string {
  const unique = [...new Set(labels)];
  return unique.length > MAX_UNION ? [...unique.slice(0, MAX_UNION), "…"].join("|") : unique.join("|");
}

/** A short type label: JSON Schema type names, `$defs` names for refs, small enums spelled out. */
export function typeLabel(schema: unknown): string {
  if (schema === true || !isSchemaObject(schema)) return "any";
  if (typeof schema.$ref === "string") return refName(schema.$ref);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.length <= MAX_ENUM) return union(schema.enum.map((value) => JSON.stringify(value)));
  const branches = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined) as unknown[] | undefined;
  if (branches !== undefined && schema.type === undefined) return union(branches.map(typeLabel));
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && schema.type === undefined) return typeLabel(schema.allOf[0]);
  const types = Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === "string") : typeof schema.type === "string" ? [schema.type] : [];
  if (types.length === 0) return isSchemaObject(schema.properties) ? "object" : "any";
  return union(
    types.map((type) => {
      if (type !== "array") return type;
      const item = typeLabel(schema.items);
      return item.includes("|") ? `(${item})[]` : `${item}[]`;
    }),
  );
}

/**
 * The first sentence of a text, whitespace collapsed, markdown links reduced to their
 * text, HTML tags removed (Stripe writes `<p>`), cut on a character boundary. A paragraph break ends a sentence too: OpenAPI
 * descriptions often start with a summary line without a period.
 */
export function firstSentence(text: string, maxChars = 100): string {
  if (!(maxChars > 0)) return "";
  const paragraph = text.trim().split(/\n\s*\n/)[0] ?? "";
  const flat = paragraph.replace(/<\/?[a-z][^>]*>/gi, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/\s+/g, " ").trim();
  let end = flat.length;
  const stop = /[.!?](?=\s|$)/g;
  for (let match = stop.exec(flat); match !== null; match = stop.exec(flat)) {
    const before = flat.slice(0, match.index);
    if (match[0] === "." && ABBREVIATIONS.test(before)) continue;
    end = match.index + 1;
    break;
  }
  const sentence = [...flat.slice(0, end)];
  return sentence.length <= maxChars ? sentence.join("") : sentence.slice(0, maxChars - 1).join("").trimEnd() + "…";
}

/** The required arguments' names, in schema order. */
export function requiredNames(inputSchema: JsonSchemaObject): string[] {
  const properties = isSchemaObject(inputSchema.properties) ? inputSchema.properties : {};
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.filter((r): r is string => typeof r === "string") : []);
  return Object.keys(properties).filter((name) => required.has(name));
}

/** `(arg: type, arg?: type, …)`: required arguments first, each group in schema order. */
export function argumentList(inputSchema: JsonSchemaObject, maxArgs = 8, requiredOnly = false): string {
  const properties = isSchemaObject(inputSchema.properties) ? inputSchema.properties : {};
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.filter((r): r is string => typeof r === "string") : []);
  const names = Object.keys(properties);
  const ordered = [...names.filter((n) => required.has(n)), ...(requiredOnly ? [] : names.filter((n) => !required.has(n)))];
  const shown = ordered.slice(0, maxArgs).map((name) => `${name}${required.has(name) ? "" : "?"}: ${typeLabel(properties[name])}`);
  if (ordered.length > maxArgs || (requiredOnly && names.length > ordered.length)) shown.push("…");
  return `(${shown.join(", ")})`;
}

export function signatureLine(name: string, description: string, inputSchema: JsonSchemaObject, options: SignatureOptions = {}): string {
  const sentence = firstSentence(description, options.sentenceChars ?? 100);
  const head = `${name}${argumentList(inputSchema, options.maxArgs ?? 8, options.requiredOnly ?? false)}`;
  return sentence === "" ? head : `${head} — ${sentence}`;
}
