import { defRef, escapePointerSegment, getOwn, hasOwn, isSchemaObject, refsFrom, ROOT, setOwn, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { shortHash } from "@sluice/emit";
import { selectorSegment, translateSpecPattern, type PatternRefusal, type WithheldPath } from "@sluice/core";
import { guards } from "@sluice/core/guards";
import { MAX_SCHEMA_DEPTH } from "./max-schema-depth.ts";
import { isIdentifierName, reachedFromResponses, readOnlyNeeds, type RequestBodySchema } from "./read-only-needs.ts";
import type { Located, RefResolver, SourceDocument } from "./reference-object.ts";

/**
 * Schema Objects (OpenAPI 3.1 = JSON Schema 2020-12; 3.0 and Swagger 2.0 = an extended
 * subset of draft 4) converted to JSON Schema 2020-12 for request arguments.
 * https://spec.openapis.org/oas/v3.1.0#schema-object
 * https://spec.openapis.org/oas/v3.0.3#schema-object
 * https://swagger.io/specification/v2/#schema-object
 *
 * - every `$ref` becomes `#/$defs/<Name>`, named after the component (cycles stay refs);
 * - 3.0 `nullable` becomes a type array (or an added `null` enum member / `anyOf` branch);
 * - draft-4 boolean `exclusiveMaximum`/`exclusiveMinimum` become the numeric 2020-12 form;
 * - draft-4 `dependencies` becomes `dependentRequired` (name lists) and `dependentSchemas`;
 *   `additionalItems` beside a tuple `items` becomes the 2020-12 `items` after `prefixItems`;
 * - `enum: []` matches nothing, so the schema becomes `false` (never dropped: that would match anything);
 * - a keyword that constrains values but has no exact 2020-12 form sluice can check
 *   (`$dynamicRef`, `$recursiveRef`) refuses the schema with KEYWORD_UNSUPPORTED, naming the
 *   operation and the pointer (the generator skips the operation); see
 *   packages/core/src/unsupported-keywords.ts;
 * - `readOnly` properties (https://spec.openapis.org/oas/v3.1.0#fixed-fields-20: a read-only
 *   property SHOULD NOT be sent, and `required` on it applies to responses only) are offered,
 *   optional, where the request needs them and withheld elsewhere, read from the whole document
 *   (docs/openapi-read-only.md states the rules with the specs that need them):
 *   1. a read-only member is never required, by its schema or by any schema of its `allOf` group;
 *   2. it is withheld (reason `read_only`), except
 *   3. where every member of its `properties` is read-only and the schema, or one composing
 *      it with `allOf`, requires some of them, or an `allOf` uses it with nothing of its own
 *      beside it (PagerDuty's `Reference` base, DigitalOcean's migration `source`);
 *   4. where another branch of a `oneOf` / `anyOf` this schema is a branch of declares the
 *      same member without `readOnly`;
 *   5. where a `required` on a schema no response reaches names it;
 *   6. where the spec's own request examples send it;
 *   7. where it is an identifier of a request body's array item or reference-shaped object.
 *   a member withheld by 2 is refused in every branch, as every withheld path is;
 * - annotations a model does not need (`example(s)`, `xml`, `externalDocs`, `x-*`) are dropped;
 * - values a 2020-12 validator would reject (a non-number `minimum`, an invalid `pattern`)
 *   are dropped rather than producing a schema that does not compile;
 * - a `pattern` or `patternProperties` key the linear-time engine cannot run (lookaround other
 *   than look-aheads at the start anchor, backreferences, counts above 1000) is removed and
 *   recorded in `refusedPatterns`: it is
 *   never checked with a backtracking engine (see packages/core/src/spec-pattern.ts).
 */
export type Dialect = "2.0" | "3.0" | "3.1";

/**
 * Where a document keeps its named schemas, the ones a `$ref` is named after: an OpenAPI
 * document's `components/schemas` (3.x) or `definitions` (2.0), or, for a JSON Schema
 * bundle that is no OpenAPI document (the MCP generator's: each tool's definitions hoisted
 * into one root `$defs`), `$defs`.
 */
export type NamedSchemas = "openapi" | "$defs";

export interface SchemaConverterOptions {
  /** Default `openapi`: `components/schemas`, or `definitions` in 2.0. */
  namedSchemas?: NamedSchemas;
  /**
   * The request bodies the read-only rule reads (docs/openapi-read-only.md: the schemas a
   * request sends, and the examples it gives of them); by default every operation's, found
   * under the document's `paths`.
   */
  requestBodies?: readonly RequestBodySchema[];
}

const SCALAR_KEYWORDS = new Set([
  "title", "description", "default", "format", "const", "deprecated", "writeOnly", "uniqueItems",
  "contentMediaType", "contentEncoding",
]);
const NUMBER_KEYWORDS = new Set(["minimum", "maximum"]);
const COUNT_KEYWORDS = new Set(["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"]);
const SINGLE_SCHEMA_KEYWORDS = new Set([
  "additionalProperties", "unevaluatedProperties", "propertyNames", "contains", "not", "if", "then", "else", "unevaluatedItems",
]);
const SCHEMA_LIST_KEYWORDS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_MAP_KEYWORDS = new Set(["patternProperties", "dependentSchemas"]);
const TYPE_NAMES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);
/** Constraining keywords with no exact form sluice can check: the schema is refused, not widened. */
const UNSUPPORTED_KEYWORDS = new Set(["$dynamicRef", "$recursiveRef"]);

/** Where converted members are recorded when the generator withholds them. */
export type WithheldSink = WithheldPath[];

/** Where a schema being converted sits: its argument path and its place in the document. */
interface Site {
  document: SourceDocument;
  /** Argument path (`body.items`) or `Type.member`, for withheld entries. */
  path: string;
  withheld: WithheldSink;
  /** JSON pointer of the node in `document`. */
  pointer: string;
  /** Inline levels below the schema the conversion started at. */
  depth: number;
}

/**
 * Inline nesting a conversion follows (refs do not count: each referenced schema is
 * converted from a work list, not by recursion). As deep as a loaded document may nest,
 * so only a document built in memory past that limit meets it.
 */
export const MAX_INLINE_DEPTH = MAX_SCHEMA_DEPTH;

/** Members a request schema requires without declaring them: declared (an open object) or the requirement dropped (`closed`: the object forbids other members). */
export interface UndeclaredRequired {
  operation: string;
  pointer: string;
  members: string[];
  closed: boolean;
}

/** A schema that is one branch of a union or an `allOf`: what it requires, another part may declare. */
const BRANCH_POINTER = /\/(?:allOf|anyOf|oneOf)\/\d+$/;
/** What the model reads of a member the spec requires without declaring it. */
export const UNDECLARED_REQUIRED = "Required by the API; the spec does not declare this member, so its type is not known.";

