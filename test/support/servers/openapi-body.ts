/**
 * Response bodies for the OpenAPI mock: the operation's own example when the spec has
 * one, otherwise a value generated from the response schema. Generation is a pure
 * function of the operation and the request (the request seeds the PRNG), so two servers
 * answer the same request with the same bytes, and ids still differ between requests.
 *
 * What a generated body looks like: the response object and the objects directly in it
 * (each item of a top-level list included) have every property, optional ones too;
 * deeper objects have their required properties (or, when nothing is required, a few
 * scalar ones), and nothing is generated past MAX_DEPTH, which is what stops recursive
 * schemas. The top-level list (`data`, `messages`, `results`, or a bare array) has
 * `listLength` items, capped by a page size the request asked for; deeper arrays one or
 * two. `anyOf`/`oneOf` take their first non-null branch, enums their first value,
 * patterns and formats are honoured, `id`s are distinct (`cus_…` for a Stripe customer,
 * a UUID where the format says so), and text fields read like text.
 */
import type { Doc, SpecOperation } from "./openapi-spec.ts";
import { pointer } from "./openapi-spec.ts";
import { sampleForPattern } from "./pattern.ts";
import {
  hashText,
  isoDate,
  isoDateTime,
  paragraphText,
  personName,
  Rng,
  textFor,
  textKind,
  titleText,
  unixSeconds,
  urlText,
  uuidText,
} from "./text.ts";

/** Objects shallower than this get their optional properties too (0 is the response itself). */
const FULL_DEPTH = 2;
/** Object depth beyond which nothing more is generated (recursive schemas stop here). */
const MAX_DEPTH = 7;
/** Nested generate calls of any kind (arrays of arrays, anyOf of itself) before giving up. */
const MAX_NESTING = 60;

export interface GeneratedResponse {
  status: number;
  contentType?: string;
  /** Text to send; undefined for an empty body. */
  body?: string;
  /** The response declares a `Link` header (GitHub's list endpoints): the server pages with it. */
  declaresLink?: boolean;
}

interface Ctx {
  root: Doc;
  rng: Rng;
  seed: number;
  tag: string;
  serial: number;
  nesting: number;
  /** Items in the top-level list. */
  listLength: number;
  /** Component schema names, normalised: a string property named like one holds its id. */
  resources: Set<string>;
}

const resourceCache = new WeakMap<Doc, Set<string>>();

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/^(objs|defs)_/, "").replace(/[^a-z0-9]/g, "");
}

function resourceNames(root: Doc): Set<string> {
  let names = resourceCache.get(root);
  if (names === undefined) {
    names = new Set(Object.keys((root.components?.schemas ?? {}) as Doc).map(normalizeName));
    resourceCache.set(root, names);
  }
  return names;
}

/** `thread_id`, `threadId`, `labelIds`' items, or Stripe's `invoice` next to an `invoice` schema: an id. */
function referenceStem(ctx: Ctx, name: string): string | undefined {
  const m = /^(.+?)(_id|Id|ID)$/.exec(name);
  if (m) return m[1];
  const kind = textKind(name);
  if ((kind === "phrase" || kind === "identifier") && ctx.resources.has(normalizeName(name))) return name;
  return undefined;
}

/** Where a value sits: the response itself, a property of it, or anything deeper. */
type Place = "root" | "top" | "deep";

function isObject(value: unknown): value is Doc {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Follows `$ref` chains to a schema, remembering the last component name on the way. */
function deref(ctx: Ctx, schema: unknown): { schema: Doc; name?: string } {
  let node = schema;
  let name: string | undefined;
  for (let hops = 0; hops < 20 && isObject(node) && typeof node.$ref === "string"; hops++) {
    const ref = node.$ref as string;
    name = ref.split("/").pop();
    const siblings = Object.keys(node).filter((k) => k !== "$ref" && k !== "description" && k !== "summary");
    const target = ref.startsWith("#") ? pointer(ctx.root, ref) : undefined;
    node = siblings.length > 0 ? { ...Object.fromEntries(siblings.map((k) => [k, (node as Doc)[k]])), allOf: [target ?? {}] } : target;
  }
  const out: { schema: Doc; name?: string } = { schema: isObject(node) ? node : {} };
  if (name !== undefined) out.name = name;
  return out;
}

function isNullSchema(ctx: Ctx, schema: unknown): boolean {
  const s = deref(ctx, schema).schema;
  return s.type === "null" || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null) || (Object.keys(s).length === 1 && s.nullable === true);
}

