import { cloneJson, escapePointerSegment, getOwn, hasOwn, isSchemaObject, parseLocalRef, resolveRef, SluiceError, type JsonSchemaObject } from "@sluice/schema";

/**
 * JSON Schema 2020-12 -> Gemini's `Schema` object, the OpenAPI 3.0 subset that the
 * `parameters` field of a function declaration takes.
 * https://ai.google.dev/api/caching#Schema
 *
 * What the subset cannot say is rewritten into what it can, never silently widened
 * where a rewrite exists:
 * - `$ref` is inlined (Gemini has no refs). A ref cycle is refused, not unrolled: bounding
 *   recursion is `fit`'s job, and it reports the cost. Inlining a DAG of shared types can
 *   still grow exponentially, so the output size is bounded too.
 * - `type: ["string", "null"]`, a `null` enum value and a `{type: "null"}` union branch
 *   become `nullable: true`; a type array of several non-null types becomes `anyOf`.
 * - `const` becomes a one-value `enum`; `oneOf` becomes `anyOf`; `allOf` branches are merged.
 * - Gemini enums are strings: non-string enum values are listed in the description instead.
 * - Dropped: `$schema`, `$defs`, `additionalProperties` and every other keyword the
 *   subset lacks. An array without `items` gets none.
 */

/** Nesting depth at which conversion stops; well past any provider's own limit, far below the JS stack. */
const MAX_DEPTH = 256;

export interface GeminiSchemaOptions {
  /** Most schema nodes one tool's `parameters` may expand to when refs are inlined. */
  maxNodes: number;
}

/** The values of Gemini's `Type` enum, as they go over the wire. */
export type GeminiType = "TYPE_UNSPECIFIED" | "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL";

/**
 * Gemini's `Schema` object, declared here so that the published types do not depend on
 * the optional `@google/genai` package (test/adapters-types.ts checks it against the SDK).
 * Counts are strings (int64 in the API).
 */
export interface GeminiSchema {
  type?: GeminiType;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  default?: unknown;
  example?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: string;
  maxLength?: string;
  pattern?: string;
  minItems?: string;
  maxItems?: string;
  items?: GeminiSchema;
  minProperties?: string;
  maxProperties?: string;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  propertyOrdering?: string[];
  anyOf?: GeminiSchema[];
}

const GEMINI_TYPES: Readonly<Record<string, GeminiType>> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
  null: "NULL",
};

/** Keywords in the order they are emitted, so equal input always gives equal bytes. */
const EMIT_ORDER: readonly (keyof GeminiSchema)[] = [
  "type", "format", "title", "description", "nullable", "enum", "default", "example",
  "minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems", "items",
  "minProperties", "maxProperties", "properties", "required", "propertyOrdering", "anyOf",
];

const COUNT_KEYWORDS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const;

interface RefFrame {
  ref: string;
  name: string;
}

