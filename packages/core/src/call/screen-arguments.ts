import { escapePointerSegment, getOwn, hasOwn, isSchemaObject, parseLocalRef, type ArgumentIssue, type JsonSchemaObject } from "@sluice/schema";
import { guards } from "../guards.ts";
import { formatSegment } from "../projection/selectors.ts";
import { isFreeForm, openingSchema, patternMatches, requiresUndeclared } from "../object-openness.ts";

/**
 * The egress half of a call: walks the arguments beside the tool's input schema and
 * copies only what the schema lets through.
 *
 * At each object, the schemas the value may match (its group: the schema itself and,
 * through `$ref`, `allOf`, `anyOf` and `oneOf`, every branch) decide together:
 * - a key the tool withholds (its dotted path, or `Type.key` for any type in the group)
 *   is refused first, whatever any branch says about openness: withheld means forbidden
 *   in every branch, open or closed;
 * - a key some schema of the group declares (`properties`) or matches
 *   (`patternProperties`), or that some schema explicitly opens the object to
 *   (`additionalProperties` true or a schema), is let through;
 * - otherwise the object is open only when nothing in the group describes its members
 *   at all (a free-form object). A branch that lists no properties of its own, such as
 *   `{ required: ["a"] }` or `{ maxProperties: 0 }`, constrains its siblings' members;
 *   it does not reopen the object. An object that lists properties and says nothing about
 *   others is closed: the JSON Schema default (open) would let anything through.
 * Scalars are refused where every schema of the group names other types.
 *
 * The copy is what requests are built from, so a withheld field cannot reach the wire
 * even when validation is skipped; the issues are what `call` refuses with.
 */

/** Arguments nest at most this deep (the deepest real input types nest about 30 levels). */
export const MAX_ARGUMENT_DEPTH = 64;

export interface ScreenOptions {
  /** Argument paths withheld by the tool: dotted (`filter.and`) or by type (`IssueFilter.and`), with the reason. */
  withheld: ReadonlyMap<string, string>;
  /** Top-level arguments fixed by pins. */
  pins: Readonly<Record<string, unknown>>;
  /** Split definition copies and the type each stands for. */
  origins: ReadonlyMap<string, string>;
  /** Arguments larger than this (UTF-8 bytes of strings and keys) are refused. */
  maxBytes: number;
}

export interface Screened {
  /** A copy holding only what the schema lets through (own data properties, no prototype tricks). */
  allowed: Record<string, unknown>;
  issues: ArgumentIssue[];
}

/** A schema a value may match, with the `$defs` type it came from. */
interface Candidate {
  schema: JsonSchemaObject | true;
  type: string | undefined;
}

const ANY: Candidate = { schema: true, type: undefined };

/**
 * A position as withheld paths name it: the names joined with dots as they are (`raw`, how
 * generators write their withholdings), and the selector spelling (`canon`, names with
 * selector syntax quoted: `body."@odata.type"`), which is what projections record. Both are
 * looked up, so a name with a dot is refused under either spelling.
 */
interface Dotted {
  raw: string;
  canon: string;
  /** The first name, as spelled in `canon`. */
  first: string;
}

const TOP: Dotted = { raw: "", canon: "", first: "" };

function below(dotted: Dotted, key: string): Dotted {
  const spelled = formatSegment(key);
  return dotted.raw === "" && dotted.canon === ""
    ? { raw: key, canon: spelled, first: spelled }
    : { raw: `${dotted.raw}.${key}`, canon: `${dotted.canon}.${spelled}`, first: dotted.first };
}

function pathWithheld(withheld: ReadonlyMap<string, string>, dotted: Dotted): string | undefined {
  const reason = withheld.get(dotted.raw);
  if (!guards.quotedNames) return reason;
  if (reason !== undefined) return reason;
  const canonical = withheld.get(dotted.canon);
  if (canonical !== undefined || dotted.first.startsWith('"')) return canonical;
  // A path whose first name is also a type is recorded with that name quoted (`"Address".street`).
  return withheld.get(JSON.stringify(dotted.first) + dotted.canon.slice(dotted.first.length));
}