/** Merges `allOf` members (and the schema's own keywords) into one object schema. */
function mergeAllOf(ctx: Ctx, schema: Doc, depth = 0): Doc {
  const { allOf, ...own } = schema;
  let out: Doc = { ...own };
  if (depth > 10 || !Array.isArray(allOf)) return out;
  for (const member of allOf) {
    let part = deref(ctx, member).schema;
    if (Array.isArray(part.allOf)) part = mergeAllOf(ctx, part, depth + 1);
    out = {
      ...part,
      ...out,
      properties: { ...(part.properties ?? {}), ...(out.properties ?? {}) },
      required: [...new Set([...(part.required ?? []), ...(out.required ?? [])])],
    };
  }
  if (Object.keys(out.properties).length === 0) delete out.properties;
  return out;
}

function typeOf(schema: Doc): string | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return t.find((x: unknown) => x !== "null") ?? "null";
  if (typeof t === "string") return t;
  if (schema.properties || schema.additionalProperties) return "object";
  if (schema.items) return "array";
  return undefined;
}

/** A short id prefix from a resource name: `customer` → `cus`, `payment_intent` → `pi`. */
function idPrefix(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  if (words.length === 0) return "obj";
  if (words.length === 1) return words[0]!.slice(0, 3);
  return words.map((w) => w[0]).join("").slice(0, 4);
}

/** The resource name an object schema describes: Stripe's `object` enum, else its component name. */
function resourceName(ctx: Ctx, schema: Doc, componentName?: string): string | undefined {
  const object = schema.properties?.object ? deref(ctx, schema.properties.object).schema : undefined;
  if (object && Array.isArray(object.enum) && typeof object.enum[0] === "string") return object.enum[0] as string;
  return componentName ?? (typeof schema.title === "string" ? schema.title : undefined);
}

function nextSerial(ctx: Ctx): number {
  return ++ctx.serial;
}

function idString(ctx: Ctx, prefix: string): string {
  return `${prefix}_${ctx.tag}${String(nextSerial(ctx)).padStart(4, "0")}`;
}

function fitLength(text: string, schema: Doc): string {
  let out = text;
  if (typeof schema.maxLength === "number" && out.length > schema.maxLength) out = out.slice(0, schema.maxLength);
  if (typeof schema.minLength === "number" && out.length < schema.minLength) out = out.padEnd(schema.minLength, "x");
  return out;
}

function stringValue(ctx: Ctx, schema: Doc, name: string, owner: string): string {
  if (typeof schema.pattern === "string") {
    const sampled = sampleForPattern(schema.pattern, ctx.rng);
    if (sampled !== undefined) return sampled;
  }
  if (!schema.format) {
    const stem = referenceStem(ctx, name);
    if (stem !== undefined) return idString(ctx, idPrefix(stem));
  }
  const n = nextSerial(ctx);
  switch (schema.format) {
    case "int64":
    case "uint64":
    case "int32":
    case "uint32":
      // Google sends 64-bit integers as decimal strings.
      return String(/date|time/i.test(name) ? unixSeconds(n) * 1000 : 1_000_000 + (ctx.seed % 1_000_000) * 100 + n);
    case "double":
    case "float":
    case "decimal":
      return (ctx.rng.int(100, 99_999) / 100).toFixed(2);
    case "date-time":
      return isoDateTime(n);
    case "date":
      return isoDate(n);
    case "time":
      return isoDateTime(n).slice(11, 19) + "Z";
    case "uri":
    case "url":
    case "iri":
      return urlText(ctx.rng, n, name.replace(/_?url$/i, "") || "items");
    case "uri-reference":
      return `/${name || "items"}/${n}`;
    case "email":
    case "idn-email":
      return textFor("email", ctx.rng, n, ctx.seed);
    case "uuid":
      return uuidText(ctx.seed, n);
    case "hostname":
      return `host-${n}.example.com`;
    case "ipv4":
      return `192.0.2.${n % 250}`;
    case "ipv6":
      return `2001:db8::${n.toString(16)}`;
    case "byte":
      return Buffer.from(paragraphText(ctx.rng)).toString("base64");
    case "binary":
      return paragraphText(ctx.rng);
    case "password":
      return "correct-horse-battery-staple";
  }
  return fitLength(textFor(name || "text", ctx.rng, n, ctx.seed, owner), schema);
}