export class SchemaConverter {
  /** Converted definitions by `$defs` name (only those some conversion reached). */
  readonly defs = new Map<string, JsonSchemaObject>();
  /** Definitions whose conversion failed (e.g. an unmapped external ref), by name. */
  readonly failed = new Map<string, SluiceError>();
  readonly withheldMembers = new Map<string, WithheldPath[]>();
  /** Patterns removed because they are not ECMA-262 or need a backtracking engine, in the order met. */
  readonly refusedPatterns: PatternRefusal[] = [];
  /**
   * Members a request schema requires without declaring them, declared here (see
   * `declareRequiredMembers`), by the schema's place: said once at generate.
   */
  readonly undeclaredRequired = new Map<string, UndeclaredRequired>();
  /** The operation being converted, named in refusals (a shared type's refusal names the first that reached it). */
  operation = "";
  /** Converting the siblings of a 3.1 `$ref`: the target may declare what they require. */
  private inRefSiblings = false;
  /**
   * Whether any conversion so far wrote an `unevaluatedItems`: the one keyword of
   * packages/core/src/unsupported-keywords.ts a converted schema can hold (the dynamic
   * references are refused while converting), so until then no tool needs searching.
   */
  wroteUnevaluatedItems = false;
  /** What the read-only rule reads from the whole document (computed on first need). */
  private readOnlyStructure: ReadOnlyStructure | undefined;
  private hasReadOnly: boolean | undefined;
  private readonly nameOfKey = new Map<string, string>();
  private readonly patternVerdicts = new Map<string, ReturnType<typeof translateSpecPattern>>();
  /** Discriminator bases by location key: the union each stands for, or null when it is none. */
  private readonly unions = new Map<string, JsonSchemaObject | null>();
  /** Components of the main document (location key) -> the location keys their `allOf` refers to. */
  private parentsOf: Map<string, string[]> | undefined;
  private readonly keyOfName = new Map<string, string>();
  /**
   * Referenced schemas named but not yet converted. A `$ref` is answered with its name at
   * once and its target converted later from this list, so a chain of 20,000 referenced
   * schemas is 20,000 iterations, never 20,000 nested calls.
   */
  private readonly pending: Array<{ name: string; located: Located }> = [];
  /** `$defs` names by the Located the resolver answered (see `def`). */
  private readonly nameOfPlace = new WeakMap<Located, string>();
  /** `defRef` of each `$defs` name, made once. */
  private readonly refOfName = new Map<string, string>();
  /** `convertShared` results by source object, then variant and place. */
  private readonly shared = new WeakMap<object, SharedConversion[]>();

  /** The pointer (with a final `/`) under which the document's named schemas sit. */
  private readonly componentsAt: string;
  private readonly bundle: boolean;
  /**
   * Whether `discriminator` is OpenAPI's Discriminator Object, which chooses a union's
   * branch. In plain JSON Schema (a bundle: MCP input schemas) it is no validation keyword,
   * at most an annotation of the tool's own meaning, so it is dropped like any unknown
   * keyword: a tool must accept exactly what its input schema accepts.
   */
  private readonly openApiDiscriminator: boolean;
  private readonly requestBodies: readonly RequestBodySchema[] | undefined;

  constructor(
    private readonly resolver: RefResolver,
    private readonly dialect: Dialect,
    options: SchemaConverterOptions = {},
  ) {
    this.bundle = options.namedSchemas === "$defs";
    this.openApiDiscriminator = !this.bundle;
    this.componentsAt = this.bundle ? "/$defs/" : dialect === "2.0" ? "/definitions/" : "/components/schemas/";
    this.requestBodies = options.requestBodies;
    // Component names first, in sorted order, so a component's `$defs` name never depends
    // on which operation happens to reach it first.
    const components = this.components();
    if (typeof components === "object" && components !== null) {
      for (const name of Object.keys(components).sort()) this.nameFor(`#${this.componentsAt}${escapePointerSegment(name)}`, name);
    }
  }

  /** The object holding the main document's named schemas, if it has one. */
  private components(): unknown {
    const root = this.resolver.main.root;
    return this.bundle ? getOwn(root, "$defs") : this.dialect === "2.0" ? getOwn(root, "definitions") : getOwn(getOwn(root, "components"), "schemas");
  }

  /**
   * Convert a schema reached at `path` (an argument path, or `Type.member`), found at
   * `pointer` in `document`, and every schema it references.
   */
  convert(node: unknown, document: SourceDocument, path: string, withheld: WithheldSink, pointer = ""): JsonSchemaObject | boolean {
    try {
      return this.inline(node, { document, path, withheld, pointer, depth: 0 });
    } finally {
      this.drain();
    }
  }

  /**
   * `convert` of a node that many operations reach at the same place (a shared parameter,
   * a body schema), built by `node()` from `source` alone: converted once, and the same
   * result (an object every tool that reaches it shares, as tools share `$defs`) given
   * again for the same `source`, `variant`, document and pointer. Kubernetes' 1,123
   * operations convert the same few dozen parameters about 8,000 times.
   *
   * A conversion depends on the node and its place only: what it references is named, and
   * converted once, by `drain`. What it records is replayed on reuse as converting again
   * would record it: the withheld members under this `path` (their paths all extend the
   * one the conversion started from) and the refused patterns under this operation.
   */
  convertShared(source: object, variant: string, prepare: (source: object) => unknown, document: SourceDocument, path: string, withheld: WithheldSink, pointer: string): JsonSchemaObject | boolean {
    // A source is nearly always met at one place: a short list, compared by identity, and no key string per call.
    let places = this.shared.get(source);
    let known: SharedConversion | undefined;
    for (const entry of places ?? []) if (entry.pointer === pointer && entry.variant === variant && entry.document === document) known = entry;
    if (known !== undefined) {
      for (const entry of known.withheld) withheld.push({ ...entry, path: path + entry.path });
      for (const refusal of known.refusals) this.refusedPatterns.push({ ...refusal, operation: this.operation });
      return known.schema;
    }
    const withheldFrom = withheld.length;
    const refusedFrom = this.refusedPatterns.length;
    let schema: JsonSchemaObject | boolean;
    let refusals: PatternRefusal[];
    try {
      schema = this.inline(prepare(source), { document, path, withheld, pointer, depth: 0 });
      // Refusals met converting the references are theirs, recorded once: only the inline part's are replayed.
      refusals = this.refusedPatterns.slice(refusedFrom);
    } finally {
      this.drain();
    }
    const recorded = withheld.slice(withheldFrom);
    if (recorded.every((entry) => entry.path.startsWith(path))) {
      if (places === undefined) this.shared.set(source, (places = []));
      places.push({ variant, document, pointer, schema, withheld: recorded.map((entry) => ({ ...entry, path: entry.path.slice(path.length) })), refusals });
    }
    return schema;
  }

  /**
   * Whether a spec pattern stays in the generated schema: validators compile it as a Unicode
   * ECMA-262 expression, and sluice runs it on a linear-time engine; one that is neither
   * valid nor runnable there is dropped and recorded (an invalid one has always been dropped).
   */
  private runnablePattern(pattern: string, pointer: string): boolean {
    // Compiling is the costly part (GitHub's 771 operations repeat a few hundred patterns);
    // the verdict depends on the text alone, and each refusal is still recorded where met.
    let verdict = this.patternVerdicts.get(pattern);
    if (verdict === undefined) this.patternVerdicts.set(pattern, (verdict = translateSpecPattern(pattern)));
    if (verdict.ok) return true;
    this.refusedPatterns.push({ code: verdict.code, operation: this.operation, pointer, pattern, reason: verdict.reason });
    return false;
  }