function typeWithheld(withheld: ReadonlyMap<string, string>, type: string, key: string): string | undefined {
  const spelled = formatSegment(key);
  if (!guards.quotedNames) return withheld.get(`${type}.${key}`);
  return withheld.get(`${type}.${key}`) ?? withheld.get(`${type}.${spelled}`) ?? withheld.get(`${type}:${spelled}`) ?? withheld.get(`${JSON.stringify(type)}:${spelled}`);
}

export function screenArguments(root: JsonSchemaObject, args: unknown, options: ScreenOptions): Screened {
  const issues: ArgumentIssue[] = [];
  let bytes = 0;
  let tooLarge = false;
  const defs = getOwn(root, "$defs");

  const expand = (start: readonly Candidate[]): Candidate[] => expandGroup(root, defs, options.origins, start);

  /** Why `key` is withheld at this position (by dotted path, or by a type of the group), if it is. */
  const withheldReason = (dotted: Dotted, key: string, candidates: readonly Candidate[]): string | undefined => {
    let reason = pathWithheld(options.withheld, dotted);
    for (const candidate of candidates) {
      if (reason !== undefined) break;
      if (candidate.type !== undefined) reason = typeWithheld(options.withheld, candidate.type, key);
    }
    return reason;
  };

  const deny = (path: string, dotted: Dotted, key: string, candidates: readonly Candidate[], top: boolean): void => {
    if (top && hasOwn(options.pins, key)) {
      issues.push({ code: "pinned", path, message: `"${key}" is fixed by this tool (pinned) and must not be sent; remove it` });
      return;
    }
    const reason = withheldReason(dotted, key, candidates);
    if (reason !== undefined) {
      issues.push({ code: "withheld", path, message: `"${key}" is withheld from this tool (${reason}) and cannot be sent; remove it` });
      return;
    }
    const known = new Set<string>();
    for (const candidate of candidates) {
      const properties = candidate.schema === true ? undefined : getOwn(candidate.schema, "properties");
      if (isSchemaObject(properties)) for (const name of Object.keys(properties)) if (getOwn(properties, name) !== false) known.add(name);
    }
    const accepted = [...known].sort();
    const list = accepted.length > 40 ? `${accepted.slice(0, 40).join(", ")}, ...` : accepted.join(", ");
    issues.push({ code: "unknown", path, message: `"${key}" is not a field of this tool${accepted.length > 0 ? `; accepted here: ${list}` : ""}` });
  };

  const visit = (value: unknown, start: readonly Candidate[], path: string, dotted: Dotted, depth: number): { keep: boolean; value?: unknown } => {
    if (tooLarge) return { keep: false };
    if (value === null || typeof value === "boolean" || typeof value === "number" || typeof value === "string") {
      if (typeof value === "number" && !Number.isFinite(value)) {
        issues.push({ code: "not_json", path, message: "must be a finite number" });
        return { keep: false };
      }
      if (typeof value === "string") {
        bytes += Buffer.byteLength(value, "utf8");
        if (bytes > options.maxBytes) return overflow();
      }
      const kind = value === null ? "null" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : (typeof value as "string" | "boolean");
      // A JSON-text string where the schema wants an object is refused here, not only by the validator.
      const group = expand(start);
      if (!group.some((c) => c.schema === true || admitsScalar(c.schema, kind))) {
        issues.push({ code: "type", path, message: expectedKinds(group) });
        return { keep: false };
      }
      return { keep: true, value };
    }
    if (typeof value !== "object") {
      issues.push({ code: "not_json", path, message: `a ${typeof value} cannot be sent; use JSON values only` });
      return { keep: false };
    }
    if (depth >= MAX_ARGUMENT_DEPTH) {
      issues.push({ code: "too_deep", path, message: `arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels` });
      return { keep: false };
    }
    const candidates = expand(start);
    if (Array.isArray(value)) {
      const arrays = candidates.filter((c) => c.schema === true || admits(c.schema, "array"));
      if (arrays.length === 0) return mismatch(path, "an array");
      const out: unknown[] = [];
      for (let index = 0; index < value.length; index++) {
        const items: Candidate[] = [];
        let allowed = false;
        for (const candidate of arrays) {
          const item = itemSchema(candidate, index);
          if (item === false) continue;
          allowed = true;
          items.push(item);
        }
        if (!allowed) {
          issues.push({ code: "unknown", path: `${path}/${index}`, message: "this array accepts no item here" });
          continue;
        }
        const child = visit(value[index], items, `${path}/${index}`, dotted, depth + 1);
        if (child.keep) out.push(child.value);
      }
      return { keep: true, value: out };
    }
    const objects = candidates.filter((c) => c.schema === true || admits(c.schema, "object"));
    if (objects.length === 0) return mismatch(path, "an object");
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      // An own property holding undefined is how JavaScript callers leave an argument out.
      if ((value as Record<string, unknown>)[key] === undefined) continue;
      const childPath = `${path}/${escapePointerSegment(key)}`;
      const childDotted = below(dotted, key);
      bytes += Buffer.byteLength(key, "utf8");
      if (bytes > options.maxBytes) return overflow();
      // Before anything else: a key that a server's naive merge reads as the prototype chain.
      if (guards.prototypeKeys && isPrototypeKey(key, objects)) {
        issues.push({ code: "prototype_key", path: childPath, message: `"${key}" cannot be sent as a key here: a server merging it would write the object's prototype; remove it` });
        continue;
      }
      // Withheld first: no branch of the group, however open, can let a withheld key through.
      if (guards.withheldScreening && (withheldReason(childDotted, key, objects) !== undefined || (depth === 0 && hasOwn(options.pins, key)))) {
        deny(childPath, childDotted, key, objects, depth === 0);
        continue;
      }
      const children = propertySchemas(objects, key);
      if (children === undefined) {
        deny(childPath, childDotted, key, objects, depth === 0);
        continue;
      }
      const child = visit((value as Record<string, unknown>)[key], children, childPath, childDotted, depth + 1);
      // defineProperty: a key named `__proto__` stays an own data property of the copy.
      if (child.keep) Object.defineProperty(out, key, { value: child.value, enumerable: true, writable: true, configurable: true });
    }
    return { keep: true, value: out };
  };

  const mismatch = (path: string, what: string): { keep: false } => {
    issues.push({ code: "type", path, message: `must not be ${what}` });
    return { keep: false };
  };

  const overflow = (): { keep: false } => {
    if (!tooLarge) issues.push({ code: "too_large", path: "", message: `arguments exceed ${options.maxBytes} bytes; send less text` });
    tooLarge = true;
    return { keep: false };
  };

  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    issues.push({ code: "type", path: "", message: "arguments must be a JSON object" });
    return { allowed: {}, issues };
  }
  const result = visit(args, [{ schema: root, type: undefined }], "", TOP, 0);
  const allowed = result.keep && !tooLarge ? (result.value as Record<string, unknown>) : {};
  return { allowed, issues };
}