function numberValue(ctx: Ctx, schema: Doc, name: string, integer: boolean): number {
  const n = nextSerial(ctx);
  const f = name.toLowerCase();
  let value: number;
  if (schema.format === "unix-time" || /^(created|updated|date|time|timestamp)$|_(at|time|date|on)$|^(created|updated|expires|last)_/.test(f)) value = unixSeconds(n);
  else if (/amount|price|total|balance|cost|fee|subtotal/.test(f)) value = ctx.rng.int(5, 500) * 100;
  else if (/count$|^count|size$|length$|^num_|limit$/.test(f)) value = ctx.rng.int(1, 50);
  else if (/percent|ratio|rate$/.test(f)) value = ctx.rng.int(0, 100);
  else if (/(^|_)(id|number)$/.test(f)) value = 1_000 + (ctx.seed % 100_000) * 10 + n;
  else value = integer ? ctx.rng.int(1, 1000) : Math.round(ctx.rng.next() * 100_000) / 100;
  if (typeof schema.minimum === "number" && value < schema.minimum) value = schema.minimum;
  if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) value = schema.exclusiveMinimum + 1;
  if (typeof schema.maximum === "number" && value > schema.maximum) value = schema.maximum;
  if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) value = schema.exclusiveMaximum - 1;
  if (typeof schema.multipleOf === "number" && schema.multipleOf > 0) value = Math.round(value / schema.multipleOf) * schema.multipleOf;
  return integer ? Math.round(value) : value;
}

function booleanValue(ctx: Ctx, name: string): boolean {
  const f = name.toLowerCase();
  if (/^(ok|success|has_more|has_next_page|hasmore)$/.test(f)) return true;
  if (/(deleted|archived|in_trash|livemode|locked|disabled|is_spam|blocked|draft)$/.test(f)) return false;
  return ctx.rng.chance(0.5);
}

/** Metadata-style maps get a couple of entries with plausible keys. */
const MAP_KEYS = ["order_id", "source", "region", "team", "plan", "campaign"];

function generate(ctx: Ctx, input: unknown, name: string, owner: string, depth: number, place: Place): unknown {
  ctx.nesting++;
  try {
    return generateValue(ctx, input, name, owner, depth, place);
  } finally {
    ctx.nesting--;
  }
}

function generateValue(ctx: Ctx, input: unknown, name: string, owner: string, depth: number, place: Place): unknown {
  const { schema: resolved, name: componentName } = deref(ctx, input);
  let schema = resolved;
  if (depth > MAX_DEPTH || ctx.nesting > MAX_NESTING) return minimal(schema);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0];
  if (isNullSchema(ctx, schema)) return null;
  if (Array.isArray(schema.allOf)) schema = mergeAllOf(ctx, schema);
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const live = branches.filter((b: unknown) => !isNullSchema(ctx, b));
    const branch = live[0] ?? branches[0];
    const { [key]: _, ...rest } = schema;
    // Stripe's expandable fields are `anyOf: [string id, object]`: the id should look like one.
    const picked = deref(ctx, branch).schema;
    if (typeOf(picked) === "string" && !picked.enum && !picked.format) {
      const objects = live.slice(1).filter((b: unknown) => describesObject(ctx, b));
      if (objects.length > 0) {
        // One expandable type names the id (`cus_`); several (a payment source) leave it to the field name.
        const expanded = objects.length === 1 ? deref(ctx, objects[0]) : undefined;
        const named = expanded && isObject(expanded.schema.properties) ? resourceName(ctx, expanded.schema) : undefined;
        return idString(ctx, idPrefix(named ?? name));
      }
    }
    const merged = Object.keys(rest).some((k) => ["type", "properties", "items", "allOf"].includes(k)) ? mergeAllOf(ctx, { ...rest, allOf: [branch] }) : branch;
    return generate(ctx, merged, name, owner, depth, place);
  }
  switch (typeOf(schema)) {
    case "object":
      return objectValue(ctx, schema, componentName, name, depth, place);
    case "array":
      return arrayValue(ctx, schema, name, owner, depth, place);
    case "string":
      return stringValue(ctx, schema, name, owner);
    case "integer":
      return numberValue(ctx, schema, name, true);
    case "number":
      return numberValue(ctx, schema, name, false);
    case "boolean":
      return booleanValue(ctx, name);
    case "null":
      return null;
    default:
      // No type at all: a free-form value. Text reads better than `{}` for a named field.
      return name ? stringValue(ctx, {}, name, owner) : {};
  }
}

/** What a schema gets past the depth limit: null if allowed, else the emptiest value. */
function minimal(schema: Doc): unknown {
  if (schema.nullable === true || (Array.isArray(schema.type) && schema.type.includes("null"))) return null;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (typeOf(schema)) {
    case "array":
      return [];
    case "string":
      return fitLength("", schema);
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return false;
    case "object":
      return {};
    default:
      if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return null;
      return {};
  }
}