  /** Converts every named-but-pending referenced schema; converting one may name more. */
  private drain(): void {
    for (let next = this.pending.pop(); next !== undefined; next = this.pending.pop()) {
      const { name, located } = next;
      const withheld: WithheldPath[] = [];
      try {
        const converted = this.inline(located.value, { document: located.document, path: name, withheld, pointer: located.pointer, depth: 0 });
        this.defs.set(name, typeof converted === "boolean" ? (converted ? {} : { not: {} }) : converted);
        if (withheld.length > 0) this.withheldMembers.set(name, withheld);
      } catch (error) {
        if (!(error instanceof SluiceError)) throw error;
        this.defs.delete(name);
        this.failed.set(name, error);
      }
    }
  }

  /** `inline` of a subschema of the node at `at`, `suffix` below it (a method, not a closure made per node). */
  private below(at: Site, child: unknown, suffix: string, childPath = at.path): JsonSchemaObject | boolean {
    return this.inline(child, { document: at.document, path: childPath, withheld: at.withheld, pointer: at.pointer + suffix, depth: at.depth + 1 });
  }

  /** One schema and what it holds inline; references are named here and converted by `drain`. */
  private inline(node: unknown, at: Site): JsonSchemaObject | boolean {
    const { document, path, withheld, pointer, depth } = at;
    if (typeof node === "boolean") return node;
    if (typeof node !== "object" || node === null || Array.isArray(node)) return {};
    if (depth > MAX_INLINE_DEPTH) {
      throw new SluiceError("SPEC_INVALID", `The schema at ${pointer || "/"} nests deeper than ${MAX_INLINE_DEPTH} levels inline; no API description needs that many.`, { pointer });
    }
    const source = node as Record<string, unknown>;
    const ref = getOwn(source, "$ref");
    if (typeof ref === "string") {
      // A discriminator base stands for its subtypes everywhere but in a subtype's own
      // `allOf` (where it is the inherited part): there it stays a plain reference.
      const union = /\/allOf\/\d+$/.test(pointer) || !this.openApiDiscriminator ? undefined : this.polymorphicUnion(ref, document, pointer + "/$ref");
      const target = union ?? { $ref: this.refTo(this.def(ref, document, pointer + "/$ref")) };
      if (this.dialect !== "3.1") return target; // siblings of $ref are ignored before 3.1
      const { $ref: _ignored, ...siblings } = source;
      const outer = this.inRefSiblings;
      this.inRefSiblings = true;
      let rest: JsonSchemaObject | boolean;
      try {
        rest = this.inline(siblings, { ...at, depth: depth + 1 });
      } finally {
        this.inRefSiblings = outer;
      }
      if (typeof rest !== "object" || Object.keys(rest).length === 0) return target;
      return union === undefined ? { ...target, ...rest } : { allOf: [target, rest] };
    }

    // Every key `put` writes is a keyword this converter knows (never `__proto__`: spec-named
    // keys go through Object.fromEntries or setOwn), so a plain store is safe, and cheaper
    // than defineProperty.
    const out: JsonSchemaObject = {};
    let nullable = false;
    let exclusiveMaximum: boolean | undefined;
    let exclusiveMinimum: boolean | undefined;
    let additionalItems: JsonSchemaObject | boolean | undefined;
    let emptyEnum = false;
    // draft-4 `dependencies`, split by kind; merged with any 2020-12 `dependentRequired`/`dependentSchemas` after the loop.
    // Maps, then Object.fromEntries: a property named `__proto__` stays an own key.
    // Made when first needed: most of a spec's schema nodes have none, and a converted
    // document is hundreds of thousands of nodes.
    let dependentRequired: Map<string, string[]> | undefined;
    let dependentSchemas: Map<string, JsonSchemaObject | boolean> | undefined;
    let removed: Set<string> | undefined;

    // Keys, then a read: no [key, value] pair per keyword of every node (an own `__proto__` key reads as its own value).
    // Indexed loops here and below: most conversions run unoptimised, where a for-of makes an iterator object.
    const keys = Object.keys(source);
    for (let k = 0; k < keys.length; k += 1) {
      const key = keys[k]!;
      const value = source[key];
      if (key === "nullable" || key === "x-nullable") nullable ||= value === true;
      else if (key.startsWith("x-")) continue;
      else if (key === "type") {
        const types = typeof value === "string" ? (value === "file" ? ["string"] : TYPE_NAMES.has(value) ? [value] : []) : (Array.isArray(value) ? value : [value]).flatMap((t) => (t === "file" ? ["string"] : TYPE_NAMES.has(t as string) ? [t as string] : []));
        if (value === "file" && !hasOwn(source, "format")) out.format = "binary";
        if (types.length === 1) out.type = types[0];
        else if (types.length > 1) out.type = [...new Set(types)];
      } else if (key === "properties") {
        if (typeof value !== "object" || value === null) continue;
        const members = value as Record<string, unknown>;
        const names = Object.keys(members);
        // The discriminator's property is how a request says which type it sends: never withheld,
        // even when marked read-only (Azure marks `type` so), or no branch could be chosen.
        const discriminator = this.openApiDiscriminator ? getOwn(source, "discriminator") : undefined;
        const tagName = typeof discriminator === "string" ? discriminator : getOwn(discriminator, "propertyName");
        let readOnly: Set<string> | undefined;
        for (let n = 0; n < names.length; n += 1) if (names[n] !== tagName && this.isReadOnly(members[names[n]!], document)) (readOnly ??= new Set()).add(names[n]!);
        const offered = readOnly === undefined ? EMPTY : this.readOnlyOffered(readOnly, names.length, `${document.id}#${pointer}`, source);
        // Spec-named keys: `__proto__` is stored as an own property (setOwn), any other plainly, in the spec's order.
        const properties: Record<string, JsonSchemaObject | boolean> = {};
        for (let n = 0; n < names.length; n += 1) {
          const name = names[n]!;
          // Recorded as a selector reads it: a name holding selector syntax is quoted (`body."@odata.type"`).
          const memberPath = `${path}.${selectorSegment(name)}`;
          // A read-only member is never required here (its `required` is for responses).
          if (readOnly?.has(name) === true) {
            (removed ??= new Set()).add(name);
            if (!offered.has(name)) {
              withheld.push({ path: memberPath, reason: "read_only" });
              continue;
            }
          }
          const converted = this.below(at, members[name], `/properties/${escapePointerSegment(name)}`, memberPath);
          if (name === "__proto__") setOwn(properties, name, converted);
          else properties[name] = converted;
        }
        out.properties = properties;
      } else if (key === "required") {
        if (Array.isArray(value)) {
          const notRequired = this.readOnlyNotRequired(`${document.id}#${pointer}`);
          const names = value.filter((name): name is string => typeof name === "string");
          const kept = notRequired === undefined ? names : names.filter((name) => !notRequired.has(name));
          if (kept.length > 0 || kept.length === names.length) out.required = kept;
        }
      } else if (key === "items") {
        if (Array.isArray(value)) out.prefixItems = value.map((item, index) => this.below(at, item, `/items/${index}`));
        else out.items = this.below(at, value, "/items");
      } else if (key === "additionalItems") {
        additionalItems = this.below(at, value, "/additionalItems");
      } else if (key === "dependentRequired" || key === "dependencies") {
        // https://json-schema.org/draft/2020-12/json-schema-validation#section-6.5.4; draft 4 section 5.4.5
        if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
        for (const [name, dependency] of Object.entries(value)) {
          if (Array.isArray(dependency)) {
            dependentRequired ??= new Map();
            dependentRequired.set(name, [...new Set([...(dependentRequired.get(name) ?? []), ...dependency.filter((n): n is string => typeof n === "string")])]);
          } else if (key === "dependencies" && (typeof dependency === "boolean" || isSchemaObject(dependency))) {
            (dependentSchemas ??= new Map()).set(name, this.below(at, dependency, `/dependencies/${escapePointerSegment(name)}`));
          }
        }
      } else if (UNSUPPORTED_KEYWORDS.has(key)) {
        if (guards.unsupportedKeywords) {
          const at = `${pointer}/${escapePointerSegment(key)}`;
          throw new SluiceError("KEYWORD_UNSUPPORTED", `${this.operation || "(shared type)"} ${at}: ${key} resolves by the evaluation path, which sluice cannot check exactly; write it as a $ref to the definition it means (the schema is refused rather than widened).`, { pointer: at });
        }
      } else if (SINGLE_SCHEMA_KEYWORDS.has(key)) {
        out[key] = this.below(at, value, `/${key}`, key === "additionalProperties" ? `${path}.*` : path);
        if (key === "unevaluatedItems") this.wroteUnevaluatedItems = true;
      } else if (SCHEMA_LIST_KEYWORDS.has(key)) {
        if (Array.isArray(value) && value.length > 0) out[key] = value.map((branch, index) => this.below(at, branch, `/${key}/${index}`));
      } else if (SCHEMA_MAP_KEYWORDS.has(key)) {
        if (typeof value !== "object" || value === null) continue;
        const entries = Object.entries(value).filter(([pattern]) => key !== "patternProperties" || this.runnablePattern(pattern, `${pointer}/patternProperties/${escapePointerSegment(pattern)}`));
        out[key] = Object.fromEntries(entries.map(([name, member]) => [name, this.below(at, member, `/${key}/${escapePointerSegment(name)}`)]));
      } else if (key === "exclusiveMaximum" || key === "exclusiveMinimum") {
        if (typeof value === "boolean") {
          if (key === "exclusiveMaximum") exclusiveMaximum = value;
          else exclusiveMinimum = value;
        } else if (isFiniteNumber(value)) out[key] = value;
      } else if (NUMBER_KEYWORDS.has(key)) {
        if (isFiniteNumber(value)) out[key] = value;
      } else if (COUNT_KEYWORDS.has(key)) {
        if (Number.isInteger(value) && (value as number) >= 0) out[key] = value;
      } else if (key === "multipleOf") {
        if (isFiniteNumber(value) && value > 0) out[key] = value;
      } else if (key === "pattern") {
        if (typeof value === "string" && this.runnablePattern(value, `${pointer}/pattern`)) out[key] = value;
      } else if (key === "enum") {
        if (Array.isArray(value) && value.length > 0) out[key] = [...value];
        else if (Array.isArray(value)) emptyEnum = true;
      } else if (key === "discriminator" && this.openApiDiscriminator) {
        const discriminator = this.discriminator(value, document, `${pointer}/discriminator`);
        if (discriminator !== undefined) out[key] = discriminator;
      } else if (SCALAR_KEYWORDS.has(key)) {
        if (key === "uniqueItems" || key === "deprecated" || key === "writeOnly" ? typeof value === "boolean" : true) out[key] = value;
      }
      // Everything else (example, examples, xml, externalDocs, readOnly, $schema, $id, nested
      // $defs, unknown keywords) is dropped: annotations or keywords a request schema does not need.
    }

    if (emptyEnum) return nullable && this.dialect !== "3.1" ? { enum: [null] } : false;
    // additionalItems applies only beside a tuple `items` (draft 4 section 5.3.1); otherwise it has no effect.
    if (additionalItems !== undefined && Array.isArray(out.prefixItems) && !hasOwn(out, "items")) out.items = additionalItems;
    // A read-only member is never sent (it is withheld), so it cannot be a dependency either, as in `required`.
    if (dependentRequired !== undefined) {
      const dependents = [...dependentRequired].map(([name, names]): [string, string[]] => [name, names.filter((n) => removed?.has(n) !== true)]).filter(([, names]) => names.length > 0);
      if (dependents.length > 0) out.dependentRequired = Object.fromEntries(dependents);
    }
    if (dependentSchemas !== undefined && dependentSchemas.size > 0) {
      const merged = new Map<string, unknown>(isSchemaObject(out.dependentSchemas) ? Object.entries(out.dependentSchemas) : []);
      // Both forms naming one property: the value must satisfy both.
      for (const [name, dependency] of dependentSchemas) merged.set(name, merged.has(name) ? { allOf: [merged.get(name), dependency] } : dependency);
      out.dependentSchemas = Object.fromEntries(merged);
    }
    if (out.discriminator !== undefined) this.tagBranches(out, source, document);
    if (removed !== undefined && removed.size > 0 && Array.isArray(out.required)) {
      const gone = removed;
      const required = (out.required as string[]).filter((name) => !gone.has(name));
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
    if (out.properties !== undefined && Array.isArray(out.required) && !this.inRefSiblings) this.declareRequiredMembers(out, document, pointer);
    if (exclusiveMaximum === true && isFiniteNumber(out.maximum)) {
      out.exclusiveMaximum = out.maximum;
      delete out.maximum;
    }
    if (exclusiveMinimum === true && isFiniteNumber(out.minimum)) {
      out.exclusiveMinimum = out.minimum;
      delete out.minimum;
    }
    return nullable && this.dialect !== "3.1" ? withNull(out) : out;
  }

  /**
   * A member an object's `required` names and its `properties` do not declare (a webhook
   * body requiring `team_id` it never lists). JSON Schema reads it two ways, and so does this:
   * - the object admits other members (no `additionalProperties: false`): it must carry the
   *   member, of any type. Dropped, the tool could never make the call the API demands; so
   *   the member is declared, required, accepting any JSON value;
   * - the object forbids other members: no value satisfies it, the spec contradicts itself
   *   (Jira's ScreenTypes requires `defaultScreen` and declares `default`). The declared
   *   members win and the requirement is dropped.
   * Either is said once at generate. Left alone where the schema may declare the member
   * elsewhere: a union or `allOf` branch (the parent or a sibling may), beside a composition
   * or a 3.1 `$ref`, or where `patternProperties` or an `additionalProperties` schema types
   * undeclared members.
   */
  private declareRequiredMembers(out: JsonSchemaObject, document: SourceDocument, pointer: string): void {
    if (BRANCH_POINTER.test(pointer) || out.allOf !== undefined || out.anyOf !== undefined || out.oneOf !== undefined || out.patternProperties !== undefined || isSchemaObject(out.additionalProperties)) return;
    const properties = out.properties as Record<string, JsonSchemaObject | boolean>;
    const missing = (out.required as string[]).filter((name) => !hasOwn(properties, name));
    if (missing.length === 0) return;
    const closed = out.additionalProperties === false;
    if (closed) {
      const kept = (out.required as string[]).filter((name) => hasOwn(properties, name));
      if (kept.length > 0) out.required = kept;
      else delete out.required;
    } else for (const name of missing) setOwn(properties, name, { description: UNDECLARED_REQUIRED });
    const key = `${document.id}#${pointer}`;
    if (!this.undeclaredRequired.has(key)) this.undeclaredRequired.set(key, { operation: this.operation, pointer, members: missing, closed });
  }

  /**
   * The `$defs` name of a referenced schema (`ref` written at `at`). Its conversion is
   * queued on first use and done by `drain`, never by recursion.
   */
  private def(ref: string, from: SourceDocument, at: string): string {
    const located = this.resolver.resolve(ref, from);
    // The resolver gives the same Located for the same ref: a place already named and converted is answered at once.
    const done = this.nameOfPlace.get(located);
    if (done !== undefined && (this.defs.has(done) || this.failed.has(done))) return done;
    if (located.document.id === "" && located.pointer === "") {
      // `#` is the OpenAPI document itself, not a Schema Object: converting it would drop
      // every keyword it does not know and leave `{}`, a schema that accepts anything.
      throw new SluiceError("SPEC_INVALID", `$ref "${ref}" at ${at} points at the whole document, which is not a Schema Object; point it at a schema (e.g. #/components/schemas/Name).`, { pointer: at });
    }
    const value = located.value;
    if (typeof value !== "boolean" && (typeof value !== "object" || value === null || Array.isArray(value))) {
      throw new SluiceError("SPEC_INVALID", `$ref "${ref}" at ${at} points at ${Array.isArray(value) ? "an array" : `a ${value === null ? "null" : typeof value}`}, not at a Schema Object.`, { pointer: at });
    }
    const key = `${located.document.id}#${located.pointer}`;
    const known = this.nameOfKey.get(key);
    if (known !== undefined && (this.defs.has(known) || this.failed.has(known))) {
      this.nameOfPlace.set(located, known);
      return known;
    }
    const name = known ?? this.nameFor(key, this.bundle ? bundleName(located.pointer) : defaultName(located.pointer));
    this.nameOfPlace.set(located, name);
    this.defs.set(name, {}); // placeholder until drained: cycles come back here as refs
    this.pending.push({ name, located });
    return name;
  }

  /** The `$ref` to a `$defs` name (defRef escapes it: a regex per call). */
  private refTo(name: string): string {
    let ref = this.refOfName.get(name);
    if (ref === undefined) this.refOfName.set(name, (ref = defRef(name)));
    return ref;
  }

  /** The first failed definition reachable from these arguments, if any. */
  failureReachedFrom(properties: Record<string, JsonSchemaObject>): SluiceError | undefined {
    // Most documents have no failed definition: then none is reachable, and nothing need be walked.
    if (this.failed.size === 0) return undefined;
    const queue = refsFrom({ type: "object", properties }, "", true).filter((r) => r !== ROOT);
    const seen = new Set<string>();
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const failure = this.failed.get(name);
      if (failure !== undefined) return failure;
      const body = this.defs.get(name);
      if (isSchemaObject(body)) for (const target of refsFrom(body, `/$defs/${name}`, false)) if (target !== ROOT) queue.push(target);
    }
    return undefined;
  }