/** Follows `$ref`, `allOf`, `anyOf`, `oneOf` (and `then`/`else`) to the schemas a value may match. */
function expandGroup(root: JsonSchemaObject, defs: unknown, origins: ReadonlyMap<string, string>, start: readonly Candidate[]): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<unknown>();
  const stack = [...start].reverse();
  while (stack.length > 0) {
    const candidate = stack.pop()!;
    const schema = candidate.schema;
    if (schema === true) {
      out.push(ANY);
      continue;
    }
    if (seen.has(schema)) continue;
    seen.add(schema);
    out.push(candidate);
    const ref = getOwn(schema, "$ref");
    if (typeof ref === "string") {
      const target = refTarget(ref);
      if (target !== undefined) {
        const body = target === "" ? root : isSchemaObject(defs) ? getOwn(defs, target) : undefined;
        const type = target === "" ? undefined : (origins.get(target) ?? target);
        if (body === true || (body !== undefined && body !== null && typeof body === "object")) stack.push({ schema: body as JsonSchemaObject | true, type });
      }
    }
    for (const keyword of ["allOf", "anyOf", "oneOf"] as const) {
      const list = getOwn(schema, keyword);
      if (Array.isArray(list)) for (let i = list.length - 1; i >= 0; i--) pushSchema(stack, list[i], candidate.type);
    }
    pushSchema(stack, getOwn(schema, "then"), candidate.type);
    pushSchema(stack, getOwn(schema, "else"), candidate.type);
  }
  return out;
}

