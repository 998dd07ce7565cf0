import { escapePointerSegment, getOwn, hasOwn, isSchemaObject, parseLocalRef, type ArgumentIssue, type JsonSchemaObject } from "@sluice/schema";

/**
 * The egress half of a call: walks the arguments beside the tool's input schema and
 * copies only what the schema lets through. A property is let through when some
 * schema the value may match declares it (`properties`), matches it (`patternProperties`)
 * or opens the object to it (`additionalProperties` given as true or a schema, or a
 * free-form object with no listed properties at all). An object that lists properties
 * and says nothing about others is treated as closed: the model has no business sending
 * fields the tool does not describe, and the JSON Schema default (open) would let a
 * withheld field through. Unions, `allOf` and `$ref`s are followed; a property that any
 * branch declares is let through (the validator decides which branch matches).
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

export function screenArguments(root: JsonSchemaObject, args: unknown, options: ScreenOptions): Screened {
  const issues: ArgumentIssue[] = [];
  let bytes = 0;
  let tooLarge = false;
  const defs = getOwn(root, "$defs");

  /** Follows `$ref`, `allOf`, `anyOf`, `oneOf` (and `then`/`else`) to the schemas a value may match. */
  const expand = (start: readonly Candidate[]): Candidate[] => {
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
          const type = target === "" ? undefined : (options.origins.get(target) ?? target);
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
  };

  const deny = (path: string, dotted: string, key: string, candidates: readonly Candidate[], top: boolean): void => {
    if (top && hasOwn(options.pins, key)) {
      issues.push({ code: "pinned", path, message: `"${key}" is fixed by this tool (pinned) and must not be sent; remove it` });
      return;
    }
    let reason = options.withheld.get(dotted);
    for (const candidate of candidates) {
      if (reason !== undefined) break;
      if (candidate.type !== undefined) reason = options.withheld.get(`${candidate.type}.${key}`);
    }
    if (reason !== undefined) {
      issues.push({ code: "withheld", path, message: `"${key}" is withheld from this tool (${reason}) and cannot be sent; remove it` });
      return;
    }
    const known = new Set<string>();
    for (const candidate of candidates) {
      const properties = candidate.schema === true ? undefined : getOwn(candidate.schema, "properties");
      if (isSchemaObject(properties)) for (const name of Object.keys(properties)) known.add(name);
    }
    const accepted = [...known].sort();
    const list = accepted.length > 40 ? `${accepted.slice(0, 40).join(", ")}, ...` : accepted.join(", ");
    issues.push({ code: "unknown", path, message: `"${key}" is not a field of this tool${accepted.length > 0 ? `; accepted here: ${list}` : ""}` });
  };

  const visit = (value: unknown, start: readonly Candidate[], path: string, dotted: string, depth: number): { keep: boolean; value?: unknown } => {
    if (tooLarge) return { keep: false };
    if (value === null || typeof value === "boolean") return { keep: true, value };
    if (typeof value === "number") {
      if (!Number.isFinite(value)) {
        issues.push({ code: "not_json", path, message: "must be a finite number" });
        return { keep: false };
      }
      return { keep: true, value };
    }
    if (typeof value === "string") {
      bytes += Buffer.byteLength(value, "utf8");
      if (bytes > options.maxBytes) return overflow();
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
      const childDotted = dotted === "" ? key : `${dotted}.${key}`;
      bytes += Buffer.byteLength(key, "utf8");
      if (bytes > options.maxBytes) return overflow();
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
  const result = visit(args, [{ schema: root, type: undefined }], "", "", 0);
  const allowed = result.keep && !tooLarge ? (result.value as Record<string, unknown>) : {};
  return { allowed, issues };
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

const OBJECT_KEYWORDS = ["properties", "patternProperties", "additionalProperties", "required", "propertyNames", "minProperties", "maxProperties"];
const ARRAY_KEYWORDS = ["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"];

/** Whether a schema can describe a value of this JSON type (by `type`, or by the keywords it uses). */
function admits(schema: JsonSchemaObject, kind: "object" | "array"): boolean {
  const type = getOwn(schema, "type");
  if (typeof type === "string") return type === kind;
  if (Array.isArray(type)) return type.includes(kind);
  if (schema.const !== undefined || Array.isArray(schema.enum)) return false;
  // No `type`: composites and refs are expanded separately; a bare schema admits the
  // kind when it says nothing at all about shape, or uses that kind's keywords.
  const keywords = Object.keys(schema);
  const shaped = (list: readonly string[]) => list.some((k) => keywords.includes(k));
  if (shaped(kind === "object" ? OBJECT_KEYWORDS : ARRAY_KEYWORDS)) return true;
  if (shaped(kind === "object" ? ARRAY_KEYWORDS : OBJECT_KEYWORDS)) return false;
  return !["$ref", "allOf", "anyOf", "oneOf", "not", "if"].some((k) => keywords.includes(k)) && !shaped(["minLength", "maxLength", "pattern", "format", "minimum", "maximum", "multipleOf"]);
}

/**
 * Schemas for `key` of an object matching one of `objects`, or undefined when none lets
 * the key through.
 */
function propertySchemas(objects: readonly Candidate[], key: string): Candidate[] | undefined {
  let allowed = false;
  const out: Candidate[] = [];
  for (const candidate of objects) {
    if (candidate.schema === true) {
      allowed = true;
      out.push(ANY);
      continue;
    }
    const schema = candidate.schema;
    const properties = getOwn(schema, "properties");
    const patterns = getOwn(schema, "patternProperties");
    let matched = false;
    if (isSchemaObject(properties) && hasOwn(properties, key)) {
      matched = true;
      addChild(out, properties[key], candidate.type) && (allowed = true);
    }
    if (isSchemaObject(patterns)) {
      for (const pattern of Object.keys(patterns)) {
        if (!safeTest(pattern, key)) continue;
        matched = true;
        addChild(out, patterns[pattern], candidate.type) && (allowed = true);
      }
    }
    if (matched) continue;
    const additional = getOwn(schema, "additionalProperties");
    if (additional === undefined) {
      // Free-form object (nothing listed): anything goes; listed properties: closed.
      if (!isSchemaObject(properties) && !isSchemaObject(patterns)) {
        allowed = true;
        out.push(ANY);
      }
    } else if (addChild(out, additional, candidate.type)) {
      allowed = true;
    }
  }
  return allowed ? out : undefined;
}

/** Adds a child schema; false when the schema is `false` (nothing allowed). */
function addChild(out: Candidate[], schema: unknown, type: string | undefined): boolean {
  if (schema === false) return false;
  if (schema === true || !isSchemaObject(schema)) out.push(ANY);
  else out.push({ schema, type });
  return true;
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

const patternCache = new Map<string, RegExp | null>();

/** `patternProperties` keys are spec-provided regular expressions; one that does not compile matches nothing. */
function safeTest(pattern: string, key: string): boolean {
  let regex = patternCache.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern, "u");
    } catch {
      regex = null;
    }
    if (patternCache.size < 1024) patternCache.set(pattern, regex);
  }
  return regex !== null && regex.test(key);
}