  /**
   * The read-only members of one `properties` map (at `key`, `document#pointer`) that are
   * offered all the same (see the file header): all of them where every member is
   * read-only, else those another branch of a union this schema is a branch of offers.
   */
  private readOnlyOffered(readOnly: ReadonlySet<string>, members: number, key: string, source: object): ReadonlySet<string> {
    if (readOnly.size === 0) return readOnly;
    this.readOnlyStructure ??= readOnlyStructure(this.resolver, (member, document) => this.isReadOnly(member, document), this.requestBodies);
    const structure = this.readOnlyStructure;
    const required = getOwn(source, "required");
    const own = Array.isArray(required) ? required : [];
    const requiredHere = [...own, ...(structure.requiredByComposers.get(key) ?? [])].filter((name): name is string => typeof name === "string" && readOnly.has(name));
    if (readOnly.size === members && (requiredHere.length > 0 || structure.composedAlone.has(key))) return readOnly;
    // Required where no response reaches the `required`: a request's own requirement (rule 5).
    const offered = new Set<string>([...(structure.reachedFromResponses.has(source) ? [] : own), ...(structure.requiredByRequests.get(key) ?? [])].filter((name): name is string => typeof name === "string" && readOnly.has(name)));
    for (const name of structure.offeredInUnions.get(key) ?? EMPTY) offered.add(name);
    for (const name of structure.sentByExamples.get(key) ?? EMPTY) if (readOnly.has(name)) offered.add(name);
    if (structure.identifierHolders.has(key)) for (const name of readOnly) if (isIdentifierName(name)) offered.add(name);
    return offered;
  }