/**
 * Prototype keys. `__proto__` is refused at every depth, declared or not: `JSON.parse`
 * makes it an own key, `JSON.stringify` sends it, and a server that merges the body into
 * an object (`Object.assign`, a naive deep merge) moves what it holds into the target's
 * prototype, where a withheld member (`{historyMetadata: {__proto__: {type}}}`) reads as
 * if it had been sent. No real API declares it. `constructor` and `prototype` do the same
 * in a merge that follows `target.constructor.prototype`, but real schemas do declare them
 * (a `constructor` field of a build tool, a `prototype` flag), so they are refused only
 * where the schema does not list them and only openness would let them in.
 */
function isPrototypeKey(key: string, objects: readonly Candidate[]): boolean {
  if (key === "__proto__") return true;
  if (key !== "constructor" && key !== "prototype") return false;
  return !objects.some((candidate) => {
    if (candidate.schema === true) return false;
    const properties = getOwn(candidate.schema, "properties");
    return isSchemaObject(properties) && hasOwn(properties, key) && getOwn(properties, key) !== false;
  });
}

/**
 * Pointers of every key in `value` that sits where the tool withholds it: at a withheld
 * dotted path, or as `key` of an object whose group reaches a type with `Type.key`
 * withheld, and (with `prototypeKeys`) of every prototype key screening refuses (see
 * isPrototypeKey). It looks at nothing else (no openness, no types of values), so it is an
 * independent second check for the request builder.
 */
export function withheldPointers(
  root: JsonSchemaObject,
  value: Record<string, unknown>,
  withheld: ReadonlyMap<string, string>,
  origins: ReadonlyMap<string, string>,
  options: { prototypeKeys?: boolean } = {},
): string[] {
  const found: string[] = [];
  const defs = getOwn(root, "$defs");
  const stack: Array<{ value: unknown; group: Candidate[]; pointer: string; dotted: Dotted; depth: number }> = [
    { value, group: [{ schema: root, type: undefined }], pointer: "", dotted: TOP, depth: 0 },
  ];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (typeof frame.value !== "object" || frame.value === null || frame.depth > MAX_ARGUMENT_DEPTH) continue;
    const group = expandGroup(root, defs, origins, frame.group);
    if (Array.isArray(frame.value)) {
      frame.value.forEach((item, index) => {
        const items: Candidate[] = [];
        for (const candidate of group) {
          const schema = candidate.schema === true ? undefined : candidate.schema;
          const prefix = schema === undefined ? undefined : getOwn(schema, "prefixItems");
          const child = Array.isArray(prefix) && index < prefix.length ? prefix[index] : schema === undefined ? true : getOwn(schema, "items");
          const next = toCandidate(child ?? true, candidate.type);
          if (next !== false) items.push(next);
        }
        stack.push({ value: item, group: items, pointer: `${frame.pointer}/${index}`, dotted: frame.dotted, depth: frame.depth + 1 });
      });
      continue;
    }
    // The types of the schemas that hold this object's members, as screening reads them: a
    // `$ref` or composite wrapper carries the type it is declared in (`IssueFilter` for the
    // ref at `IssueFilter.estimate`), which is not the type of the object it refers to, so
    // `IssueFilter.and` must not apply to `estimate.and`.
    const objects = group.filter((c) => c.schema === true || admits(c.schema, "object"));
    const types = [...new Set(objects.flatMap((c) => (c.type === undefined ? [] : [c.type])))];
    for (const key of Object.keys(frame.value)) {
      const dotted = below(frame.dotted, key);
      const pointer = `${frame.pointer}/${escapePointerSegment(key)}`;
      if (pathWithheld(withheld, dotted) !== undefined || types.some((type) => typeWithheld(withheld, type, key) !== undefined) || (options.prototypeKeys === true && isPrototypeKey(key, group))) {
        found.push(pointer);
        continue;
      }
      const children = propertySchemas(group, key) ?? [ANY];
      stack.push({ value: (frame.value as Record<string, unknown>)[key], group: children, pointer, dotted, depth: frame.depth + 1 });
    }
  }
  return found.sort();
}