export function toGeminiSchema(toolName: string, root: JsonSchemaObject, options: GeminiSchemaOptions): GeminiSchema {
  let nodes = 0;
  const refStack: RefFrame[] = [];

  const convert = (node: unknown, pointer: string, depth: number): GeminiSchema => {
    if (++nodes > options.maxNodes) {
      throw new SluiceError("INLINE_BUDGET_EXCEEDED", `Tool ${toolName}: inlining its $refs for Gemini's parameters form passes ${options.maxNodes} schema nodes. Narrow the tool (derived({ drop })), raise maxNodes, or use the parametersJsonSchema form.`, { pointer });
    }
    if (depth > MAX_DEPTH) {
      throw new SluiceError("INLINE_BUDGET_EXCEEDED", `Tool ${toolName}: the schema nests deeper than ${MAX_DEPTH} levels once its $refs are inlined.`, { pointer });
    }
    if (!isSchemaObject(node)) return {};
    const ref = getOwn(node, "$ref");
    if (typeof ref === "string") return convertRef(node, ref, pointer, depth);

    const allOf = getOwn(node, "allOf");
    if (Array.isArray(allOf) && allOf.length > 0) {
      const own = convertOwn(withoutKeyword(node, "allOf"), pointer, depth);
      const branches = allOf.map((branch, index) => convert(branch, `${pointer}/allOf/${index}`, depth + 1));
      return emit(mergeSchemas([own, ...branches]));
    }
    return emit(convertOwn(node, pointer, depth));
  };

  const convertRef = (node: JsonSchemaObject, ref: string, pointer: string, depth: number): GeminiSchema => {
    const segments = parseLocalRef(ref);
    const name = segments?.[segments.length - 1] ?? ref;
    const open = refStack.findIndex((frame) => frame.ref === ref);
    if (open >= 0) {
      const cycle = [...refStack.slice(open).map((frame) => frame.name), name].join(" -> ");
      throw new SluiceError("RECURSIVE_SCHEMA", `Tool ${toolName}: the schema is recursive (${cycle}) and Gemini's parameters form has no $ref, so it cannot be inlined. Fit the tool first (fit() removes or bounds the cycle), or use the parametersJsonSchema form.`, { pointer });
    }
    const target = resolveRef(root, ref);
    const targetPointer = (segments ?? []).map((s) => "/" + escapePointerSegment(s)).join("");
    // Keywords beside a $ref (2020-12 allows them; usually a description) win over the target's.
    const siblings = withoutKeyword(node, "$ref");
    const merged: unknown = Object.keys(siblings).length === 0 || !isSchemaObject(target) ? target : { ...target, ...siblings };
    refStack.push({ ref, name });
    const converted = convert(merged, targetPointer, depth + 1);
    refStack.pop();
    return converted;
  };

  const convertOwn = (node: JsonSchemaObject, pointer: string, depth: number): GeminiSchema => {
    const out: GeminiSchema = {};
    let nullable = false;
    const notes: string[] = [];

    const types = typeList(getOwn(node, "type"));
    if (types !== undefined) {
      const nonNull = types.filter((t) => t !== "null");
      if (nonNull.length > 0 && nonNull.length < types.length) nullable = true;
      const mapped = nonNull.map((t) => GEMINI_TYPES[t]).filter((t): t is GeminiType => t !== undefined);
      if (nonNull.length === 0) out.type = GEMINI_TYPES.null!;
      else if (mapped.length === 1) out.type = mapped[0]!;
      else if (mapped.length > 1) out.anyOf = mapped.map((type) => ({ type }));
    }

    for (const keyword of ["format", "title", "description", "pattern"] as const) {
      const value = getOwn(node, keyword);
      if (typeof value === "string") out[keyword] = value;
    }

    const values = hasOwn(node, "const") ? [getOwn(node, "const")] : getOwn(node, "enum");
    if (Array.isArray(values)) {
      if (values.includes(null)) nullable = true;
      const present = values.filter((v) => v !== null);
      if (present.length > 0 && present.every((v): v is string => typeof v === "string")) {
        out.enum = present;
        if (out.type === undefined && out.anyOf === undefined) out.type = GEMINI_TYPES.string!;
      } else if (present.length > 0) {
        notes.push(`Allowed values: ${present.map((v) => JSON.stringify(v)).join(", ")}.`);
      }
    }

    if (hasOwn(node, "default")) out.default = cloneJson(getOwn(node, "default"));
    const examples = getOwn(node, "examples");
    if (hasOwn(node, "example")) out.example = cloneJson(getOwn(node, "example"));
    else if (Array.isArray(examples) && examples.length > 0) out.example = cloneJson(examples[0]);

    for (const keyword of ["minimum", "maximum"] as const) {
      const value = getOwn(node, keyword);
      if (typeof value === "number") out[keyword] = value;
    }
    // The SDK types these int64 counts as strings (protobuf JSON mapping).
    for (const keyword of COUNT_KEYWORDS) {
      const value = getOwn(node, keyword);
      if (typeof value === "number" && Number.isInteger(value)) out[keyword] = String(value);
    }

    const properties = getOwn(node, "properties");
    if (isSchemaObject(properties)) {
      const converted: Record<string, GeminiSchema> = {};
      for (const key of Object.keys(properties)) {
        const child = properties[key];
        if (child === false) continue; // a property that must be absent: not offered at all
        Object.defineProperty(converted, key, {
          value: convert(child, `${pointer}/properties/${escapePointerSegment(key)}`, depth + 1),
          enumerable: true, writable: true, configurable: true,
        });
      }
      out.properties = converted;
      const required = getOwn(node, "required");
      if (Array.isArray(required)) {
        const names = [...new Set(required.filter((n): n is string => typeof n === "string" && hasOwn(converted, n)))];
        if (names.length > 0) out.required = names;
      }
    }

    const items = getOwn(node, "items");
    if (isSchemaObject(items) || items === true) out.items = convert(items, `${pointer}/items`, depth + 1);

    const branches = [...arrayOf(getOwn(node, "anyOf")).map((b, i) => [b, `${pointer}/anyOf/${i}`] as const),
      ...arrayOf(getOwn(node, "oneOf")).map((b, i) => [b, `${pointer}/oneOf/${i}`] as const)];
    let merged: GeminiSchema = out;
    if (branches.length > 0) {
      const converted = branches.map(([branch, at]) => convert(branch, at, depth + 1));
      const kept = converted.filter((branch) => !isNullOnly(branch));
      if (kept.length < converted.length) nullable = true;
      if (kept.length === 0) merged = mergeSchemas([out, { type: GEMINI_TYPES.null! }]);
      else if (kept.length === 1) merged = mergeSchemas([out, kept[0]!]);
      else merged = { ...out, anyOf: kept }; // explicit branches say more than a type array's

    }

    if (out.type === undefined && merged.anyOf === undefined) {
      if (merged.properties !== undefined) merged.type = GEMINI_TYPES.object!;
      else if (merged.items !== undefined) merged.type = GEMINI_TYPES.array!;
    }
    if (nullable) merged.nullable = true;
    if (notes.length > 0) merged.description = [merged.description, ...notes].filter((s) => s !== undefined && s !== "").join(" ");
    return merged;
  };

  return convert(root, "", 0);
}