  /**
   * Names a `required` at `document#pointer` lists that are read-only members of the `allOf`
   * group it belongs to: required of a response only (rule 1 of the file header, across parts).
   */
  private readOnlyNotRequired(key: string): ReadonlySet<string> | undefined {
    if (!this.documentHasReadOnly()) return undefined;
    this.readOnlyStructure ??= readOnlyStructure(this.resolver, (member, document) => this.isReadOnly(member, document), this.requestBodies);
    return this.readOnlyStructure.notRequired.get(key);
  }

  /** Whether the main document marks anything `readOnly: true` (most do not: then no structure is computed for them). */
  private documentHasReadOnly(): boolean {
    if (this.hasReadOnly === undefined) this.hasReadOnly = containsReadOnly(this.resolver.main.root);
    return this.hasReadOnly;
  }

  /** A property withheld from requests: `readOnly: true` on it or on the schema it refers to. */
  private isReadOnly(member: unknown, document: SourceDocument): boolean {
    if (getOwn(member, "readOnly") === true) return true;
    const ref = getOwn(member, "$ref");
    if (typeof ref !== "string") return false;
    try {
      return getOwn(this.resolver.resolve(ref, document).value, "readOnly") === true;
    } catch {
      return false; // the ref itself reports its problem when converted
    }
  }

  /** OpenAPI Discriminator Object (2.0: the property name alone); mapping values point at `$defs`. */
  private discriminator(value: unknown, document: SourceDocument, at: string): JsonSchemaObject | undefined {
    if (typeof value === "string") return { propertyName: value };
    const propertyName = getOwn(value, "propertyName");
    if (typeof propertyName !== "string") return undefined;
    const mapping = getOwn(value, "mapping");
    if (typeof mapping !== "object" || mapping === null) return { propertyName };
    const prefix = `#${this.componentsAt}`;
    const entries = Object.entries(mapping).flatMap(([tag, target]): [string, string][] => {
      if (typeof target !== "string") return [];
      try {
        // A mapping value is a ref or a bare schema name; a dangling or external one is dropped
        // (never fetched; the discriminator is advisory, `oneOf` still says what is valid).
        return [[tag, this.refTo(this.def(target.includes("#") ? target : `${prefix}${escapePointerSegment(target)}`, document, `${at}/mapping/${escapePointerSegment(tag)}`))]];
      } catch (error) {
        if (error instanceof SluiceError && (error.code === "UNRESOLVED_REF" || error.code === "EXTERNAL_REF")) return [];
        throw error;
      }
    });
    return entries.length > 0 ? { propertyName, mapping: Object.fromEntries(entries) } : { propertyName };
  }