function pushSchema(stack: Candidate[], schema: unknown, type: string | undefined): void {
  if (schema === true) stack.push(ANY);
  else if (isSchemaObject(schema)) stack.push({ schema, type });
}

/** The `$defs` entry a local ref names, `""` for the root, undefined for other pointers. */
function refTarget(ref: string): string | undefined {
  const segments = parseLocalRef(ref);
  if (segments === undefined) return undefined;
  if (segments.length === 0) return "";
  if (segments[0] === "$defs" && segments.length === 2) return segments[1];
  return undefined;
}

const OBJECT_KEYWORDS = ["properties", "patternProperties", "additionalProperties", "required", "propertyNames", "minProperties", "maxProperties", "unevaluatedProperties", "dependentRequired", "dependentSchemas"];
const ARRAY_KEYWORDS = ["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains", "unevaluatedItems"];

/** Whether a schema can describe a value of this JSON type (by `type`, or by the keywords it uses). */
function admits(schema: JsonSchemaObject, kind: "object" | "array"): boolean {
  const type = getOwn(schema, "type");
  if (typeof type === "string") return type === kind;
  if (Array.isArray(type)) return type.includes(kind);
  // A `const` or `enum` admits exactly its values' kinds: `const: {a: 1}` is an object.
  const fixed = fixedValues(schema);
  if (fixed !== undefined) return fixed.some((value) => kindOf(value) === kind);
  // No `type`: composites and refs are expanded separately; a bare schema admits the
  // kind when it says nothing at all about shape, or uses that kind's keywords.
  const keywords = Object.keys(schema);
  const shaped = (list: readonly string[]) => list.some((k) => keywords.includes(k));
  if (shaped(kind === "object" ? OBJECT_KEYWORDS : ARRAY_KEYWORDS)) return true;
  if (shaped(kind === "object" ? ARRAY_KEYWORDS : OBJECT_KEYWORDS)) return false;
  return !["$ref", "allOf", "anyOf", "oneOf", "not", "if"].some((k) => keywords.includes(k)) && !shaped(["minLength", "maxLength", "pattern", "format", "minimum", "maximum", "multipleOf"]);
}

/**
 * Schemas for `key` of an object whose group is `objects`, or undefined when no schema
 * of the group lets the key through (see object-openness.ts). A key some schema of the
 * group declares or pattern-matches takes those schemas only: another branch's openness
 * (`additionalProperties: true`) is for keys nobody declares, and must not make a
 * declared member free-form. Failing that, an explicitly open or free-form schema lets
 * the key through; failing that, a schema that lists no properties but names the key in
 * `required`. A bare constraint such as `{ required: ["a"] }` never opens the object.
 */