function objectValue(ctx: Ctx, schema: Doc, componentName: string | undefined, name: string, depth: number, place: Place): unknown {
  const properties = isObject(schema.properties) ? (schema.properties as Doc) : {};
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(properties);
  const resource = resourceName(ctx, schema, componentName) ?? name;
  const out: Doc = {};
  let chosen = depth < FULL_DEPTH ? names : names.filter((k) => required.has(k));
  // Deep objects with nothing required (Google's schemas) still show a few scalar fields.
  if (chosen.length === 0 && names.length > 0) chosen = names.filter((k) => !describesObject(ctx, properties[k]) && typeOf(deref(ctx, properties[k]).schema) !== "array").slice(0, 4);
  for (const key of chosen) {
    const prop = deref(ctx, properties[key]).schema;
    if (prop.writeOnly === true) continue;
    if (key === "id" || key === "_id") {
      const idType = typeOf(mergeAllOf(ctx, prop));
      if ((idType === "string" || idType === undefined) && !prop.enum && !prop.format && !prop.pattern) {
        out[key] = idString(ctx, idPrefix(resource || "obj"));
        continue;
      }
    }
    out[key] = generate(ctx, properties[key], key, resource, depth + 1, place === "root" ? "top" : "deep");
  }
  const extra = schema.additionalProperties;
  if (names.length === 0 && isObject(extra) && Object.keys(extra).length > 0 && depth < MAX_DEPTH) {
    const start = ctx.rng.int(0, MAP_KEYS.length - 1);
    for (let i = 0; i < 2; i++) {
      const key = MAP_KEYS[(start + i) % MAP_KEYS.length]!;
      out[key] = generate(ctx, extra, key, resource, depth + 1, "deep");
    }
  }
  return out;
}

/** Whether values of this schema are objects (following refs, allOf and the first live branch). */
function describesObject(ctx: Ctx, input: unknown, hops = 0): boolean {
  let schema = deref(ctx, input).schema;
  if (hops > 5) return false;
  if (Array.isArray(schema.allOf)) schema = mergeAllOf(ctx, schema);
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(schema[key])) {
      const live = (schema[key] as unknown[]).find((b) => !isNullSchema(ctx, b));
      return live !== undefined && describesObject(ctx, live, hops + 1);
    }
  }
  return typeOf(schema) === "object";
}

function arrayValue(ctx: Ctx, schema: Doc, name: string, owner: string, depth: number, place: Place): unknown[] {
  const items = schema.items;
  if (Array.isArray(items)) return items.map((item) => generate(ctx, item, name, owner, depth, "deep"));
  const ofObjects = describesObject(ctx, items);
  let count: number;
  if (place === "root" || (place === "top" && ofObjects)) count = ctx.listLength;
  else count = depth <= 2 ? 2 : 1;
  if (typeof schema.minItems === "number") count = Math.max(count, schema.minItems);
  if (typeof schema.maxItems === "number") count = Math.min(count, schema.maxItems);
  const singular = name.replace(/ies$/, "y").replace(/s$/, "");
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) out.push(generate(ctx, items ?? {}, singular || name, owner, depth, place === "root" ? "top" : "deep"));
  return out;
}

/**
 * For a response the spec leaves as a bare `type: object` (most of Notion's): a generic
 * resource, or a list envelope of them when the operation reads a collection.
 */
function freeForm(ctx: Ctx, operation: SpecOperation): unknown {
  const literals = operation.path.split("/").filter((s) => s !== "" && !s.startsWith("{"));
  const last = literals[literals.length - 1] ?? "item";
  const listy = /^(query|search|list|children|templates|members|history)$/i.test(last) || /list|query|search/i.test(operation.operationId) || (operation.method === "get" && !operation.path.endsWith("}") && literals.length > 1 && /s$/.test(last));
  const collection = /^(query|search|list|templates|children|history)$/i.test(last) ? (literals[literals.length - 2] ?? "item") : last;
  const singular = (word: string) => word.replace(/ies$/, "y").replace(/s$/, "");
  const itemName = last === "children" ? "block" : last === "search" ? "page" : last === "templates" ? "template" : singular(collection);
  const resource = (): Doc => {
    const n = nextSerial(ctx);
    return {
      object: itemName,
      id: uuidText(ctx.seed, n),
      created_time: isoDateTime(n),
      last_edited_time: isoDateTime(n + 3),
      created_by: { object: "user", id: uuidText(ctx.seed, n + 1_000_000) },
      title: titleText(ctx.rng),
      description: paragraphText(ctx.rng),
      url: urlText(ctx.rng, n, itemName),
      archived: false,
      properties: {
        Name: titleText(ctx.rng),
        Status: ctx.rng.pick(["Not started", "In progress", "Done"]),
        Owner: personName(ctx.rng),
        Tags: [titleText(ctx.rng).split(" ").slice(1, 3).join(" "), titleText(ctx.rng).split(" ").slice(1, 3).join(" ")],
      },
    };
  };
  if (!listy) return resource();
  return { object: "list", results: Array.from({ length: ctx.listLength }, resource), next_cursor: uuidText(ctx.seed, 0), has_more: true, type: itemName };
}