  /**
   * Discriminated unions, made to select their branch by the tag as OpenAPI says
   * (https://spec.openapis.org/oas/v3.1.0#discriminator-object): each `oneOf`/`anyOf` branch
   * that refers to a schema requires the discriminator property with the tag values that
   * choose it: the mapping keys that point at it, or, when none does, its component name
   * (the implicit mapping). Without this, a body valid for one branch of open objects also
   * matches the others and fails "must match exactly one schema". Inline branches have no
   * name to be chosen by and are left as they are.
   */
  private tagBranches(out: JsonSchemaObject, source: Record<string, unknown>, document: SourceDocument): void {
    const discriminator = getOwn(source, "discriminator");
    const propertyName = typeof discriminator === "string" ? discriminator : getOwn(discriminator, "propertyName");
    if (typeof propertyName !== "string") return;
    const mapped = this.mappingTargets(getOwn(discriminator, "mapping"), document);
    for (const keyword of ["oneOf", "anyOf"] as const) {
      const raw = getOwn(source, keyword);
      const converted = out[keyword];
      if (!Array.isArray(raw) || !Array.isArray(converted) || raw.length !== converted.length) continue;
      out[keyword] = converted.map((branch, index) => {
        const ref = getOwn(raw[index], "$ref");
        if (typeof ref !== "string" || typeof branch !== "object") return branch;
        const key = this.locationKey(ref, document);
        if (key === undefined) return branch;
        const tags = mapped.filter((entry) => entry.key === key).map((entry) => entry.tag);
        if (tags.length === 0) {
          const implicit = this.implicitTag(key, ref, document, propertyName, [source]);
          if (implicit === undefined || mapped.some((entry) => entry.tag === implicit)) return branch;
          tags.push(implicit);
        }
        return withTag(branch, propertyName, tags);
      });
    }
  }

  /**
   * A reference to a discriminator base (a schema with a discriminator and no union of its
   * own, the allOf hierarchy of OpenAPI 3 and of Swagger 2.0) as the union of the schemas it
   * stands for, each required to carry its tag: the mapping's targets, or, without a
   * mapping, the base itself and every component that inherits it through `allOf`, each
   * tagged with its own name. Undefined when `ref` is no such base.
   */
  private polymorphicUnion(ref: string, document: SourceDocument, at: string): JsonSchemaObject | undefined {
    let located: Located;
    try {
      located = this.resolver.resolve(ref, document);
    } catch {
      return undefined; // the plain reference reports the problem
    }
    const base = located.value;
    const discriminator = getOwn(base, "discriminator");
    if (discriminator === undefined || getOwn(base, "oneOf") !== undefined || getOwn(base, "anyOf") !== undefined) return undefined;
    const propertyName = typeof discriminator === "string" ? discriminator : getOwn(discriminator, "propertyName");
    if (typeof propertyName !== "string") return undefined;
    const baseKey = `${located.document.id}#${located.pointer}`;
    const known = this.unions.get(baseKey);
    if (known !== undefined) return known === null ? undefined : structuredClone(known);
    const union = this.unionOf(located, ref, document, propertyName, at);
    this.unions.set(baseKey, union ?? null);
    return union === undefined ? undefined : structuredClone(union);
  }

  private unionOf(located: Located, ref: string, document: SourceDocument, propertyName: string, at: string): JsonSchemaObject | undefined {
    const baseKey = `${located.document.id}#${located.pointer}`;
    const discriminator = getOwn(located.value, "discriminator");
    const mapped = this.mappingTargets(getOwn(discriminator, "mapping"), located.document);
    const targets = new Map<string, { ref: string; document: SourceDocument; tags: string[] }>();
    if (mapped.length > 0) {
      for (const { key, tag, ref: target, document: from } of mapped) {
        const known = targets.get(key);
        if (known === undefined) targets.set(key, { ref: target, document: from, tags: [tag] });
        else known.tags.push(tag);
      }
    } else {
      const inheritors = this.inheritorsOf(baseKey);
      if (inheritors.length === 0) return undefined; // a discriminator nobody inherits selects nothing
      for (const { key, ref: target, document: from } of [{ key: baseKey, ref, document }, ...inheritors]) {
        const name = this.implicitTag(key, target, from, propertyName, [located.value]);
        if (name !== undefined) targets.set(key, { ref: target, document: from, tags: [name] });
        // The base whose own name is no tag is abstract; a subtype whose tag cannot be told
        // would have its bodies refused by a union, so then there is no union.
        else if (key !== baseKey) return undefined;
      }
    }
    if (targets.size === 0) return undefined;
    const branches = [...targets.values()].map((target) => withTag({ $ref: this.refTo(this.def(target.ref, target.document, at)) }, propertyName, target.tags));
    return { oneOf: branches };
  }

  /**
   * The tag that chooses a schema when no mapping names it: its `x-ms-discriminator-value`
   * (Azure's specs and AutoRest set the tag that way), else its component name (OpenAPI's
   * implicit mapping). Undefined when that value is one the tag property itself refuses,
   * on the schema or on the base: the spec then names its tags some other way, and
   * requiring the name would make every body of that branch invalid.
   */
  private implicitTag(key: string, ref: string, document: SourceDocument, propertyName: string, bases: readonly unknown[]): string | undefined {
    let target: Located;
    try {
      target = this.resolver.resolve(ref, document);
    } catch {
      return undefined;
    }
    const declared = getOwn(target.value, "x-ms-discriminator-value");
    const tag = typeof declared === "string" ? declared : componentName(key);
    if (tag === undefined) return undefined;
    const admits = (owner: unknown, from: SourceDocument, depth: number): boolean => {
      let member = getOwn(getOwn(owner, "properties"), propertyName);
      const memberRef = getOwn(member, "$ref");
      if (typeof memberRef === "string") {
        try {
          member = this.resolver.resolve(memberRef, from).value;
        } catch {
          member = undefined;
        }
      }
      const allowed = getOwn(member, "enum");
      if (Array.isArray(allowed) && !allowed.includes(tag)) return false;
      if (typeof member === "object" && member !== null && hasOwn(member, "const") && getOwn(member, "const") !== tag) return false;
      const parts = getOwn(owner, "allOf");
      if (!Array.isArray(parts) || depth > 8) return true;
      return parts.every((part) => {
        const partRef = getOwn(part, "$ref");
        if (typeof partRef !== "string") return admits(part, from, depth + 1);
        try {
          const resolved = this.resolver.resolve(partRef, from);
          return admits(resolved.value, resolved.document, depth + 1);
        } catch {
          return true;
        }
      });
    };
    if (!admits(target.value, target.document, 0) || !bases.every((base) => admits(base, document, 0))) return undefined;
    return tag;
  }

  /** Discriminator mapping entries whose target resolves, as the target's location key. */
  private mappingTargets(mapping: unknown, document: SourceDocument): { tag: string; key: string; ref: string; document: SourceDocument }[] {
    if (typeof mapping !== "object" || mapping === null) return [];
    const prefix = `#${this.componentsAt}`;
    return Object.entries(mapping).flatMap(([tag, target]) => {
      if (typeof target !== "string") return [];
      const ref = target.includes("#") ? target : `${prefix}${escapePointerSegment(target)}`;
      const key = this.locationKey(ref, document);
      return key === undefined ? [] : [{ tag, key, ref, document }];
    });
  }

  private locationKey(ref: string, document: SourceDocument): string | undefined {
    try {
      const located = this.resolver.resolve(ref, document);
      return `${located.document.id}#${located.pointer}`;
    } catch {
      return undefined;
    }
  }

