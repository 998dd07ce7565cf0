/**
 * The spec's own request examples as an oracle (issue 22, item 1). For one OpenAPI
 * document (3.0, 3.1 or Swagger 2.0):
 *
 * - `collectRequestExamples` finds every request example the document gives: request-body
 *   `example` / `examples` (JSON and form media types, `$ref`s to components/examples
 *   followed), else the body schema's own `example`; parameter `example` / `examples`, else
 *   the parameter schema's `example`; Swagger 2.0 body `x-examples` / `schema.example` and
 *   parameter `x-example`.
 * - `ReferenceValidator` judges each example against the spec's own schema with Ajv, the
 *   3.0 / 2.0 schemas converted by @openapi-contrib/openapi-schema-to-json-schema (3.1 is
 *   2020-12 already). It reads the document as OpenAPI means it: a read-only member may be
 *   sent and its `required` applies to responses only; a `discriminator` picks the branch
 *   (`ORACLE_DEPARTURES` lists every such reading). An example it refuses is a spec fault,
 *   listed and never counted as a pass.
 * - `replayExample` maps an example onto the generated tool's arguments (the other required
 *   arguments get a minimal value built from the tool's own schema), builds the request
 *   with `tool.request()` (nothing is sent) and checks that the body equals the example and
 *   that an example parameter is on the wire as its style writes it. The example is judged as
 *   written: one the tool refuses only for read-only members is `read_only_refused`, never
 *   replayed without them.
 *
 * Written for the tests and for scripts/bench-examples.ts; nothing here reaches a network.
 */
import { createRequire } from "node:module";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import RandExp from "randexp";
import { definePack, SluiceError, type HttpBinding, type HttpParameter, type HttpRequest, type Tool } from "@sluice/core";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Node = Record<string, unknown>;

// The converter is CommonJS; its `fromSchema` is the one entry used here.
const convertOpenAPISchema = (createRequire(import.meta.url)("@openapi-contrib/openapi-schema-to-json-schema") as {
  fromSchema(schema: unknown, options: Record<string, unknown>): Node;
}).fromSchema;
const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => unknown;

export type ExampleKind =
  | "media-example" // requestBody.content[type].example
  | "media-examples" // requestBody.content[type].examples[name] (value or $ref)
  | "schema-example" // the body schema's own example, where the media type gives none
  | "parameter-example"
  | "parameter-examples"
  | "parameter-schema-example"
  | "x-examples" // Swagger 2.0 body parameter x-examples[media type]
  | "x-example"; // Swagger 2.0 non-body parameter x-example

export interface RequestExample {
  /** `POST /v1/things`. */
  operation: string;
  method: string;
  path: string;
  kind: ExampleKind;
  /** Example name, media type or parameter name: what tells two examples of one operation apart. */
  label: string;
  /** JSON pointer of the example value in the document. */
  pointer: string;
  value: unknown;
  /** Where the schema judging it sits (a pointer into the document), or the schema itself (2.0 parameters). */
  schema: { pointer: string } | { inline: Node };
  /** A parameter example's parameter. */
  parameter?: { name: string; in: string };
}

export type Dialect = "2.0" | "3.0" | "3.1";