function pickStatus(responses: Doc): string | undefined {
  const codes = Object.keys(responses);
  const success = codes.filter((c) => /^2\d\d$/.test(c)).sort();
  if (success.length > 0) return success[0];
  if (codes.includes("2XX") || codes.includes("2xx")) return codes.includes("2XX") ? "2XX" : "2xx";
  return codes.includes("default") ? "default" : undefined;
}

function pickMedia(content: Doc): string | undefined {
  const types = Object.keys(content);
  return types.find((t) => t.toLowerCase().split(";")[0] === "application/json") ?? types.find((t) => /json/i.test(t)) ?? types.find((t) => t === "*/*") ?? types[0];
}

/** The media type's example: `example`, else the first of `examples` (a local `$ref` followed). */
function exampleOf(root: Doc, media: Doc): { found: true; value: unknown } | { found: false } {
  if (media.example !== undefined) return { found: true, value: media.example };
  if (isObject(media.examples)) {
    for (const entry of Object.values(media.examples)) {
      let example: unknown = entry;
      for (let hops = 0; hops < 10 && isObject(example) && typeof example.$ref === "string"; hops++) {
        example = (example.$ref as string).startsWith("#") ? pointer(root, example.$ref as string) : undefined;
      }
      if (isObject(example) && "value" in example) return { found: true, value: example.value };
    }
  }
  return { found: false };
}

export interface GenerateOptions {
  listLength: number;
  /** A page size the request asked for (`limit`, `per_page`...); caps the top-level list. */
  pageSize?: number;
  /** Identifies the request; equal keys give equal bodies. */
  requestKey: string;
}

/** The first 2xx response of `operation`, with its example or a generated body. */
export function generateResponse(root: Doc, operation: SpecOperation, options: GenerateOptions): GeneratedResponse {
  const responses = isObject(operation.raw.responses) ? (operation.raw.responses as Doc) : {};
  const code = pickStatus(responses);
  const status = code === undefined || !/^\d{3}$/.test(code) ? 200 : Number(code);
  if (code === undefined) return { status };
  let response = responses[code] as unknown;
  for (let hops = 0; hops < 10 && isObject(response) && typeof response.$ref === "string"; hops++) response = pointer(root, response.$ref as string);
  const content = isObject(response) && isObject(response.content) ? (response.content as Doc) : {};
  const type = pickMedia(content);
  if (type === undefined || status === 204 || status === 205 || status === 304) return { status };
  const media = isObject(content[type]) ? (content[type] as Doc) : {};
  const json = /json/i.test(type) || type === "*/*";
  const contentType = json ? "application/json; charset=utf-8" : type;

  const seed = hashText(`${operation.operationId}\n${options.requestKey}`);
  const ctx: Ctx = { root, rng: new Rng(seed), seed, tag: (seed % 36 ** 4).toString(36).padStart(4, "0"), serial: 0, nesting: 0, listLength: Math.min(options.listLength, options.pageSize ?? Infinity), resources: resourceNames(root) };
  const example = exampleOf(root, media);
  let value: unknown;
  if (example.found) {
    value = example.value;
  } else if (media.schema !== undefined) {
    const schema = deref(ctx, media.schema).schema;
    const shapeless = typeOf(schema) === "object" && !schema.properties && !isObject(schema.additionalProperties) && !schema.allOf && !schema.anyOf && !schema.oneOf;
    value = shapeless ? freeForm(ctx, operation) : generate(ctx, media.schema, "", "", 0, "root");
  } else {
    value = json ? freeForm(ctx, operation) : paragraphText(ctx.rng);
  }
  const body = !json && typeof value === "string" ? value : JSON.stringify(value);
  const declared = isObject(response) && isObject(response.headers) ? Object.keys(response.headers as Doc).map((name) => name.toLowerCase()) : [];
  return { status, contentType: json || typeof value === "string" ? contentType : "application/json; charset=utf-8", body, declaresLink: declared.includes("link") };
}