  /** Components of the main document that inherit `baseKey` through `allOf`, directly or not, in name order. */
  private inheritorsOf(baseKey: string): { key: string; ref: string; document: SourceDocument }[] {
    const components = this.components();
    if (typeof components !== "object" || components === null) return [];
    const prefix = this.componentsAt;
    const parentsOf = this.parentsOf ?? new Map<string, string[]>();
    if (this.parentsOf === undefined) this.parentsOf = parentsOf;
    else return this.inheritorsFrom(parentsOf, baseKey);
    for (const name of Object.keys(components).sort()) {
      const allOf = getOwn(getOwn(components, name), "allOf");
      if (!Array.isArray(allOf)) continue;
      const parents = allOf.flatMap((part) => {
        const ref = getOwn(part, "$ref");
        const key = typeof ref === "string" ? this.locationKey(ref, this.resolver.main) : undefined;
        return key === undefined ? [] : [key];
      });
      parentsOf.set(`${this.resolver.main.id}#${prefix}${escapePointerSegment(name)}`, parents);
    }
    return this.inheritorsFrom(parentsOf, baseKey);
  }

  private inheritorsFrom(parentsOf: ReadonlyMap<string, readonly string[]>, baseKey: string): { key: string; ref: string; document: SourceDocument }[] {
    const inherits = new Set<string>([baseKey]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [key, parents] of parentsOf) {
        if (!inherits.has(key) && parents.some((parent) => inherits.has(parent))) {
          inherits.add(key);
          grew = true;
        }
      }
    }
    inherits.delete(baseKey);
    return [...parentsOf.keys()].filter((key) => inherits.has(key)).map((key) => ({ key, ref: key.slice(key.indexOf("#")), document: this.resolver.main }));
  }

  /** Whether a body schema is a discriminator base that stands for its subtypes (so it is not flattened). */
  isPolymorphic(node: unknown, document: SourceDocument): boolean {
    const ref = getOwn(node, "$ref");
    return typeof ref === "string" && this.polymorphicUnion(ref, document, "") !== undefined;
  }

  /** Deterministic, unique `$defs` name: the component name, sanitized only when needed. */
  private nameFor(key: string, wanted: string): string {
    const clean = wanted.replace(/[^A-Za-z0-9_-]/g, "_") || "_";
    let name = clean;
    while (this.keyOfName.has(name) && this.keyOfName.get(name) !== key) name = `${clean}_${shortHash(`${key}|${name}`)}`;
    this.keyOfName.set(name, key);
    this.nameOfKey.set(key, name);
    return name;
  }
}

/** One `convertShared` result and what converting it recorded (withheld paths relative to where it started). */
interface SharedConversion {
  variant: string;
  document: SourceDocument;
  pointer: string;
  schema: JsonSchemaObject | boolean;
  withheld: WithheldPath[];
  refusals: PatternRefusal[];
}

const EMPTY: ReadonlySet<string> = new Set();

/**
 * What the read-only rule needs from the whole main document. For every `oneOf` / `anyOf`:
 * a member read-only in one branch and declared without `readOnly` in another is offered in
 * the first as well. Keyed by the
 * `document#pointer` of the schema whose `properties` declares it read-only (a branch,
 * through its `$ref`s and `allOf` parts), because that schema is converted once, wherever it
 * is reached. Structural: computed from the document alone, the same whichever operations
 * are generated.
 */
interface ReadOnlyStructure {
  offeredInUnions: Map<string, Set<string>>;
  /**
   * Names required of an object by the schemas that compose it: for each `allOf` part (by its
   * `document#pointer`), the `required` of the composing schema and of every part beside it
   * (PagerDuty's `Reference` is `allOf: [base, { required: [type, id] }]`).
   */
  requiredByComposers: Map<string, Set<string>>;
  /**
   * `allOf` parts that a composing schema uses with nothing of its own beside them (no other
   * part or the composer declares a member): DigitalOcean's migration `source` is
   * `allOf: [connection]`, so the object it sends is that part's members or nothing.
   */
  composedAlone: Set<string>;
  /** Read-only members the document's own request examples send, by declaring schema. */
  sentByExamples: Map<string, Set<string>>;
  /** Schemas met in a request body as an array item or a reference-shaped object: their read-only identifiers are offered. */
  identifierHolders: Set<string>;
  /**
   * For each schema of an `allOf` group (the composer and its parts, by key): the names that are
   * read-only in the group and writable nowhere in it; its `required` of them is a response's.
   */
  notRequired: Map<string, Set<string>>;
  /** Schema objects a response reaches: their `required` may be a response's. */
  reachedFromResponses: WeakSet<object>;
  /** As `requiredByComposers`, counting only the `required` of schemas no response reaches. */
  requiredByRequests: Map<string, Set<string>>;
}