export function dialectOf(document: unknown): Dialect {
  const root = document as Node;
  if (typeof root["swagger"] === "string") return "2.0";
  return /^3\.0\./.test(String(root["openapi"])) ? "3.0" : "3.1";
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

function segment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function unsegment(key: string): string {
  return key.replace(/~1/g, "/").replace(/~0/g, "~");
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A local `$ref` followed (a few hops), with the pointer where the value really sits. */
function located(document: unknown, value: unknown, pointer: string): { value: unknown; pointer: string } {
  for (let hops = 0; isNode(value) && typeof value["$ref"] === "string" && hops < 16; hops += 1) {
    const ref = value["$ref"];
    if (!ref.startsWith("#")) return { value: undefined, pointer };
    pointer = ref.slice(1);
    value = at(document, pointer);
  }
  return { value, pointer };
}

function at(document: unknown, pointer: string): unknown {
  let node: unknown = document;
  for (const part of pointer.split("/").slice(1)) {
    if (!isNode(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[unsegment(part)];
  }
  return node;
}

function isJsonType(type: string): boolean {
  const base = type.split(";")[0]!.trim().toLowerCase();
  return base === "application/json" || /[/+]json$/.test(base) || base === "*/*";
}

function isFormType(type: string): boolean {
  return type.split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded";
}

/** Every request example of the document, in document order. */
export function collectRequestExamples(document: unknown): RequestExample[] {
  const dialect = dialectOf(document);
  const out: RequestExample[] = [];
  const paths = (document as Node)["paths"];
  if (!isNode(paths)) return out;
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = located(document, rawItem, `/paths/${segment(path)}`);
    if (!isNode(item.value)) continue;
    for (const method of METHODS) {
      const operation = item.value[method];
      if (!isNode(operation)) continue;
      const opPointer = `${item.pointer}/${method}`;
      const base = { operation: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path };
      // Path-item parameters apply unless the operation redefines the same name and location.
      const parameters = new Map<string, { value: Node; pointer: string }>();
      for (const [owner, ownerPointer] of [[item.value, item.pointer], [operation, opPointer]] as const) {
        const list = owner["parameters"];
        if (!Array.isArray(list)) continue;
        list.forEach((raw, index) => {
          const p = located(document, raw, `${ownerPointer}/parameters/${index}`);
          if (isNode(p.value)) parameters.set(`${String(p.value["in"])}:${String(p.value["name"])}`, { value: p.value, pointer: p.pointer });
        });
      }
      for (const { value: parameter, pointer } of parameters.values()) {
        const name = parameter["name"];
        const where = parameter["in"];
        if (typeof name !== "string" || typeof where !== "string") continue;
        if (where === "body") {
          collectSwagger2Body(document, parameter, pointer, base, out);
          continue;
        }
        if (where === "formData") continue; // a form field of 2.0 has no example keyword of its own beyond x-example
        const param = { name, in: where };
        if (dialect === "2.0") {
          if ("x-example" in parameter) out.push({ ...base, kind: "x-example", label: name, pointer: `${pointer}/x-example`, value: parameter["x-example"], schema: { inline: swagger2ParameterSchema(parameter) }, parameter: param });
          continue;
        }
        const schemaPointer = parameterSchemaPointer(document, parameter, pointer);
        if (schemaPointer === undefined) continue;
        const schema = { pointer: schemaPointer };
        let found = false;
        if ("example" in parameter) {
          out.push({ ...base, kind: "parameter-example", label: name, pointer: `${pointer}/example`, value: parameter["example"], schema, parameter: param });
          found = true;
        }
        const examples = parameter["examples"];
        if (isNode(examples)) {
          for (const [label, raw] of Object.entries(examples)) {
            const example = located(document, raw, `${pointer}/examples/${segment(label)}`);
            if (!isNode(example.value) || !("value" in example.value)) continue; // externalValue is never fetched
            out.push({ ...base, kind: "parameter-examples", label: `${name}:${label}`, pointer: `${example.pointer}/value`, value: example.value["value"], schema, parameter: param });
            found = true;
          }
        }
        if (!found) {
          const own = located(document, at(document, schemaPointer), schemaPointer);
          if (isNode(own.value) && "example" in own.value) {
            out.push({ ...base, kind: "parameter-schema-example", label: name, pointer: `${own.pointer}/example`, value: own.value["example"], schema, parameter: param });
          }
        }
      }
      if (dialect !== "2.0" && operation["requestBody"] !== undefined) {
        const body = located(document, operation["requestBody"], `${opPointer}/requestBody`);
        const content = isNode(body.value) ? body.value["content"] : undefined;
        if (!isNode(content)) continue;
        for (const [type, media] of Object.entries(content)) {
          if (!isNode(media) || !(isJsonType(type) || isFormType(type))) continue;
          const mediaPointer = `${body.pointer}/content/${segment(type)}`;
          if (media["schema"] === undefined) continue;
          const schema = { pointer: `${mediaPointer}/schema` };
          let found = false;
          if ("example" in media) {
            out.push({ ...base, kind: "media-example", label: type, pointer: `${mediaPointer}/example`, value: media["example"], schema });
            found = true;
          }
          const examples = media["examples"];
          if (isNode(examples)) {
            for (const [label, raw] of Object.entries(examples)) {
              const example = located(document, raw, `${mediaPointer}/examples/${segment(label)}`);
              if (!isNode(example.value) || !("value" in example.value)) continue;
              out.push({ ...base, kind: "media-examples", label: `${type}:${label}`, pointer: `${example.pointer}/value`, value: example.value["value"], schema });
              found = true;
            }
          }
          if (!found) {
            const own = located(document, media["schema"], schema.pointer);
            if (isNode(own.value) && "example" in own.value) out.push({ ...base, kind: "schema-example", label: type, pointer: `${own.pointer}/example`, value: own.value["example"], schema });
          }
        }
      }
    }
  }
  return out;
}

function collectSwagger2Body(document: unknown, parameter: Node, pointer: string, base: Pick<RequestExample, "operation" | "method" | "path">, out: RequestExample[]): void {
  if (parameter["schema"] === undefined) return;
  const schema = { pointer: `${pointer}/schema` };
  let found = false;
  const examples = parameter["x-examples"];
  if (isNode(examples)) {
    for (const [type, value] of Object.entries(examples)) {
      if (!(isJsonType(type) || isFormType(type))) continue;
      out.push({ ...base, kind: "x-examples", label: type, pointer: `${pointer}/x-examples/${segment(type)}`, value, schema });
      found = true;
    }
  }
  if (found) return;
  const own = located(document, parameter["schema"], schema.pointer);
  if (isNode(own.value) && "example" in own.value) out.push({ ...base, kind: "schema-example", label: "body", pointer: `${own.pointer}/example`, value: own.value["example"], schema });
}

function parameterSchemaPointer(document: unknown, parameter: Node, pointer: string): string | undefined {
  if (parameter["schema"] !== undefined) return `${pointer}/schema`;
  const content = parameter["content"];
  if (!isNode(content)) return undefined;
  const type = Object.keys(content)[0];
  return type === undefined ? undefined : `${pointer}/content/${segment(type)}/schema`;
}

const SWAGGER2_PARAMETER_KEYWORDS = [
  "type", "format", "items", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
  "pattern", "minItems", "maxItems", "uniqueItems", "multipleOf",
];

/** A 2.0 non-body parameter's own keywords are its schema (`type: file` is a string of bytes). */
function swagger2ParameterSchema(parameter: Node): Node {
  const out: Node = {};
  for (const key of SWAGGER2_PARAMETER_KEYWORDS) if (key in parameter) out[key] = parameter[key];
  if (out["type"] === "file") out["type"] = "string";
  return out;
}

// ---------------------------------------------------------------------------------------
// The reference validator
// ---------------------------------------------------------------------------------------

/**
 * OpenAPI's reading of a schema node, applied before conversion: a member the node declares
 * read-only is not required (OpenAPI 3.x: `required` on it applies to responses only), and a
 * `discriminator` beside `oneOf` / `anyOf` picks the branch its tag names (an `if`/`then`
 * per tag, from `mapping` or, for a branch `$ref` with no mapping entry, the schema name).
 * Ajv's own `discriminator` option needs the tag declared as a `const`/`enum` in every
 * branch and takes no `mapping`; the specs measured here use mappings and `allOf`
 * inheritance, so the rule is written out as the keywords it means.
 */
function openapiReading(node: Node, dialect: Dialect): Node {
  const properties = node["properties"];
  if (isNode(properties) && Array.isArray(node["required"])) {
    node = { ...node, required: (node["required"] as unknown[]).filter((name) => !(typeof name === "string" && isNode(properties[name]) && (properties[name] as Node)["readOnly"] === true)) };
  }
  const discriminator = node["discriminator"];
  const union = Array.isArray(node["oneOf"]) ? "oneOf" : Array.isArray(node["anyOf"]) ? "anyOf" : undefined;
  if (discriminator === undefined || union === undefined) return node;
  const tag = typeof discriminator === "string" ? discriminator : isNode(discriminator) ? discriminator["propertyName"] : undefined;
  if (typeof tag !== "string") return node;
  const prefix = dialect === "2.0" ? "#/definitions/" : "#/components/schemas/";
  const mapping = isNode(discriminator) && isNode(discriminator["mapping"]) ? discriminator["mapping"] : {};
  const targets = new Map<string, string>();
  for (const [value, target] of Object.entries(mapping)) if (typeof target === "string") targets.set(value, target.includes("#") ? target : `${prefix}${segment(target)}`);
  const mapped = new Set(targets.values());
  for (const branch of node[union] as unknown[]) {
    const ref = isNode(branch) ? branch["$ref"] : undefined;
    if (typeof ref !== "string") return node; // an inline branch has no name to be tagged by: leave the union as written
    if (!mapped.has(ref)) targets.set(unsegment(ref.split("/").pop()!), ref);
  }
  const { [union]: _branches, discriminator: _tag, ...rest } = node;
  const picks = [...targets].map(([value, ref]) => ({ if: { properties: { [tag]: { const: value } }, required: [tag] }, then: { $ref: ref } }));
  return { ...rest, allOf: [...((rest["allOf"] as unknown[] | undefined) ?? []), { required: [tag], properties: { [tag]: { enum: [...targets.keys()] } } }, ...picks] };
}

/** Draft-4 boolean `exclusiveMinimum`/`exclusiveMaximum` in the numeric form Ajv (draft-07) reads. */
function numericExclusives(node: Node): Node {
  const out = { ...node };
  for (const [flag, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (typeof out[flag] !== "boolean") continue;
    if (out[flag] === true && typeof out[bound] === "number") {
      out[flag] = out[bound];
      delete out[bound];
    } else delete out[flag];
  }
  return out;
}

const SCHEMA_IN_SCHEMA = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"];
const SCHEMAS_IN_SCHEMA = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_MAPS_IN_SCHEMA = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

/** A 3.1 schema (2020-12) with `openapiReading` applied at every node. */
function read31(node: unknown, depth = 0): unknown {
  if (!isNode(node) || depth > 300) return node;
  const out: Node = openapiReading(node, "3.1");
  // 3.1 has no `nullable` (a 3.0 keyword); Ajv would honour it as its own extension.
  delete out["nullable"];
  for (const key of SCHEMA_IN_SCHEMA) if (isNode(out[key])) out[key] = read31(out[key], depth + 1);
  for (const key of SCHEMAS_IN_SCHEMA) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((branch) => read31(branch, depth + 1));
  for (const key of SCHEMA_MAPS_IN_SCHEMA) if (isNode(out[key])) out[key] = Object.fromEntries(Object.entries(out[key] as Node).map(([name, child]) => [name, read31(child, depth + 1)]));
  return out;
}

/** A 3.0 / 2.0 Schema Object as JSON Schema (draft-07 keywords), read as OpenAPI means it. */
function convert30(schema: unknown, dialect: Dialect): unknown {
  if (!isNode(schema)) return schema;
  const converted = convertOpenAPISchema(schema, {
    strictMode: false,
    keepNotSupported: ["discriminator"],
    beforeTransform: (node: Node) => numericExclusives(openapiReading(node, dialect)),
  });
  delete converted["$schema"];
  // The converter drops `discriminator` only when asked not to keep it; the rewrite above already used it.
  return stripKey(converted, "discriminator");
}

function stripKey(node: unknown, key: string, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((child) => stripKey(child, key, depth + 1));
  if (!isNode(node) || depth > 400) return node;
  return Object.fromEntries(Object.entries(node).filter(([name]) => name !== key).map(([name, child]) => [name, stripKey(child, key, depth + 1)]));
}

/** Every place of a 3.0 / 2.0 document where a Schema Object sits that a request example is judged by. */
function schemaSites(document: Node, dialect: Dialect): string[][] {
  const sites: string[][] = [];
  const mapOf = (path: string[]) => {
    const node = path.reduce<unknown>((n, key) => (isNode(n) ? n[key] : undefined), document);
    return isNode(node) ? node : {};
  };
  const schemas = dialect === "2.0" ? ["definitions"] : ["components", "schemas"];
  for (const name of Object.keys(mapOf(schemas))) sites.push([...schemas, name]);
  const parameterSite = (path: string[], parameter: unknown) => {
    if (!isNode(parameter)) return;
    if (parameter["schema"] !== undefined) sites.push([...path, "schema"]);
    if (isNode(parameter["content"])) for (const type of Object.keys(parameter["content"])) sites.push([...path, "content", type, "schema"]);
  };
  const parameterMap = dialect === "2.0" ? ["parameters"] : ["components", "parameters"];
  for (const [name, parameter] of Object.entries(mapOf(parameterMap))) parameterSite([...parameterMap, name], parameter);
  const bodySite = (path: string[], body: unknown) => {
    if (!isNode(body) || !isNode(body["content"])) return;
    for (const [type, media] of Object.entries(body["content"])) if (isNode(media) && media["schema"] !== undefined) sites.push([...path, "content", type, "schema"]);
  };
  if (dialect !== "2.0") for (const [name, body] of Object.entries(mapOf(["components", "requestBodies"]))) bodySite(["components", "requestBodies", name], body);
  for (const [path, item] of Object.entries(mapOf(["paths"]))) {
    if (!isNode(item)) continue;
    const list = (owner: Node, at: string[]) => {
      if (Array.isArray(owner["parameters"])) (owner["parameters"] as unknown[]).forEach((p, index) => parameterSite([...at, "parameters", String(index)], p));
    };
    list(item, ["paths", path]);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isNode(operation)) continue;
      list(operation, ["paths", path, method]);
      bodySite(["paths", path, method, "requestBody"], operation["requestBody"]);
    }
  }
  return sites;
}

function setAt(node: Node, path: readonly string[], value: unknown): void {
  let parent: unknown = node;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string, unknown>)[key];
  (parent as Record<string, unknown>)[path[path.length - 1]!] = value;
}

export interface Verdict {
  ok: boolean;
  /** Ajv's first errors, as `pointer: message`. */
  errors: string[];
  /** The value as the validator read it (a parameter's wire string coerced to the schema's type). */
  value: unknown;
}

const SPEC_ID = "https://spec.invalid/document.json";

/**
 * Ajv on the spec's own schemas. Parameters are judged with type coercion, because a
 * parameter example is often written as its wire text (`"10"` for an integer).
 */
export class ReferenceValidator {
  private readonly ajv: Ajv | Ajv2020;
  private readonly coercing: Ajv | Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly dialect: Dialect;

  constructor(document: unknown) {
    this.dialect = dialectOf(document);
    const converted = structuredClone(document) as Node;
    if (this.dialect === "3.1") {
      for (const site of schemaSites31(converted)) setAt(converted, site, read31(site.reduce<unknown>((n, key) => (n as Node)[key], converted)));
    } else {
      for (const site of schemaSites(converted, this.dialect)) setAt(converted, site, convert30(site.reduce<unknown>((n, key) => (n as Node)[key], converted), this.dialect));
    }
    delete converted["$schema"];
    delete converted["$id"];
    if (isNode(converted["components"])) delete (converted["components"] as Node)["examples"];
    const judged = withoutExampleValues(converted) as Node;
    const make = (coerceTypes: boolean) => {
      const options = { strict: false, logger: false, validateSchema: false, allErrors: false, coerceTypes: coerceTypes ? ("array" as const) : false } as const;
      const ajv = this.dialect === "3.1" ? new Ajv2020(options) : new Ajv(options);
      addFormats(ajv);
      ajv.addSchema({ ...judged, $id: SPEC_ID });
      return ajv;
    };
    this.ajv = make(false);
    this.coercing = make(true);
  }

  /** Judges an example; never throws (a schema Ajv cannot compile is reported as a fault of the reference). */
  judge(example: RequestExample): Verdict {
    const coerce = example.parameter !== undefined;
    const key = `${coerce}|${"pointer" in example.schema ? example.schema.pointer : JSON.stringify(example.schema.inline)}`;
    let validate = this.compiled.get(key);
    const value = structuredClone(example.value);
    try {
      if (validate === undefined) {
        const ajv = coerce ? this.coercing : this.ajv;
        const schema = "pointer" in example.schema ? { $ref: `${SPEC_ID}#${encodeURI(example.schema.pointer).replace(/#/g, "%23")}` } : (convert30(example.schema.inline, this.dialect) as Node);
        // Coercion rewrites a value in its parent: a parameter is judged as the member of a holder.
        validate = ajv.compile(coerce ? { type: "object", properties: { value: schema } } : schema);
        this.compiled.set(key, validate);
      }
      const box = { value };
      const ok = coerce ? validate(box) : validate(box.value);
      return { ok: ok === true, errors: (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || "/"}: ${e.message ?? e.keyword}`), value: box.value };
    } catch (error) {
      return { ok: false, errors: [`reference could not compile the schema: ${(error as Error).message}`], value };
    }
  }
}

const EXAMPLE_KEYS = new Set(["example", "examples", "x-examples", "x-example"]);
const NAME_MAPS = new Set(["properties", "patternProperties", "dependentSchemas", "$defs", "definitions", "schemas", "parameters", "requestBodies", "responses", "paths", "content", "headers", "mapping"]);

/**
 * The document without example values: Ajv reads every key of what it is given for `$id`s,
 * and an example of a schema document (Okta's) holds `$id: http://{yourOktaDomain}/...`.
 * A key under a map of names (`properties.example`) is a name, not an example, and stays.
 */
function withoutExampleValues(node: unknown, parentKey = "", depth = 0): unknown {
  if (Array.isArray(node)) return node.map((child) => withoutExampleValues(child, "", depth + 1));
  if (!isNode(node) || depth > 600) return node;
  const out: Node = {};
  for (const [key, child] of Object.entries(node)) {
    if (EXAMPLE_KEYS.has(key) && !NAME_MAPS.has(parentKey)) continue;
    Object.defineProperty(out, key, { value: withoutExampleValues(child, key, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** 3.1: the same sites; the schemas are 2020-12 already. */
function schemaSites31(document: Node): string[][] {
  return schemaSites(document, "3.1");
}

// ---------------------------------------------------------------------------------------
// Minimal values from a tool's inputSchema (2020-12, local #/$defs refs)
// ---------------------------------------------------------------------------------------

const FORMAT_VALUES: Record<string, string> = {
  "date-time": "2024-01-02T03:04:05Z",
  date: "2024-01-02",
  time: "03:04:05Z",
  email: "user@example.com",
  uri: "https://example.com/a",
  url: "https://example.com/a",
  "uri-reference": "/a",
  uuid: "123e4567-e89b-12d3-a456-426614174000",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  hostname: "example.com",
  byte: "aGVsbG8=",
};
const ANNOTATIONS = new Set(["description", "title", "deprecated", "default", "examples", "readOnly", "writeOnly", "$comment"]);
const PATTERN_CANDIDATES = ["a", "abc", "A", "1", "0", "a1", "abc123", "a-b", "a_b", "2024-01-02", "ffffff", "#ffffff", "1.0.0", "v1", "a/b", "A1", "aa:bb", "a@b.co", "US", "USD", "en"];

/**
 * A minimal value `schema` accepts: required members only, the first enum value or branch,
 * the smallest string, number or array the bounds allow. Deterministic; not a proof of
 * validity (the tool's own check judges it).
 */
export function minimalValue(schema: unknown, root: Node, depth = 0): unknown {
  if (schema === true || schema === undefined) return "x";
  if (!isNode(schema) || depth > 48) return {};
  if (typeof schema["$ref"] === "string") {
    const name = unsegment(schema["$ref"].replace(/^#\/\$defs\//, ""));
    const target = isNode(root["$defs"]) ? (root["$defs"] as Node)[name] : undefined;
    const { $ref: _ref, ...siblings } = schema;
    const base = minimalValue(target, root, depth + 1);
    const more = Object.keys(siblings).some((k) => !ANNOTATIONS.has(k)) ? minimalValue(siblings, root, depth + 1) : undefined;
    return isNode(base) && isNode(more) ? { ...base, ...more } : base;
  }
  if ("const" in schema) return schema["const"];
  if (Array.isArray(schema["enum"]) && schema["enum"].length > 0) return schema["enum"].find((v) => v !== null) ?? schema["enum"][0];
  if (Array.isArray(schema["allOf"])) {
    const merged = mergedObject(schema, root);
    if (merged !== undefined) return minimalValue(merged, root, depth + 1);
    const { allOf: _parts, ...rest } = schema;
    const parts = [...(Object.keys(rest).some((k) => !ANNOTATIONS.has(k)) ? [rest] : []), ...(schema["allOf"] as unknown[])];
    // A scalar built of parts: the part that names the values (enum, const) decides.
    const naming = parts.find((part) => isNode(part) && ("const" in part || Array.isArray(part["enum"])));
    return minimalValue(naming ?? parts[0], root, depth + 1);
  }
  for (const union of ["oneOf", "anyOf"] as const) {
    const branches = schema[union];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const { [union]: _b, ...rest } = schema;
    const own = rest["properties"] !== undefined || rest["required"] !== undefined ? minimalValue(rest, root, depth + 1) : undefined;
    const build = (branch: unknown) => {
      // An object branch beside declared members is read with them (GitHub's checks_create
      // requires `conclusion` in a branch; the object beside it declares what it may be).
      if (own !== undefined && isNode(branch) && mergedObject({ allOf: [rest, branch] }, root) !== undefined) return minimalValue({ allOf: [rest, branch] }, root, depth + 1);
      const picked = minimalValue(branch, root, depth + 1);
      return isNode(picked) && isNode(own) ? { ...own, ...picked } : picked;
    };
    const order = [...branches].sort((a, b) => Number(isNode(a) && a["type"] === "null") - Number(isNode(b) && b["type"] === "null"));
    if (union === "anyOf") return build(order[0]);
    // oneOf: the first branch whose minimal value no other branch also takes.
    const candidates = order.map(build);
    return candidates.find((value) => branches.filter((branch) => accepts(branch, value, root)).length === 1) ?? candidates[0];
  }
  const types = Array.isArray(schema["type"]) ? (schema["type"] as string[]) : typeof schema["type"] === "string" ? [schema["type"]] : [];
  const type = types.find((t) => t !== "null") ?? (types.length > 0 ? "null" : schema["properties"] !== undefined || schema["required"] !== undefined ? "object" : schema["items"] !== undefined ? "array" : undefined);
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const properties = isNode(schema["properties"]) ? (schema["properties"] as Node) : {};
      for (const name of Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []) {
        Object.defineProperty(out, name, { value: minimalValue(properties[name] ?? true, root, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      const min = typeof schema["minProperties"] === "number" ? schema["minProperties"] : 0;
      for (const name of Object.keys(properties)) {
        if (Object.keys(out).length >= min) break;
        if (!(name in out)) out[name] = minimalValue(properties[name], root, depth + 1);
      }
      return out;
    }
    case "array": {
      const min = typeof schema["minItems"] === "number" ? schema["minItems"] : 0;
      const prefix = Array.isArray(schema["prefixItems"]) ? (schema["prefixItems"] as unknown[]) : [];
      return Array.from({ length: Math.max(min, 0) }, (_, index) => minimalValue(prefix[index] ?? schema["items"] ?? true, root, depth + 1));
    }
    case "integer":
    case "number": {
      const min = typeof schema["minimum"] === "number" ? schema["minimum"] : typeof schema["exclusiveMinimum"] === "number" ? schema["exclusiveMinimum"] + 1 : undefined;
      const max = typeof schema["maximum"] === "number" ? schema["maximum"] : typeof schema["exclusiveMaximum"] === "number" ? schema["exclusiveMaximum"] - 1 : undefined;
      let value = min ?? (max !== undefined && max < 1 ? max : 1);
      if (type === "integer") value = Math.ceil(value);
      const step = typeof schema["multipleOf"] === "number" ? schema["multipleOf"] : undefined;
      if (step !== undefined && value % step !== 0) value = Math.ceil(value / step) * step;
      return value;
    }
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
    case undefined: {
      if (type === undefined && schema["format"] === undefined && schema["pattern"] === undefined && schema["minLength"] === undefined) return "x";
      const format = typeof schema["format"] === "string" ? FORMAT_VALUES[schema["format"]] : undefined;
      const minLength = typeof schema["minLength"] === "number" ? schema["minLength"] : 0;
      const maxLength = typeof schema["maxLength"] === "number" ? schema["maxLength"] : Infinity;
      const fits = (text: string) => text.length >= minLength && text.length <= maxLength;
      if (typeof schema["pattern"] === "string") {
        let pattern: RegExp | undefined;
        try {
          pattern = new RegExp(schema["pattern"], "u");
        } catch {
          pattern = undefined;
        }
        const candidates = [...(format === undefined ? [] : [format]), ...patternStrings(schema["pattern"], minLength), ...PATTERN_CANDIDATES, ...PATTERN_CANDIDATES.map((c) => c.repeat(Math.max(1, minLength)))];
        const hit = candidates.find((c) => fits(c) && (pattern === undefined || pattern.test(c)));
        if (hit !== undefined) return hit;
      }
      if (format !== undefined && fits(format)) return format;
      return "a".repeat(Math.max(1, minLength)).slice(0, Math.max(1, Math.min(maxLength, Math.max(1, minLength))));
    }
    default:
      return "x";
  }
}

const branchChecks = new WeakMap<Node, Ajv2020>();

/** Whether a subschema of a tool's inputSchema takes a value (Ajv 2020, the root's `$defs` in reach). */
function accepts(schema: unknown, value: unknown, root: Node): boolean {
  let ajv = branchChecks.get(root);
  if (ajv === undefined) {
    ajv = new Ajv2020({ strict: false, logger: false, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema({ $id: "https://tool.invalid/input.json", $defs: root["$defs"] ?? {} });
    branchChecks.set(root, ajv);
  }
  try {
    const subschema = typeof schema === "boolean" ? schema : { ...(schema as Node), $id: undefined };
    const resolved = JSON.parse(JSON.stringify(subschema).replace(/"#\/\$defs\//g, '"https://tool.invalid/input.json#/$defs/')) as unknown;
    return ajv.validate(resolved as Node, value) === true;
  } catch {
    return false;
  }
}

/**
 * An `allOf` of object schemas as one object schema: the members of every part (a member
 * declared in several parts is the `allOf` of its declarations) and every part's `required`.
 * Undefined when a part is not an object schema.
 */
function mergedObject(schema: Node, root: Node): Node | undefined {
  const properties = new Map<string, unknown[]>();
  const required = new Set<string>();
  const queue: unknown[] = [schema];
  let parts = 0;
  while (queue.length > 0 && parts < 200) {
    let node = queue.shift();
    for (let hops = 0; isNode(node) && typeof node["$ref"] === "string" && hops < 16; hops += 1) {
      node = isNode(root["$defs"]) ? (root["$defs"] as Node)[unsegment((node["$ref"] as string).replace(/^#\/\$defs\//, ""))] : undefined;
    }
    if (!isNode(node)) return undefined;
    parts += 1;
    if (node["anyOf"] !== undefined || node["oneOf"] !== undefined) return undefined;
    const type = node["type"];
    if (type !== undefined && type !== "object" && !(Array.isArray(type) && type.includes("object"))) return undefined;
    if (isNode(node["properties"])) for (const [name, member] of Object.entries(node["properties"])) properties.set(name, [...(properties.get(name) ?? []), member]);
    if (Array.isArray(node["required"])) for (const name of node["required"]) if (typeof name === "string") required.add(name);
    if (Array.isArray(node["allOf"])) queue.push(...(node["allOf"] as unknown[]));
  }
  const merged: Node = { type: "object", required: [...required] };
  merged["properties"] = Object.fromEntries([...properties].map(([name, list]) => [name, list.length === 1 ? list[0] : { allOf: list }]));
  return merged;
}

/**
 * Strings a pattern matches, shortest first: randexp with every choice at its lowest
 * (then a little higher, for a `minLength` the shortest misses). Deterministic.
 */
function patternStrings(pattern: string, minLength: number): string[] {
  const out: string[] = [];
  try {
    for (const lift of [0, 1, 2, Math.max(3, minLength)]) {
      const generator = new RandExp(pattern);
      generator.randInt = (low: number, high: number) => Math.min(high, low + lift);
      out.push(generator.gen());
    }
  } catch {
    // A pattern randexp cannot read: the fixed candidates are tried instead.
  }
  return out;
}

/** The required arguments of a tool, each with a minimal value. */
export function minimalArguments(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as Node;
  const properties = isNode(schema["properties"]) ? (schema["properties"] as Node) : {};
  const out: Record<string, unknown> = {};
  for (const name of Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []) {
    Object.defineProperty(out, name, { value: minimalValue(properties[name] ?? true, schema), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The minimal calls a tool must take: its required arguments, and, where it sends a body,
 * the same with every body argument at its minimal value (an optional body that is sent
 * must be sendable: PagerDuty's custom-field tools required members screening withheld).
 */
export function minimalCalls(tool: Tool): Record<string, unknown>[] {
  const base = minimalArguments(tool);
  const body = (tool.binding as HttpBinding).body;
  const schema = tool.inputSchema as Node;
  const properties = isNode(schema["properties"]) ? (schema["properties"] as Node) : {};
  const bodyArgs = body === undefined ? [] : [...(body.wholeBodyArg === undefined ? [] : [body.wholeBodyArg]), ...Object.keys(body.fields ?? {})].filter((arg) => !(arg in base) && arg in properties);
  if (bodyArgs.length === 0) return [base];
  const withBody = { ...base };
  for (const arg of bodyArgs) Object.defineProperty(withBody, arg, { value: minimalValue(properties[arg], schema), enumerable: true, writable: true, configurable: true });
  return [base, withBody];
}

// ---------------------------------------------------------------------------------------
// Replaying an example through the generated tool
// ---------------------------------------------------------------------------------------

export type Outcome =
  | { status: "pass" }
  /** Refused only because it sends members the tool withholds as read-only (their argument pointers). */
  | { status: "read_only_refused"; members: string[] }
  | { status: "spec_fault"; errors: string[] }
  | { status: "no_tool"; reason: string }
  /** The example sends a body member its (open) schema never declares; sluice's flattened body is closed (a deliberate deviation). */
  | { status: "undeclared"; member: string }
  | { status: "refused"; code: string; issues: string[]; pointers?: string[] }
  | { status: "different"; reason: string };

/** Credentials of the right kind for every scheme, so that authentication never refuses a replay. */
const CREDENTIALS = (scheme: { type: string }) => (scheme.type === "basic" ? { username: "u", password: "p" } : { token: "t" });
const BASE_URL = "http://127.0.0.1:9";

export async function replayExample(tool: Tool, example: RequestExample, reference: Verdict, document?: unknown): Promise<Outcome> {
  const binding = tool.binding as HttpBinding;
  const args = minimalArguments(tool);
  let expectParameter: HttpParameter | undefined;
  if (example.parameter !== undefined) {
    const { name, in: where } = example.parameter;
    expectParameter = binding.parameters.find((p) => p.name === name && p.in === where);
    if (expectParameter === undefined) {
      const withheld = binding.withheldParameters?.find((p) => p.name === name && p.in === where);
      return withheld === undefined ? { status: "no_tool", reason: `parameter ${where}:${name} is not an argument` } : { status: "no_tool", reason: `parameter ${where}:${name} is withheld (${tool.withheld.find((w) => w.path === withheld.arg)?.reason ?? "?"})` };
    }
    if (expectParameter.credential !== undefined) return { status: "no_tool", reason: `parameter ${where}:${name} carries a credential` };
    args[expectParameter.arg] = reference.value;
  } else {
    const body = binding.body;
    if (body === undefined) return { status: "no_tool", reason: "the tool sends no body" };
    if (body.wholeBodyArg !== undefined) args[body.wholeBodyArg] = structuredClone(example.value);
    else if (isNode(example.value)) {
      const byMember = new Map(Object.entries(body.fields ?? {}).map(([arg, member]) => [member, arg]));
      for (const name of Object.keys(args)) if (Object.values(body.fields ?? {}).length > 0 && body.fields![name] !== undefined) delete args[name];
      const readOnlyMembers: string[] = [];
      for (const [member, value] of Object.entries(example.value)) {
        const arg = byMember.get(member);
        // A body member the tool withholds as read-only has no argument: the example, as written, is refused for it.
        if (arg === undefined && tool.withheld.some((w) => w.reason === "read_only" && (w.path === member || w.path === `body_${member}`))) {
          readOnlyMembers.push(`/${segment(member)}`);
          continue;
        }
        if (arg === undefined) {
          if (document !== undefined && "pointer" in example.schema && !declares(document, at(document, example.schema.pointer), member)) return { status: "undeclared", member };
          return { status: "refused", code: "NOT_A_FIELD", issues: [`body member ${member} is not an argument`] };
        }
        Object.defineProperty(args, arg, { value: structuredClone(value), enumerable: true, writable: true, configurable: true });
      }
      if (readOnlyMembers.length > 0) return { status: "read_only_refused", members: readOnlyMembers };
    } else return { status: "refused", code: "NOT_AN_OBJECT", issues: ["the body example is not an object but the tool flattens the body"] };
  }
  let request: HttpRequest;
  try {
    request = await tool.request(args, { credentials: CREDENTIALS as never, baseUrl: BASE_URL });
  } catch (error) {
    if (!(error instanceof SluiceError)) throw error;
    // Judged as written: an example refused only for read-only members the tool withholds is a
    // refusal, reported apart (it says which members), never replayed without them.
    const issues = error.issues ?? [];
    if (error.code === "EGRESS_DENIED" && issues.length > 0 && issues.every((issue) => issue.code === "withheld" && withheldAsReadOnly(tool, issue.path))) {
      return { status: "read_only_refused", members: issues.map((issue) => issue.path) };
    }
    // Members the spec's schema never declares, in objects open by omission: the closed-object deviation.
    const unknown = issues.filter((issue) => issue.code === "unknown");
    if (document !== undefined && "pointer" in example.schema && unknown.length > 0 && unknown.length === issues.length) {
      const undeclared = unknown.map((issue) => undeclaredAt(document, example, binding, issue.path));
      if (undeclared.every((member) => member !== undefined)) return { status: "undeclared", member: undeclared.join(", ") };
    }
    const lines = issues.map((i) => `${i.path ?? ""} ${i.code ?? ""}: ${i.message ?? ""}`.trim());
    return { status: "refused", code: error.code, issues: lines.length > 0 ? lines.slice(0, 4) : [error.message.slice(0, 300)] };
  }
  if (expectParameter !== undefined) return checkParameter(request, binding, expectParameter, reference.value);
  return checkBody(request, binding, example.value);
}

/** Whether the key at an argument pointer is withheld by the tool as read-only (by dotted path or as `Type.key`). */
function withheldAsReadOnly(tool: Tool, pointer: string): boolean {
  const segments = pointer.split("/").slice(1).map(unsegment);
  const key = segments[segments.length - 1]!;
  const dotted = segments.filter((s) => !/^\d+$/.test(s)).join(".");
  const matching = tool.withheld.filter((w) => w.path === dotted || w.path.endsWith(`.${key}`));
  return matching.length > 0 && matching.every((w) => w.reason === "read_only");
}

/**
 * Whether a schema declares a member anywhere an instance of it could take it from: its own
 * `properties`, its `allOf` / `oneOf` / `anyOf` parts, and a discriminator mapping's targets.
 */
function declares(document: unknown, schema: unknown, member: string): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [schema];
  while (queue.length > 0) {
    let node = queue.pop();
    node = located(document, node, "").value;
    if (!isNode(node) || seen.has(node)) continue;
    seen.add(node);
    if (isNode(node["properties"]) && Object.prototype.hasOwnProperty.call(node["properties"], member)) return true;
    if (node["additionalProperties"] !== undefined && node["additionalProperties"] !== false) return true; // declared open on purpose
    for (const key of ["allOf", "oneOf", "anyOf"]) if (Array.isArray(node[key])) queue.push(...(node[key] as unknown[]));
    const mapping = isNode(node["discriminator"]) ? node["discriminator"]["mapping"] : undefined;
    if (isNode(mapping)) for (const target of Object.values(mapping)) if (typeof target === "string" && target.startsWith("#")) queue.push({ $ref: target });
  }
  return false;
}

/**
 * The member an `unknown` issue names when the example's own schema does not declare it at
 * that place (following `properties`, array items, `allOf` / `oneOf` / `anyOf` and discriminator
 * mappings); undefined when the spec declares it there, so that sluice lost it.
 */
function undeclaredAt(document: unknown, example: RequestExample, binding: HttpBinding, path: string): string | undefined {
  const segments = path.split("/").slice(1).map(unsegment);
  const member = segments.pop();
  if (member === undefined || segments.length === 0) return undefined;
  const first = segments.shift()!;
  // The first segment is an argument: a body field (its member), the whole body, or a parameter.
  const body = binding.body;
  let schemas: unknown[];
  if (example.parameter !== undefined) return undefined;
  if (body?.wholeBodyArg === first) schemas = [at(document, (example.schema as { pointer: string }).pointer)];
  else if (body?.fields?.[first] !== undefined) schemas = childSchemas(document, [at(document, (example.schema as { pointer: string }).pointer)], body.fields[first]!);
  else return undefined;
  for (const segment of segments) schemas = /^\d+$/.test(segment) ? itemSchemas(document, schemas) : childSchemas(document, schemas, segment);
  return expanded(document, schemas).some((node) => declares(document, node, member)) ? undefined : member;
}

function expanded(document: unknown, schemas: unknown[]): Node[] {
  const out: Node[] = [];
  const seen = new Set<unknown>();
  const queue = [...schemas];
  while (queue.length > 0) {
    const node = located(document, queue.pop(), "").value;
    if (!isNode(node) || seen.has(node)) continue;
    seen.add(node);
    out.push(node);
    for (const key of ["allOf", "oneOf", "anyOf"]) if (Array.isArray(node[key])) queue.push(...(node[key] as unknown[]));
    const mapping = isNode(node["discriminator"]) ? node["discriminator"]["mapping"] : undefined;
    if (isNode(mapping)) for (const target of Object.values(mapping)) if (typeof target === "string" && target.startsWith("#")) queue.push({ $ref: target });
  }
  return out;
}

function childSchemas(document: unknown, schemas: unknown[], key: string): unknown[] {
  return expanded(document, schemas).flatMap((node) => {
    const properties = node["properties"];
    if (isNode(properties) && Object.prototype.hasOwnProperty.call(properties, key)) return [properties[key]];
    return isNode(node["additionalProperties"]) ? [node["additionalProperties"]] : [];
  });
}

function itemSchemas(document: unknown, schemas: unknown[]): unknown[] {
  return expanded(document, schemas).flatMap((node) => (node["items"] === undefined ? [] : [node["items"]]));
}

function checkBody(request: HttpRequest, binding: HttpBinding, want: unknown): Outcome {
  const text = typeof request.body === "string" ? request.body : request.body === undefined ? undefined : new TextDecoder().decode(request.body);
  const encoding = binding.body!.encoding;
  // An empty form is an empty body, sent or not.
  if (text === undefined && encoding === "form" && isNode(want) && Object.keys(want).length === 0) return { status: "pass" };
  if (text === undefined) return { status: "different", reason: "no body was built" };
  if (encoding === "json") {
    let got: unknown;
    try {
      got = JSON.parse(text);
    } catch {
      return { status: "different", reason: "the body is not JSON" };
    }
    return jsonEqual(got, want) ? { status: "pass" } : { status: "different", reason: `body ${text.slice(0, 200)} is not the example` };
  }
  if (encoding === "form") {
    const got = [...new URLSearchParams(text)];
    const expected = formPairs(want);
    if (expected === undefined) return { status: "pass" }; // nested values: form encoding of objects is style-dependent; accepted is what is checked
    const missing = expected.filter(([k, v]) => !got.some(([gk, gv]) => gk === k && gv === v));
    return missing.length === 0 ? { status: "pass" } : { status: "different", reason: `form body lacks ${missing.map(([k, v]) => `${k}=${v}`).join("&")}` };
  }
  return { status: "pass" };
}

function formPairs(value: unknown): [string, string][] | undefined {
  if (!isNode(value)) return undefined;
  const out: [string, string][] = [];
  for (const [key, member] of Object.entries(value)) {
    if (Array.isArray(member) && member.every(isScalar)) for (const item of member) out.push([key, scalarText(item)]);
    else if (isScalar(member)) out.push([key, scalarText(member)]);
    else return undefined;
  }
  return out;
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function scalarText(value: unknown): string {
  return value === null ? "" : String(value);
}

/** What a style writes for a value (OpenAPI 3.1 §4.8.12.4 style values), unencoded; undefined where nested. */
function styled(parameter: HttpParameter, value: unknown): { pairs?: [string, string][]; text?: string } | undefined {
  const { name, style, explode } = parameter;
  if (parameter.contentType !== undefined) return { text: /json/.test(parameter.contentType) ? JSON.stringify(value) : scalarText(value) };
  const list = Array.isArray(value) ? value : undefined;
  const object = isNode(value) ? value : undefined;
  if ((list !== undefined && !list.every(isScalar)) || (object !== undefined && !Object.values(object).every(isScalar))) return undefined;
  if (!isScalar(value) && list === undefined && object === undefined) return undefined;
  const items = list?.map(scalarText);
  const entries = object === undefined ? undefined : Object.entries(object).map(([k, v]) => [k, scalarText(v)] as [string, string]);
  if (parameter.in === "query" || parameter.in === "cookie") {
    if (style === "deepObject" && entries !== undefined) return { pairs: entries.map(([k, v]) => [`${name}[${k}]`, v]) };
    const joiner = style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ",";
    if (items !== undefined) return { pairs: explode ? items.map((v) => [name, v]) : [[name, items.join(joiner)]] };
    if (entries !== undefined) return { pairs: explode ? entries : [[name, entries.flat().join(",")]] };
    return { pairs: [[name, scalarText(value)]] };
  }
  const inner = items !== undefined ? items.join(",") : entries !== undefined ? entries.map(([k, v]) => (explode ? `${k}=${v}` : `${k},${v}`)).join(",") : scalarText(value);
  if (parameter.in === "path" && style === "label") return { text: `.${items !== undefined && explode ? items.join(".") : inner}` };
  if (parameter.in === "path" && style === "matrix") {
    if (items !== undefined && explode) return { text: items.map((v) => `;${name}=${v}`).join("") };
    return { text: `;${name}=${inner}` };
  }
  return { text: inner };
}

function checkParameter(request: HttpRequest, binding: HttpBinding, parameter: HttpParameter, value: unknown): Outcome {
  const want = styled(parameter, value);
  if (want === undefined) return { status: "pass" }; // nested values: accepted is what is checked
  const url = new URL(request.url);
  if (parameter.in === "query") {
    const got = [...url.searchParams];
    const pairs = want.pairs ?? [[parameter.name, want.text!]];
    const missing = pairs.filter(([k, v]) => !got.some(([gk, gv]) => gk === k && gv === v));
    return missing.length === 0 ? { status: "pass" } : { status: "different", reason: `query ${url.search.slice(0, 200)} lacks ${missing.map(([k, v]) => `${k}=${v}`).join("&")}` };
  }
  if (parameter.in === "header") {
    const got = Object.entries(request.headers).find(([k]) => k.toLowerCase() === parameter.name.toLowerCase())?.[1];
    return got === want.text ? { status: "pass" } : { status: "different", reason: `header ${parameter.name} is ${JSON.stringify(got)}, not ${JSON.stringify(want.text)}` };
  }
  if (parameter.in === "cookie") {
    const cookie = Object.entries(request.headers).find(([k]) => k.toLowerCase() === "cookie")?.[1] ?? "";
    const pairs = cookie.split(/;\s*/).map((p) => p.split("=").map((s) => decodeURIComponent(s)).join("="));
    const expected = (want.pairs ?? []).map(([k, v]) => `${k}=${v}`);
    return expected.every((e) => pairs.includes(e)) ? { status: "pass" } : { status: "different", reason: `cookie ${cookie} lacks ${expected.join("; ")}` };
  }
  // Path: match the template against the built path and read this parameter's segment.
  const template = binding.path.replace(/[#?].*$/, ""); // a fragment or query in a path key is no part of the path
  const pieces = template.split(/(\{[^}]*\})/);
  const names: string[] = [];
  const pattern = pieces.map((piece) => {
    const m = /^\{([^}]*)\}$/.exec(piece);
    if (m === null) return piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    names.push(m[1]!);
    return "(.*?)";
  }).join("");
  const match = new RegExp(`${pattern}$`).exec(url.pathname);
  if (match === null) return { status: "different", reason: `path ${url.pathname} does not fit ${template}` };
  const raw = match[names.indexOf(parameter.name) + 1] ?? "";
  let got: string;
  try {
    got = decodeURIComponent(raw);
  } catch {
    got = raw;
  }
  return got === want.text ? { status: "pass" } : { status: "different", reason: `path segment ${JSON.stringify(got)} is not ${JSON.stringify(want.text)}` };
}

/** JSON equality (member order aside). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (isNode(a) && isNode(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key]));
  }
  // YAML dates and the like: compare what JSON would send.
  return JSON.stringify(a) === JSON.stringify(b) && a !== undefined;
}

// ---------------------------------------------------------------------------------------
// One spec, end to end
// ---------------------------------------------------------------------------------------

export interface ExampleResult {
  example: RequestExample;
  tool?: string;
  outcome: Outcome;
}

export interface SpecExamplesReport {
  file: string;
  dialect: Dialect;
  results: ExampleResult[];
}

/** Generates the pack in memory and replays every request example of the document. */
export async function specExamples(document: unknown, file: string, yieldEvery = 50): Promise<SpecExamplesReport> {
  const ir = buildOpenAPIPackIR(document, { name: "examples", file, sha256: "0".repeat(64) });
  const pack = definePack(ir);
  const byOperation = new Map<string, Tool>();
  for (const tool of pack.tools) {
    const binding = tool.binding;
    if (binding.kind === "http") byOperation.set(`${binding.method} ${binding.path}`, tool);
  }
  const reference = new ReferenceValidator(document);
  const results: ExampleResult[] = [];
  const examples = collectRequestExamples(document);
  for (const [index, example] of examples.entries()) {
    if (index % yieldEvery === yieldEvery - 1) await new Promise((resolve) => setImmediate(resolve));
    const verdict = reference.judge(example);
    const tool = byOperation.get(example.operation);
    if (!verdict.ok) {
      results.push({ example, ...(tool === undefined ? {} : { tool: tool.name }), outcome: { status: "spec_fault", errors: verdict.errors } });
      continue;
    }
    if (tool === undefined) {
      const skipped = ir.skipped.find((s) => s.operation === example.operation);
      results.push({ example, outcome: { status: "no_tool", reason: skipped === undefined ? "no tool for the operation" : `skipped: ${skipped.reason.slice(0, 200)}` } });
      continue;
    }
    results.push({ example, tool: tool.name, outcome: await replayExample(tool, example, verdict, document) });
  }
  return { file, dialect: reference.dialect, results };
}

/**
 * Counts of one report. `judged` = examples - spec faults - no tool - undeclared; `passed` are
 * accepted and sent exactly as written; `readOnlyRefused` are judged examples refused only for
 * read-only members the tool withholds (not passes); the rest of `judged` are other refusals.
 */
export function tally(report: SpecExamplesReport): { examples: number; specFaults: number; noTool: number; undeclared: number; judged: number; passed: number; readOnlyRefused: number } {
  const count = (status: Outcome["status"]) => report.results.filter((r) => r.outcome.status === status).length;
  const specFaults = count("spec_fault");
  const noTool = count("no_tool");
  const undeclared = count("undeclared");
  return { examples: report.results.length, specFaults, noTool, undeclared, judged: report.results.length - specFaults - noTool - undeclared, passed: count("pass"), readOnlyRefused: count("read_only_refused") };
}

/**
 * Where this oracle reads a spec otherwise than its text says, each with its reason. The
 * reference is Ajv on the spec's own schemas; these are the readings layered on it, and the
 * places where a check is weaker than "sent exactly as written".
 */
export const ORACLE_DEPARTURES: readonly string[] = [
  "a member a schema declares `readOnly` is not required by that schema's own `required` (OpenAPI 3.x: `required` on it applies to responses); a `required` of an `allOf` part or composer naming it still applies",
  "a `discriminator` beside `oneOf` / `anyOf` of `$ref` branches is read as `if`/`then` per tag (mapping, else the schema name); an inline branch leaves the union as written",
  "3.0 and 2.0 schemas are converted to JSON Schema by @openapi-contrib/openapi-schema-to-json-schema (`nullable`, draft-4 boolean exclusive bounds made numeric)",
  "a parameter example is judged with Ajv type coercion (written as wire text, `\"10\"` for an integer)",
  "formats are checked by ajv-formats; an unknown format passes",
  "example values are removed from the document before Ajv reads it (an example holding `$id` would be read as a schema id)",
  "a body member the example sends that its schema never declares, in an object open by omission, is counted `undeclared`, not judged (sluice's flattened objects are closed)",
  "a form body or a parameter holding nested values is checked as accepted only, not compared on the wire (their encoding depends on style)",
];

export type { Json };

/** Every OpenAPI document of ../shared/specs (GraphQL schemas aside), by path under it. */
export const CORPUS_OPENAPI: readonly string[] = [
  "asana/asana_oas.yaml", "digitalocean/digitalocean-openapi.yaml", "github-rest/api.github.com.json", "google/calendar-v3.yaml",
  "google/docs-v1.yaml", "google/drive-v3.yaml", "google/gmail-v1.yaml", "google/sheets-v4.yaml", "jira/jira-openapi.yaml",
  "kubernetes/swagger.json", "notion/notion-openapi.json", "petstore/petstore-3.0.json", "petstore/petstore-expanded-3.0.json",
  "petstore/swagger-petstore-3.0.yaml", "petstore/swagger-petstore-3.1-design-first.yaml", "petstore/swagger-petstore-3.1.json",
  "petstore/tictactoe-3.1.json", "petstore/webhook-example-3.1.json", "sendgrid/oai_v3_stoplight.json",
  "slack/slack_web_openapi_v2_without_examples.json", "stripe/spec3.json", "twilio/twilio_api_v2010.json",
];
/** The specs vendored in test/fixtures/outside, by name. */
export const OUTSIDE_SPECS: readonly string[] = ["adyen-checkout", "apideck-accounting", "box", "launchdarkly", "okta", "spotify", "twitter"];
