import { SluiceError } from "@sluice/schema";
import type { HttpParameterStyle } from "../tool-ir.ts";
import { encodeAllowReserved, encodePathValue, encodeUnreserved } from "./encode.ts";
import { isPlainObject, ownEntries, scalarText } from "./scalar.ts";

/**
 * Parameter serialization of OpenAPI 3.1 §4.8.12.4 (RFC 6570 for path styles), written
 * against the specification's own style examples table.
 */

type Encode = (text: string) => string;

function items(value: unknown[], where: string): string[] {
  return value.filter((v) => v !== undefined).map((v) => scalarText(v, where));
}

function pairs(value: Record<string, unknown>, where: string): [string, string][] {
  return ownEntries(value).map(([k, v]) => [k, scalarText(v, where)]);
}

/**
 * RFC 6570 §2.3: a list or map with no (defined) members is undefined, and an undefined
 * variable expands to nothing, not even its prefix or name (OpenAPI 3.2's style table,
 * column `undefined`). The empty string is not undefined.
 */
export function isUndefinedValue(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.every((v) => v === undefined);
  return isPlainObject(value) && ownEntries(value).length === 0;
}

/** Path parameter, the text that replaces `{name}` in the template (already encoded). */
export function serializePathValue(name: string, value: unknown, style: HttpParameterStyle, explode: boolean): string {
  const where = `path parameter ${name}`;
  const enc: Encode = encodePathValue;
  if (isUndefinedValue(value) && (style === "simple" || style === "label" || style === "matrix")) return "";
  if (style === "simple") {
    if (Array.isArray(value)) return items(value, where).map(enc).join(",");
    if (isPlainObject(value)) return pairs(value, where).map(([k, v]) => (explode ? `${enc(k)}=${enc(v)}` : `${enc(k)},${enc(v)}`)).join(",");
    return enc(scalarText(value, where));
  }
  if (style === "label") {
    if (Array.isArray(value)) return "." + items(value, where).map(enc).join(explode ? "." : ",");
    if (isPlainObject(value)) return "." + pairs(value, where).map(([k, v]) => (explode ? `${enc(k)}=${enc(v)}` : `${enc(k)},${enc(v)}`)).join(explode ? "." : ",");
    return "." + enc(scalarText(value, where));
  }
  if (style === "matrix") {
    const n = enc(name);
    const one = (k: string, v: string): string => (v === "" ? `;${k}` : `;${k}=${v}`);
    if (Array.isArray(value)) {
      const list = items(value, where).map(enc);
      return explode ? list.map((v) => one(n, v)).join("") : one(n, list.join(","));
    }
    if (isPlainObject(value)) {
      const list = pairs(value, where);
      return explode ? list.map(([k, v]) => one(enc(k), enc(v))).join("") : one(n, list.map(([k, v]) => `${enc(k)},${enc(v)}`).join(","));
    }
    return one(n, enc(scalarText(value, where)));
  }
  throw new SluiceError("SPEC_INVALID", `path parameter ${name}: style ${style} is not a path style (simple, label, matrix)`);
}

/**
 * Query (or form body) parameter as encoded `key=value` pieces, in order. `deepObject`
 * nests with brackets to any depth, arrays with indices (`items[0][price]=...`), the
 * convention Stripe documents for its form bodies and deep-object queries.
 */
export function serializeQueryPieces(name: string, value: unknown, style: HttpParameterStyle, explode: boolean, allowReserved = false): string[] {
  const where = `query parameter ${name}`;
  const enc: Encode = allowReserved ? encodeAllowReserved : encodeUnreserved;
  const n = encodeUnreserved(name);
  if (isUndefinedValue(value)) return [];
  if (style === "deepObject") return bracketPieces(n, value, enc, where);
  const delimiter = style === "spaceDelimited" ? "%20" : style === "pipeDelimited" ? "|" : ",";
  if (style !== "form" && style !== "spaceDelimited" && style !== "pipeDelimited") {
    throw new SluiceError("SPEC_INVALID", `query parameter ${name}: style ${style} is not a query style (form, spaceDelimited, pipeDelimited, deepObject)`);
  }
  if (Array.isArray(value)) {
    const list = items(value, where).map(enc);
    if (explode) return list.map((v) => `${n}=${v}`);
    return [`${n}=${list.join(delimiter)}`];
  }
  if (isPlainObject(value)) {
    const list = pairs(value, where);
    if (explode) return list.map(([k, v]) => `${encodeUnreserved(k)}=${enc(v)}`);
    return [`${n}=${list.map(([k, v]) => `${enc(k)}${delimiter}${enc(v)}`).join(delimiter)}`];
  }
  return [`${n}=${enc(scalarText(value, where))}`];
}

/** Bracket notation to any depth: `card[number]=4242`, `items[0][price]=p_1`. Empty arrays and objects send nothing. */
export function bracketPieces(prefix: string, value: unknown, enc: Encode, where: string): string[] {
  if (Array.isArray(value)) {
    const out: string[] = [];
    value.forEach((v, i) => {
      if (v !== undefined) for (const piece of bracketPieces(`${prefix}[${i}]`, v, enc, where)) out.push(piece);
    });
    return out;
  }
  if (isPlainObject(value)) {
    return ownEntries(value).flatMap(([k, v]) => bracketPieces(`${prefix}[${encodeUnreserved(k)}]`, v, enc, where));
  }
  return [`${prefix}=${enc(scalarText(value, where))}`];
}

/**
 * Header parameter, style simple. Header values are not percent-encoded; line breaks are
 * refused. An empty list or map is undefined (see {@link isUndefinedValue}): the builder
 * sends no header for it.
 */
export function serializeHeaderValue(name: string, value: unknown, explode: boolean): string {
  const where = `header ${name}`;
  let text: string;
  if (Array.isArray(value)) text = items(value, where).join(",");
  else if (isPlainObject(value)) text = pairs(value, where).map(([k, v]) => (explode ? `${k}=${v}` : `${k},${v}`)).join(",");
  else text = scalarText(value, where);
  return checkHeaderText(name, text);
}

export function checkHeaderText(name: string, text: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\r\n\0]/.test(text)) throw new SluiceError("INVALID_ARGUMENTS", `header ${name}: the value contains a line break or NUL, which a header cannot carry`);
  return text;
}

/** Cookie parameter, style form: `name=value` pieces, joined with `; ` into one Cookie header. */
export function serializeCookiePieces(name: string, value: unknown, explode: boolean): string[] {
  const where = `cookie ${name}`;
  const enc: Encode = encodeUnreserved;
  const n = encodeUnreserved(name);
  if (isUndefinedValue(value)) return [];
  if (Array.isArray(value)) {
    const list = items(value, where).map(enc);
    return explode ? list.map((v) => `${n}=${v}`) : [`${n}=${list.join(",")}`];
  }
  if (isPlainObject(value)) {
    const list = pairs(value, where);
    return explode ? list.map(([k, v]) => `${enc(k)}=${enc(v)}`) : [`${n}=${list.map(([k, v]) => `${enc(k)},${enc(v)}`).join(",")}`];
  }
  return [`${n}=${enc(scalarText(value, where))}`];
}
