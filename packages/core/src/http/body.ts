import { SluiceError } from "@sluice/schema";
import type { HttpBody, HttpBodyPropertyEncoding } from "../tool-ir.ts";
import { encodeUnreserved } from "./encode.ts";
import { isPlainObject, isScalar, ownEntries, ownValue, scalarText } from "./scalar.ts";
import { bracketPieces, serializeQueryPieces } from "./style.ts";

export interface BuiltBody {
  contentType: string;
  body: string | Uint8Array;
}

/** `application/json`, `application/problem+json`, `text/json`... (parameters ignored). */
export function isJsonMediaType(mediaType: string): boolean {
  const base = mediaType.split(";")[0]!.trim().toLowerCase();
  return base === "application/json" || base.endsWith("+json") || base === "text/json";
}

/**
 * The body value from the arguments the binding names, and only those: each field
 * argument becomes its body property; `wholeBodyArg` is the body. `undefined` when no
 * argument for the body was given and the body is optional.
 */
export function bodyValue(body: HttpBody, args: Record<string, unknown>): unknown {
  if (body.wholeBodyArg !== undefined) {
    const value = ownValue(args, body.wholeBodyArg);
    if (value === undefined && body.required === true) {
      throw new SluiceError("INVALID_ARGUMENTS", `missing required argument ${body.wholeBodyArg} (the request body)`);
    }
    return value;
  }
  const fields = body.fields ?? {};
  const out: Record<string, unknown> = {};
  let any = false;
  for (const [arg, property] of Object.entries(fields)) {
    const value = ownValue(args, arg);
    if (value === undefined) continue;
    // defineProperty: a property called `__proto__` stays an own data property.
    Object.defineProperty(out, property, { value, enumerable: true, writable: true, configurable: true });
    any = true;
  }
  if (!any && body.required !== true) return undefined;
  return out;
}

function isWildcardMediaType(mediaType: string): boolean {
  return mediaType.split(";")[0]!.trim() === "*/*";
}

export function buildBody(body: HttpBody, value: unknown): BuiltBody {
  switch (body.encoding) {
    case "json":
      // `*/*` says nothing about the bytes (GitHub's release asset upload: a string of raw
      // file data); a string is then the data itself, not a JSON string literal.
      if (typeof value === "string" && isWildcardMediaType(body.mediaType)) return { contentType: body.mediaType, body: value };
      return { contentType: body.mediaType, body: JSON.stringify(value) };
    case "form":
      return { contentType: body.mediaType, body: formBody(value, body.propertyEncoding ?? {}) };
    case "multipart":
      return multipartBody(body.mediaType, value, body.propertyEncoding ?? {});
    case "text":
      return { contentType: body.mediaType, body: scalarText(value, "request body") };
    case "binary":
      if (value instanceof Uint8Array) return { contentType: body.mediaType, body: value };
      return { contentType: body.mediaType, body: scalarText(value, "request body") };
  }
}

function propertyText(value: unknown, contentType: string | undefined, where: string): string {
  if (contentType !== undefined && isJsonMediaType(contentType)) return JSON.stringify(value);
  return scalarText(value, where);
}

/**
 * `application/x-www-form-urlencoded`. Each property by its Encoding Object (default
 * style form, explode true); a property with a `contentType` is sent as that content;
 * objects and arrays of objects use bracket notation (`card[number]=...`,
 * `items[0][price]=...`), as Stripe does, since the form style would spill an object's
 * keys into the top level where they collide with other properties.
 */
export function formBody(value: unknown, encodings: Readonly<Record<string, HttpBodyPropertyEncoding>>): string {
  if (value === undefined) return "";
  if (!isPlainObject(value)) throw new SluiceError("INVALID_ARGUMENTS", "a form-encoded request body must be an object");
  const pieces: string[] = [];
  for (const [property, v] of ownEntries(value)) {
    const encoding = Object.prototype.hasOwnProperty.call(encodings, property) ? encodings[property]! : {};
    const where = `body property ${property}`;
    if (encoding.contentType !== undefined && encoding.style === undefined) {
      pieces.push(`${encodeUnreserved(property)}=${encodeUnreserved(propertyText(v, encoding.contentType, where))}`);
      continue;
    }
    const style = encoding.style ?? "form";
    const explode = encoding.explode ?? style === "form";
    const nested = isPlainObject(v) || (Array.isArray(v) && !v.every(isScalar));
    if (style === "deepObject" || nested) {
      for (const piece of bracketPieces(encodeUnreserved(property), v, encodeUnreserved, where)) pieces.push(piece);
    } else {
      for (const piece of serializeQueryPieces(property, v, style, explode, encoding.allowReserved ?? false)) pieces.push(piece);
    }
  }
  return pieces.join("&");
}