function typeList(type: unknown): string[] | undefined {
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return undefined;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function withoutKeyword(node: JsonSchemaObject, keyword: string): JsonSchemaObject {
  const copy: JsonSchemaObject = {};
  for (const key of Object.keys(node)) {
    if (key !== keyword) Object.defineProperty(copy, key, { value: node[key], enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function isNullOnly(schema: GeminiSchema): boolean {
  return schema.type === GEMINI_TYPES.null && Object.keys(schema).every((k) => k === "type" || k === "description" || k === "title");
}

/**
 * One schema standing for all of `schemas` (allOf, or a union branch hoisted into its
 * parent): properties and required are united, any other keyword keeps its first value.
 */
function mergeSchemas(schemas: readonly GeminiSchema[]): GeminiSchema {
  const out: GeminiSchema = {};
  for (const schema of schemas) {
    for (const key of Object.keys(schema) as (keyof GeminiSchema)[]) {
      if (key === "properties") {
        const properties: Record<string, GeminiSchema> = { ...out.properties };
        for (const name of Object.keys(schema.properties!)) {
          if (!hasOwn(properties, name)) Object.defineProperty(properties, name, { value: schema.properties![name], enumerable: true, writable: true, configurable: true });
        }
        out.properties = properties;
      } else if (key === "required") {
        out.required = [...new Set([...(out.required ?? []), ...schema.required!])];
      } else if (key === "nullable") {
        // nullable on one side of an intersection does not make the whole nullable
        if (out.nullable === undefined) out.nullable = schema.nullable!;
        else out.nullable = out.nullable && schema.nullable!;
      } else if (out[key] === undefined) {
        (out as Record<string, unknown>)[key] = schema[key];
      }
    }
  }
  return out;
}

/** A copy with keys in EMIT_ORDER, so output bytes do not depend on the order keywords were met. */
function emit(schema: GeminiSchema): GeminiSchema {
  const out: GeminiSchema = {};
  for (const key of EMIT_ORDER) {
    if (schema[key] !== undefined) (out as Record<string, unknown>)[key] = schema[key];
  }
  return out;
}
