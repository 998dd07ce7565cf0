/**
 * The known differences between sluice's requests and swagger-client's, each recognised
 * by a rule here and explained (with the verdict and the spec text that decides it) in
 * the table of docs/reference-request-builder.md, the one place the reasons live: the test
 * reads that table and fails when a rule has no row or a row has no rule.
 */
import { readFileSync } from "node:fs";
import type { HttpBinding, HttpParameter } from "@sluice/core";
import { bodyOf, ownerOf, type Difference, type SpecKind } from "./reference-builder.ts";

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface DifferenceContext {
  kind: SpecKind;
  binding: HttpBinding;
  args: Record<string, unknown>;
  /** The operation's parameters as the spec writes them (resolved). */
  specParameters: readonly Doc[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isEmpty = (v: unknown): boolean => (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
const argOf = (c: DifferenceContext, p: HttpParameter): unknown => (Object.hasOwn(c.args, p.arg) ? c.args[p.arg] : undefined);

function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

/** The parameter a query/header/cookie difference is about. */
function owner(d: Difference, c: DifferenceContext): HttpParameter | undefined {
  if (d.name === undefined || (d.part !== "query" && d.part !== "cookie" && d.part !== "header")) return undefined;
  const bracket = d.name.indexOf("[");
  return ownerOf(c.binding, d.part, d.name, c.args) ?? (bracket > 0 ? ownerOf(c.binding, d.part, d.name.slice(0, bracket), c.args) : undefined);
}

/** The body property a body difference is about, with its value and encoding. */
function property(d: Difference, c: DifferenceContext): { name: string; value: unknown; style?: string; contentType?: string; allowReserved?: boolean } | undefined {
  if (d.part !== "body" || d.name === undefined || c.binding.body === undefined) return undefined;
  const body = bodyOf(c.binding, c.args);
  if (!isObject(body)) return undefined;
  const bracket = d.name.indexOf("[");
  const name = bracket > 0 ? d.name.slice(0, bracket) : d.name;
  const encoding = c.binding.body.propertyEncoding?.[name] ?? {};
  const found = Object.hasOwn(body, name) ? { name, value: body[name] } : Object.entries(body).filter(([, v]) => isObject(v) && Object.hasOwn(v, name)).map(([k, v]) => ({ name: k, value: v }))[0];
  if (found === undefined) return undefined;
  const out: { name: string; value: unknown; style?: string; contentType?: string; allowReserved?: boolean } = { ...found };
  if (encoding.style !== undefined) out.style = encoding.style;
  if (encoding.contentType !== undefined) out.contentType = encoding.contentType;
  if (encoding.allowReserved !== undefined) out.allowReserved = encoding.allowReserved;
  return out;
}

/** `!'()*` percent-encoded, as sluice writes them in a path and the reference does not. */
const encodeSubDelims = (text: string): string => text.replace(/[!'()*]/g, (ch) => "%" + ch.charCodeAt(0).toString(16).toUpperCase());

const encoding = (c: DifferenceContext): string | undefined => c.binding.body?.encoding;

/** Rules by the table's ids, in the order they are tried; the first that applies names the difference. */
export const RULES: Record<string, (d: Difference, c: DifferenceContext) => boolean> = {
  "path-empty": (d) => d.part === "build" && /must not be empty/.test(d.sluice),
  "path-dot-segment": (d) => d.part === "build" && /"\." or "\.\."/.test(d.sluice),
  // Only what a fragment in the key explains: the reference's path is the key's template left
  // unexpanded, or a query value sluice sends is missing from the reference (it went into the fragment).
  "path-fragment-in-key": (d, c) => {
    const hash = c.binding.path.indexOf("#");
    if (hash < 0) return false;
    if (d.part === "path") return d.reference.endsWith(c.binding.path.slice(0, hash).replace(/\{/g, "%7B").replace(/\}/g, "%7D"));
    return d.part === "query" && d.reference === "" && d.sluice !== "";
  },
  "label-flat-delimiter": (d, c) =>
    d.part === "path" && c.binding.parameters.some((p) => p.in === "path" && p.style === "label" && !p.explode && (Array.isArray(argOf(c, p)) || isObject(argOf(c, p)))),
  // Only raw brackets: percent-encoding the reference's `[` and `]` (and the sub-delims of the
  // next rule, which a path may hold too) gives sluice's path exactly.
  "path-raw-brackets": (d) => d.part === "path" && /[[\]]/.test(d.reference) && encodeSubDelims(d.reference.replace(/\[/g, "%5B").replace(/\]/g, "%5D")) === d.sluice,
  "path-raw-sub-delims": (d) => d.part === "path" && encodeSubDelims(d.reference) === d.sluice,
  // Segment by segment: each of the key's `{name}` segments is either left unexpanded by the
  // reference or equal once its raw brackets and sub-delims are encoded; some value holds a bracket.
  "path-brackets-unexpanded": (d, c) => {
    if (d.part !== "path") return false;
    const values = c.binding.parameters.filter((p) => p.in === "path").flatMap((p) => strings(argOf(c, p)));
    if (!values.some((v) => /[[\]]/.test(v))) return false;
    const template = c.binding.path.split("/");
    const theirs = d.reference.split("/");
    const ours = d.sluice.split("/");
    if (theirs.length !== ours.length || ours.length < template.length) return false;
    const offset = ours.length - template.length;
    let unexpanded = 0;
    for (let i = 0; i < ours.length; i++) {
      const name = i >= offset ? /^\{([^{}]+)\}$/.exec(template[i - offset]!)?.[1] : undefined;
      if (name !== undefined && theirs[i] === `%7B${name}%7D` && ours[i] !== theirs[i]) unexpanded++;
      else if (encodeSubDelims(theirs[i]!.replace(/\[/g, "%5B").replace(/\]/g, "%5D")) !== ours[i]) return false;
    }
    return unexpanded > 0;
  },
  "allow-reserved-delimiters": (d, c) =>
    (d.part === "query" || d.part === "body") &&
    (c.binding.parameters.some((p) => p.allowReserved === true && strings(argOf(c, p)).some((s) => /[#&=+%]/.test(s))) ||
      Object.entries(c.binding.body?.propertyEncoding ?? {}).some(([name, e]) => e.allowReserved === true && strings((bodyOf(c.binding, c.args) as Record<string, unknown> | undefined)?.[name]).some((s) => /[#&=+%]/.test(s)))),
  "empty-list-sent": (d, c) => {
    if (d.sluice !== "" && !(d.part === "header" && d.sluice === "undefined")) return false;
    const p = owner(d, c);
    if (p !== undefined) return isEmpty(argOf(c, p));
    const prop = property(d, c);
    return prop !== undefined && isEmpty(prop.value);
  },
  "delimited-object": (d, c) => {
    const p = owner(d, c);
    return d.part === "query" && p !== undefined && (p.style === "spaceDelimited" || p.style === "pipeDelimited") && isObject(argOf(c, p));
  },
  "deep-object-array": (d, c) => {
    const p = owner(d, c);
    if (p !== undefined) return p.style === "deepObject" && Array.isArray(argOf(c, p));
    const prop = property(d, c);
    return encoding(c) === "form" && prop !== undefined && prop.style === "deepObject" && Array.isArray(prop.value);
  },
  "deep-object-nested": (d, c) => {
    const p = owner(d, c);
    const prop = p === undefined ? property(d, c) : undefined;
    const style = p?.style ?? prop?.style;
    const value = p !== undefined ? argOf(c, p) : prop?.value;
    if (style !== "deepObject" || !isObject(value)) return false;
    const nested = (d.name ?? "").split("[").length > 2;
    const json = /(=|\): )[[{]/.test(d.reference);
    return nested || json;
  },
  "empty-string-dropped": (d, c) => {
    if (d.reference !== "" || !/=$/.test(d.sluice)) return false;
    const p = owner(d, c);
    if (p !== undefined) return argOf(c, p) === "" || strings(argOf(c, p)).includes("");
    const prop = property(d, c);
    return prop !== undefined && strings(prop.value).includes("");
  },
  "array-of-objects-query": (d) => d.part === "query" && d.reference.includes("[object Object]"),
  "cookie-exploded": (d, c) => d.part === "cookie" && c.binding.parameters.some((p) => p.in === "cookie" && p.explode && (Array.isArray(argOf(c, p)) || isObject(argOf(c, p)))),
  "cookie-raw-percent": (d) => d.part === "cookie" && /%(?![0-9A-Fa-f]{2})/.test(d.reference),
  "form-nested-brackets": (d, c) => {
    const prop = property(d, c);
    return encoding(c) === "form" && prop !== undefined && prop.style === undefined && prop.contentType === undefined && (isObject(prop.value) || (Array.isArray(prop.value) && prop.value.some((v) => typeof v === "object" && v !== null)));
  },
  "form-array-default": (d, c) => {
    const prop = property(d, c);
    return encoding(c) === "form" && prop !== undefined && prop.style === undefined && Array.isArray(prop.value);
  },
  "multipart-object-json": (d, c) => {
    const prop = property(d, c);
    return encoding(c) === "multipart" && prop !== undefined && (isObject(prop.value) || Array.isArray(prop.value)) && /application\/json/.test(d.sluice) && /text\/plain/.test(d.reference);
  },
  "multipart-array-parts": (d, c) => {
    const prop = property(d, c);
    return encoding(c) === "multipart" && prop !== undefined && Array.isArray(prop.value);
  },
  "swagger2-object-query": (d, c) => {
    if (c.kind !== "swagger2" || d.part !== "query") return false;
    const objects = c.specParameters.filter((p) => p["in"] === "query" && p["type"] === "object").map((p) => String(p["name"]));
    return objects.some((name) => {
      const p = c.binding.parameters.find((q) => q.in === "query" && q.name === name);
      return p !== undefined && argOf(c, p) !== undefined;
    });
  },
};

export interface KnownDifference {
  id: string;
  part: string;
  verdict: string;
  reason: string;
}

/** The table of docs/reference-request-builder.md: `| id | part | verdict | reason |` rows under "## Known differences". */
export function knownDifferences(path = new URL("../../docs/reference-request-builder.md", import.meta.url)): KnownDifference[] {
  const text = readFileSync(path, "utf8");
  const section = text.split(/^## /m).find((s) => s.startsWith("Known differences"));
  if (section === undefined) throw new Error("docs/reference-request-builder.md has no 'Known differences' section");
  const out: KnownDifference[] = [];
  for (const line of section.split("\n")) {
    const cells = /^\|\s*`([a-z0-9-]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (cells === null) continue;
    const [part = "", verdict = "", reason = ""] = cells[2]!.split(" | ").map((s) => s.trim());
    out.push({ id: cells[1]!, part, verdict, reason });
  }
  return out;
}

/** The id of the first rule that explains a difference, or undefined (an unexplained difference: a test failure). */
export function classify(d: Difference, c: DifferenceContext): string | undefined {
  for (const [id, applies] of Object.entries(RULES)) if (applies(d, c)) return id;
  return undefined;
}