/** Bracket notation to any depth, unencoded (multipart names are quoted, not percent-encoded): `a[b][0]` and its scalar. Empty arrays and objects give nothing. */
function bracketLeaves(prefix: string, value: unknown): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => (v === undefined ? [] : bracketLeaves(`${prefix}[${i}]`, v)));
  if (isPlainObject(value)) return ownEntries(value).flatMap(([k, v]) => bracketLeaves(`${prefix}[${k}]`, v));
  return [[prefix, value]];
}

const encoder = new TextEncoder();

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Uint8Array;
}

function quoteName(name: string): string {
  return name.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22");
}

function fnv1a(parts: readonly Part[]): string {
  let h = 0x811c9dc5;
  for (const part of parts) {
    for (const byte of part.data) {
      h ^= byte;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  }
  return h.toString(16).padStart(8, "0");
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * `multipart/form-data` as bytes with a deterministic boundary (a hash of the content,
 * lengthened until no part contains it), so the same arguments always give the same
 * bytes. Strings, numbers and booleans are text parts; `Uint8Array` values are file
 * parts; objects are JSON parts (`application/json`, or the Encoding Object's
 * contentType); arrays are one part per element.
 */
export function multipartBody(mediaType: string, value: unknown, encodings: Readonly<Record<string, HttpBodyPropertyEncoding>>): BuiltBody {
  if (value !== undefined && !isPlainObject(value)) throw new SluiceError("INVALID_ARGUMENTS", "a multipart request body must be an object");
  const parts: Part[] = [];
  const add = (property: string, v: unknown, contentType: string | undefined, nested: boolean): void => {
    if (v === undefined) return;
    if (v instanceof Uint8Array) {
      parts.push({ name: property, filename: property, contentType: contentType ?? "application/octet-stream", data: v });
    } else if (Array.isArray(v) && !nested) {
      for (const item of v) add(property, item, contentType, true);
    } else if (isPlainObject(v) || Array.isArray(v)) {
      parts.push({ name: property, contentType: contentType ?? "application/json", data: encoder.encode(JSON.stringify(v)) });
    } else {
      const text = propertyText(v, contentType, `body property ${property}`);
      const part: Part = { name: property, data: encoder.encode(text) };
      if (contentType !== undefined && !contentType.toLowerCase().startsWith("text/plain")) part.contentType = contentType;
      parts.push(part);
    }
  };
  for (const [property, v] of value === undefined ? [] : ownEntries(value)) {
    const encoding = Object.prototype.hasOwnProperty.call(encodings, property) ? encodings[property]! : {};
    // An Encoding Object style applies to multipart too (OpenAPI 3.1): `deepObject` sends
    // each leaf as its own text part under its bracketed name, as Stripe's uploads take
    // `file_link_data[create]=true`.
    if (encoding.style === "deepObject" && encoding.contentType === undefined && (isPlainObject(v) || Array.isArray(v))) {
      for (const [name, leaf] of bracketLeaves(property, v)) add(name, leaf, undefined, true);
      continue;
    }
    add(property, v, encoding.contentType, false);
  }
  let boundary = `sluice-${fnv1a(parts)}`;
  while (parts.some((p) => indexOf(p.data, encoder.encode(boundary)) >= 0)) boundary += "x";
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quoteName(part.name)}"`;
    if (part.filename !== undefined) head += `; filename="${quoteName(part.filename)}"`;
    head += "\r\n";
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(encoder.encode(head + "\r\n"), part.data, encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  const base = mediaType.split(";")[0]!.trim();
  return { contentType: `${base}; boundary=${boundary}`, body: out };
}