function propertySchemas(objects: readonly Candidate[], key: string): Candidate[] | undefined {
  const declared: Candidate[] = [];
  let declaredAllowed = false;
  let declaredAnywhere = false;
  const opened: Candidate[] = [];
  let requiredOnly = false;
  for (const candidate of objects) {
    if (candidate.schema === true) {
      opened.push(ANY);
      continue;
    }
    const schema = candidate.schema;
    const properties = getOwn(schema, "properties");
    const patterns = getOwn(schema, "patternProperties");
    let matched = false;
    if (isSchemaObject(properties) && hasOwn(properties, key)) {
      matched = true;
      // An object declared inline at `Type.key` is not of type `Type`: its members are
      // `Type.key.member` (as the generator records them), so `Type.id` never applies to `key.id`.
      if (addChild(declared, properties[key], candidate.type === undefined ? undefined : `${candidate.type}.${key}`)) declaredAllowed = true;
    }
    if (isSchemaObject(patterns)) {
      for (const pattern of Object.keys(patterns)) {
        if (!patternMatches(pattern, key)) continue;
        matched = true;
        if (addChild(declared, patterns[pattern], candidate.type)) declaredAllowed = true;
      }
    }
    // A key of an object that `const`/`enum` allows is declared by that value (the validator
    // checks the whole value); its member may be any of the values found under the key.
    const fixed = fixedValues(schema);
    if (fixed !== undefined) {
      const members = fixed.flatMap((value) => (typeof value === "object" && value !== null && !Array.isArray(value) && hasOwn(value, key) ? [getOwn(value, key)] : []));
      if (members.length > 0) {
        matched = true;
        declaredAllowed = true;
        declared.push({ schema: { enum: members }, type: candidate.type });
      }
    }
    if (matched) {
      declaredAnywhere = true;
      continue;
    }
    const opening = openingSchema(schema);
    if (opening !== undefined) addChild(opened, opening, candidate.type === undefined ? undefined : `${candidate.type}.*`);
    else if (isFreeForm(schema)) opened.push(ANY);
    else if (!hasOwn(schema, "properties") && requiresUndeclared(schema, key)) requiredOnly = true;
  }
  if (declaredAnywhere) return declaredAllowed ? declared : undefined;
  if (opened.length > 0) return opened;
  return requiredOnly ? [ANY] : undefined;
}

/** Adds a child schema; false when the schema is `false` (nothing allowed). */
function addChild(out: Candidate[], schema: unknown, type: string | undefined): boolean {
  if (schema === false) return false;
  if (schema === true || !isSchemaObject(schema)) out.push(ANY);
  else out.push({ schema, type });
  return true;
}

/**
 * Whether a schema can describe a scalar of this kind. Only an explicit `type`, `const`
 * or `enum` refuses one; composites are expanded separately, and a schema that says
 * nothing about the type admits every kind.
 */
function admitsScalar(schema: JsonSchemaObject, kind: "string" | "integer" | "number" | "boolean" | "null"): boolean {
  const type = getOwn(schema, "type");
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : undefined;
  if (types !== undefined && !types.some((t) => t === kind || (t === "number" && kind === "integer"))) return false;
  const enumValues = getOwn(schema, "enum");
  if (Array.isArray(enumValues)) return enumValues.some((v) => kindOf(v) === kind || (kind === "integer" && kindOf(v) === "number") || (kind === "number" && kindOf(v) === "integer"));
  if (hasOwn(schema, "const")) {
    const k = kindOf(getOwn(schema, "const"));
    return k === kind || (kind === "integer" && k === "number") || (kind === "number" && k === "integer");
  }
  return true;
}

/** "must be integer", "must be object or null": the types a group names, for a model to act on. */
function expectedKinds(group: readonly Candidate[]): string {
  const kinds = new Set<string>();
  for (const candidate of group) {
    if (candidate.schema === true) continue;
    const type = getOwn(candidate.schema, "type");
    for (const t of typeof type === "string" ? [type] : Array.isArray(type) ? type : []) if (typeof t === "string") kinds.add(t);
  }
  return kinds.size === 0 ? "must be one of the allowed values" : `must be ${[...kinds].sort().join(" or ")}`;
}

/** The values a schema allows by `const` or `enum`, or undefined when it names none. */
function fixedValues(schema: JsonSchemaObject): readonly unknown[] | undefined {
  if (hasOwn(schema, "const")) return [getOwn(schema, "const")];
  const values = getOwn(schema, "enum");
  return Array.isArray(values) ? values : undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Item schema at `index`: a candidate, or `false` when the array allows no item there. */
function itemSchema(candidate: Candidate, index: number): Candidate | false {
  if (candidate.schema === true) return ANY;
  const prefix = getOwn(candidate.schema, "prefixItems");
  if (Array.isArray(prefix) && index < prefix.length) return toCandidate(prefix[index], candidate.type);
  const items = getOwn(candidate.schema, "items");
  if (items === undefined) return ANY;
  return toCandidate(items, candidate.type);
}

function toCandidate(schema: unknown, type: string | undefined): Candidate | false {
  if (schema === false) return false;
  if (isSchemaObject(schema)) return { schema, type };
  return ANY;
}