function readOnlyStructure(resolver: RefResolver, isReadOnly: (member: unknown, document: SourceDocument) => boolean, requestBodies: readonly RequestBodySchema[] | undefined): ReadOnlyStructure {
  const out = new Map<string, Set<string>>();
  const requiredByComposers = new Map<string, Set<string>>();
  const composedAlone = new Set<string>();
  const notRequired = new Map<string, Set<string>>();
  const requiredByRequests = new Map<string, Set<string>>();
  const responses = reachedFromResponses(resolver);
  const declaresMembers = (schema: unknown) => {
    const properties = getOwn(schema, "properties");
    return typeof properties === "object" && properties !== null && Object.keys(properties).length > 0;
  };
  const keyOf = (node: unknown, pointer: string): { node: unknown; key: string } => {
    let document = resolver.main;
    for (let hops = 0; typeof getOwn(node, "$ref") === "string" && hops < 32; hops += 1) {
      try {
        ({ value: node, document, pointer } = resolver.resolve(getOwn(node, "$ref") as string, document));
      } catch {
        return { node: undefined, key: "" };
      }
    }
    return { node, key: `${document.id}#${pointer}` };
  };
  const main = resolver.main;
  /** Members a branch declares: name -> keys of the schemas declaring it read-only, and whether any declares it writable. */
  const declared = (branch: unknown, pointer: string) => {
    const members = new Map<string, { readOnlyAt: string[]; writable: boolean }>();
    const seen = new Set<string>();
    const queue: { node: unknown; document: SourceDocument; pointer: string }[] = [{ node: branch, document: main, pointer }];
    while (queue.length > 0) {
      let { node, document, pointer: at } = queue.pop()!;
      for (let hops = 0; typeof getOwn(node, "$ref") === "string" && hops < 32; hops += 1) {
        try {
          const target = resolver.resolve(getOwn(node, "$ref") as string, document);
          ({ value: node, document, pointer: at } = target);
        } catch {
          node = undefined; // a dangling ref reports itself when converted
        }
      }
      const key = `${document.id}#${at}`;
      if (typeof node !== "object" || node === null || seen.has(key)) continue;
      seen.add(key);
      const properties = getOwn(node, "properties");
      if (typeof properties === "object" && properties !== null) {
        for (const [name, member] of Object.entries(properties)) {
          const entry = members.get(name) ?? { readOnlyAt: [], writable: false };
          if (isReadOnly(member, document)) entry.readOnlyAt.push(key);
          else entry.writable = true;
          members.set(name, entry);
        }
      }
      const parts = getOwn(node, "allOf");
      if (Array.isArray(parts)) parts.forEach((part, index) => queue.push({ node: part, document, pointer: `${at}/allOf/${index}` }));
    }
    return members;
  };
  // The walk visits every node of the document (GitHub REST: most of them examples and
  // descriptions), but only composition nodes need their pointer: it is built on first use,
  // from the parent's, instead of one string per node.
  const stack: WalkPlace[] = [{ node: main.root, parent: undefined, key: "", pointer: "", depth: 0 }];
  while (stack.length > 0) {
    const place = stack.pop()!;
    const { node, depth } = place;
    if (typeof node !== "object" || node === null || depth > MAX_SCHEMA_DEPTH) continue;
    const parts = getOwn(node, "allOf");
    const composes = Array.isArray(parts) || Array.isArray(getOwn(node, "oneOf")) || Array.isArray(getOwn(node, "anyOf"));
    const pointer = composes ? pointerOf(place) : "";
    if (Array.isArray(parts)) {
      const located = parts.map((part, index) => keyOf(part, `${pointer}/allOf/${index}`));
      const namesOf = (schema: unknown) => {
        const list = getOwn(schema, "required");
        return Array.isArray(list) ? list.filter((name): name is string => typeof name === "string") : [];
      };
      const carriers = [node, ...located.map((part) => part.node)];
      const names = carriers.flatMap(namesOf);
      if (names.length > 0) for (const { key } of located) if (key !== "") requiredByComposers.set(key, new Set([...(requiredByComposers.get(key) ?? []), ...names]));
      const requestNames = carriers.filter((schema) => typeof schema !== "object" || schema === null || !responses.has(schema)).flatMap(namesOf);
      if (requestNames.length > 0) for (const { key } of located) if (key !== "") requiredByRequests.set(key, new Set([...(requiredByRequests.get(key) ?? []), ...requestNames]));
      const readOnlyOnly = [...declared(node, pointer)].filter(([, entry]) => entry.readOnlyAt.length > 0 && !entry.writable).map(([name]) => name);
      if (readOnlyOnly.length > 0) {
        for (const key of [`${main.id}#${pointer}`, ...located.map((part) => part.key)]) if (key !== "" && key !== "#") notRequired.set(key, new Set([...(notRequired.get(key) ?? []), ...readOnlyOnly]));
      }
      located.forEach(({ key }, index) => {
        if (key !== "" && !declaresMembers(node) && located.every((other, j) => j === index || !declaresMembers(other.node))) composedAlone.add(key);
      });
    }
    for (let u = 0; u < UNION_KEYWORDS.length; u += 1) {
      const union = UNION_KEYWORDS[u]!;
      const branches = getOwn(node, union);
      if (!Array.isArray(branches) || branches.length < 2) continue;
      const byBranch = branches.map((branch, index) => declared(branch, `${pointer}/${union}/${index}`));
      byBranch.forEach((members, index) => {
        for (const [name, { readOnlyAt }] of members) {
          if (readOnlyAt.length === 0 || !byBranch.some((other, j) => j !== index && other.get(name)?.writable === true)) continue;
          for (const key of readOnlyAt) out.set(key, (out.get(key) ?? new Set()).add(name));
        }
      });
    }
    const keys = Object.keys(node);
    for (let k = 0; k < keys.length; k += 1) {
      const child = (node as Record<string, unknown>)[keys[k]!];
      if (typeof child === "object" && child !== null) stack.push({ node: child, parent: place, key: keys[k]!, pointer: undefined, depth: depth + 1 });
    }
  }
  return { offeredInUnions: out, requiredByComposers, composedAlone, notRequired, reachedFromResponses: responses, requiredByRequests, ...readOnlyNeeds(resolver, isReadOnly, requestBodies) };
}

/** readOnlyStructure asks every node of the document for these: one array for all. */
const UNION_KEYWORDS = ["oneOf", "anyOf"] as const;

/** A node of readOnlyStructure's walk: its pointer is its parent's and its key, joined when first asked for. */
interface WalkPlace {
  node: unknown;
  parent: WalkPlace | undefined;
  key: string;
  pointer: string | undefined;
  depth: number;
}

function pointerOf(place: WalkPlace): string {
  if (place.pointer !== undefined) return place.pointer;
  // Iterative: up to the nearest place whose pointer is known, then down, remembering each.
  const chain: WalkPlace[] = [];
  let at: WalkPlace = place;
  while (at.pointer === undefined) {
    chain.push(at);
    at = at.parent!;
  }
  let pointer = at.pointer;
  for (let i = chain.length - 1; i >= 0; i -= 1) {
    const step = chain[i]!;
    pointer = `${pointer}/${escapePointerSegment(step.key)}`;
    step.pointer = pointer;
  }
  return pointer;
}

/** Whether a document holds `readOnly: true` anywhere (an iterative walk: documents nest deep). */
function containsReadOnly(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (getOwn(node, "readOnly") === true) return true;
    // Keys and indexed reads: no array of values per node of a document that has no readOnly at all (Kubernetes).
    const keys = Object.keys(node);
    for (let k = 0; k < keys.length; k += 1) {
      const child = (node as Record<string, unknown>)[keys[k]!];
      if (typeof child === "object" && child !== null) stack.push(child);
    }
  }
  return false;
}

/** `#/components/schemas/Pet` -> `Pet`; other pointers -> their segments joined. */
function defaultName(pointer: string): string {
  const segments = pointer.split("/").slice(1);
  const component = /^\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(pointer);
  if (component !== null) return segments[segments.length - 1]!.replace(/~1/g, "/").replace(/~0/g, "~");
  return segments.join("_");
}

/**
 * In a bundle: `/$defs/Pet` -> `Pet`; another pointer -> its segments below `$defs` joined
 * (`/$defs/Pet/properties/tag` -> `Pet_properties_tag`).
 */
function bundleName(pointer: string): string {
  const segments = pointer.split("/").slice(pointer.startsWith("/$defs/") ? 2 : 1);
  return segments.length === 1 ? segments[0]!.replace(/~1/g, "/").replace(/~0/g, "~") : segments.join("_");
}

/** The component name of a location key (`doc#/components/schemas/Pet` -> `Pet`), if it is one. */
function componentName(key: string): string | undefined {
  const match = /#\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(key);
  return match === null ? undefined : match[1]!.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** A union branch that also requires the discriminator property to hold one of its tags. */
function withTag(branch: JsonSchemaObject, propertyName: string, tags: readonly string[]): JsonSchemaObject {
  const tag: JsonSchemaObject = tags.length === 1 ? { const: tags[0] } : { enum: [...tags] };
  const check: JsonSchemaObject = { properties: { [propertyName]: tag }, required: [propertyName] };
  // Beside a bare reference the check keeps the branch named by its type (`oneOf[Cat]`).
  if (typeof branch.$ref === "string" && branch.properties === undefined && branch.required === undefined) return { ...branch, ...check };
  return { allOf: [branch, check] };
}

/** 3.0 `nullable: true`: https://spec.openapis.org/oas/v3.0.3#fixed-fields-19 */
function withNull(schema: JsonSchemaObject): JsonSchemaObject {
  const out = { ...schema };
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") out.type = out.type === "null" ? "null" : [out.type, "null"];
  else if (Array.isArray(out.type)) out.type = out.type.includes("null") ? out.type : [...out.type, "null"];
  else if (!Array.isArray(out.enum) && !hasOwn(out, "const")) return { anyOf: [schema, { type: "null" }] };
  return out;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}


