import { canonicalJson } from "@sluice/schema";
import type { McpToolAnnotations } from "@sluice/core";
import { guards } from "@sluice/core/guards";
import { escapePointer, type McpSnapshot, type McpSnapshotTool } from "./snapshot.ts";

/** How a committed snapshot and the live server differ. Empty lists and no `changed` entry: nothing moved. */
export interface SnapshotDiff {
  /** Tools the server lists that the snapshot does not, by name. */
  added: string[];
  /** Tools in the snapshot the server no longer lists. */
  removed: string[];
  /** Tools in both whose definitions differ in anything, by name. */
  changed: ToolChange[];
  /** The server's name, version or protocol version moved (informational: tools decide). */
  server?: { before: string; after: string };
}

/** A text the model reads (a description, a title, a default, examples) that changed. */
export interface TextChange {
  /** JSON pointer into the tool definition (`/description`, `/inputSchema/properties/path/description`). */
  pointer: string;
  before?: string;
  after?: string;
}

export interface ToolChange {
  name: string;
  /** The tool's own description, when it changed. */
  description?: { before?: string; after?: string };
  /** Every text that changed, the description and title included, and those inside the input schema. */
  texts: TextChange[];
  /**
   * JSON pointers (into the live tool: `/inputSchema/properties/mode`) where the live input
   * schema may accept more than the committed one, or an annotation relaxed
   * (`/annotations/readOnlyHint`). Anything not proven narrower counts as wider.
   */
  widenings: string[];
  /** Pointers where the live definition provably accepts less. */
  narrowings: string[];
  /** Why each widening or narrowing was reported, by pointer, for a person. */
  why: Record<string, string>;
  /** Other changes that neither widen nor narrow what is sent (the output schema). */
  other: string[];
  /**
   * Whether the change keeps the tool from being served until the snapshot is regenerated:
   * a changed text the model reads, or any widening.
   */
  blocking: boolean;
}

/**
 * Compares a committed snapshot with the server's live definitions. Pure: the same two
 * snapshots always give the same diff. The comparison of input schemas is conservative:
 * a change it cannot prove narrower (a new property, a required member dropped, an enum,
 * const, pattern or bound relaxed, an object opened, a type added, a `$ref` it cannot
 * follow, a keyword it does not know) is a widening.
 */
export function diffSnapshot(committed: McpSnapshot, live: McpSnapshot): SnapshotDiff {
  const before = new Map(committed.tools.map((tool) => [tool.name, tool]));
  const after = new Map(live.tools.map((tool) => [tool.name, tool]));
  const diff: SnapshotDiff = {
    added: [...after.keys()].filter((name) => !before.has(name)).sort(),
    removed: [...before.keys()].filter((name) => !after.has(name)).sort(),
    changed: [],
  };
  for (const [name, was] of [...before].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const now = after.get(name);
    if (now === undefined || canonicalJson(was) === canonicalJson(now)) continue;
    diff.changed.push(diffTool(was, now));
  }
  const id = (s: McpSnapshot) => `${s.server.name} ${s.server.version} (protocol ${s.protocolVersion})`;
  if (id(committed) !== id(live)) diff.server = { before: id(committed), after: id(live) };
  return diff;
}

/** Whether a diff holds anything that must stop a served or checked pack: a new tool or a blocking change. */
export function diffBlocks(diff: SnapshotDiff, options: { allowNewTools?: boolean } = {}): boolean {
  if (!guards.mcpSnapshotLock) return false;
  return (diff.added.length > 0 && options.allowNewTools !== true) || diff.changed.some((change) => change.blocking);
}

function diffTool(before: McpSnapshotTool, after: McpSnapshotTool): ToolChange {
  const found = new Findings();
  for (const key of ["title", "description"] as const) {
    if (before[key] !== after[key]) found.text(`/${key}`, before[key], after[key]);
  }
  compareAnnotations(before.annotations ?? {}, after.annotations ?? {}, found);
  const comparer = new SchemaComparer(before.inputSchema, after.inputSchema, "/inputSchema");
  comparer.compare(before.inputSchema, after.inputSchema, "/inputSchema", found);
  comparer.compareDefinitionTexts(found);
  const other: string[] = [];
  if (canonicalJson(before.outputSchema ?? null) !== canonicalJson(after.outputSchema ?? null)) other.push("/outputSchema");
  const change: ToolChange = {
    name: before.name,
    texts: found.texts,
    widenings: [...found.widenings.keys()].sort(),
    narrowings: [...found.narrowings.keys()].filter((pointer) => !found.widenings.has(pointer)).sort(),
    why: {},
    other,
    blocking: false,
  };
  for (const pointer of change.narrowings) change.why[pointer] = found.narrowings.get(pointer)!;
  for (const pointer of change.widenings) change.why[pointer] = found.widenings.get(pointer)!;
  if (before.description !== after.description) {
    change.description = {};
    if (before.description !== undefined) change.description.before = before.description;
    if (after.description !== undefined) change.description.after = after.description;
  }
  change.blocking = change.texts.length > 0 || change.widenings.length > 0;
  return change;
}

/**
 * Hints whose relaxation makes a tool riskier than it was approved as: MCP's defaults are
 * the risky values (readOnlyHint false, destructiveHint true, idempotentHint false,
 * openWorldHint true), so an absent hint reads as its default.
 */
const SAFE_VALUE: ReadonlyArray<[keyof McpToolAnnotations, boolean, boolean]> = [
  ["readOnlyHint", true, false],
  ["destructiveHint", false, true],
  ["idempotentHint", true, false],
  ["openWorldHint", false, true],
];

function compareAnnotations(before: McpToolAnnotations, after: McpToolAnnotations, found: Findings): void {
  for (const [hint, safe, fallback] of SAFE_VALUE) {
    const was = (before[hint] as boolean | undefined) ?? fallback;
    const now = (after[hint] as boolean | undefined) ?? fallback;
    if (was === now) continue;
    if (was === safe) found.widen(`/annotations/${hint}`, `${hint} was ${was}, now ${now}`);
    else found.narrow(`/annotations/${hint}`, `${hint} was ${was}, now ${now}`);
  }
  if (before.title !== after.title) found.text("/annotations/title", before.title, after.title);
}

class Findings {
  readonly widenings = new Map<string, string>();
  readonly narrowings = new Map<string, string>();
  readonly texts: TextChange[] = [];
  widen(pointer: string, why: string): void {
    if (!this.widenings.has(pointer)) this.widenings.set(pointer, why);
  }
  narrow(pointer: string, why: string): void {
    if (!this.narrowings.has(pointer)) this.narrowings.set(pointer, why);
  }
  text(pointer: string, before: unknown, after: unknown): void {
    const change: TextChange = { pointer };
    if (before !== undefined) change.before = typeof before === "string" ? before : canonicalJson(before);
    if (after !== undefined) change.after = typeof after === "string" ? after : canonicalJson(after);
    this.texts.push(change);
  }
  get empty(): boolean {
    return this.widenings.size === 0 && this.narrowings.size === 0 && this.texts.length === 0;
  }
}

type Schema = Record<string, unknown> | boolean;

/** Keywords a person or model reads but that constrain nothing: a change is a text change. */
const TEXT_KEYWORDS = new Set(["description", "title", "default", "examples", "$comment", "writeOnly", "contentSchema"]);
/** Upper bounds: larger or gone accepts more. */
const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"];
/** Lower bounds: smaller or gone accepts more. */
const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"];
/** Handled by their own rules below (or, for `$defs`, through the `$ref`s that reach them). */
const HANDLED = new Set([
  ...TEXT_KEYWORDS,
  ...UPPER,
  ...LOWER,
  "$ref",
  "$defs",
  "definitions",
  "type",
  "enum",
  "const",
  "multipleOf",
  "properties",
  "additionalProperties",
  "patternProperties",
  "required",
  "dependentRequired",
  "items",
  "prefixItems",
  "anyOf",
  "oneOf",
  "allOf",
  "then",
  "else",
  "uniqueItems",
  "deprecated",
  "readOnly",
]);

/**
 * Keywords added that count as wider: `if` and `not` (the comparer does not reason about
 * them, so they are not proven narrower), and those that move what a reference resolves to
 * (a new base URI or anchor can redirect a `$ref` / `$dynamicRef` elsewhere in the document).
 */
const ADDED_MAY_WIDEN = new Set(["if", "not", "$schema", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$dynamicRef", "$recursiveRef", "$vocabulary"]);

/** Past this many schema comparisons the rest is reported as wider, never left unchecked. */
const BUDGET = 100_000;

/**
 * Decides, keyword by keyword, whether the live schema (`after`) accepts no more than the
 * committed one (`before`). Sound but incomplete: it may call a narrower schema wider,
 * never a wider one narrower. `$ref`s are followed in their own document; a pair of
 * schemas met again through a cycle is taken as holding (what the rest of the walk proves).
 */
class SchemaComparer {
  readonly #visiting = new Map<object, Set<object>>();
  readonly #silent = new Map<object, Map<object, boolean>>();
  #spent = 0;
  /** Counts pairs taken as holding because a cycle met them: a result that used one is not memoised. */
  #assumed = 0;
  constructor(
    readonly beforeRoot: Schema,
    readonly afterRoot: Schema,
    readonly rootPointer: string,
  ) {}

  compare(beforeIn: unknown, afterIn: unknown, pointer: string, found: Findings): void {
    if (++this.#spent > BUDGET) return found.widen(pointer, "too large to compare; counted as wider");
    const before = this.#resolve(beforeIn, this.beforeRoot);
    const afterResolved = this.#resolve(afterIn, this.afterRoot);
    if (before === undefined) return found.widen(pointer, "the committed schema here has a $ref that cannot be followed");
    if (afterResolved === undefined) return found.widen(pointer, "a $ref here cannot be followed");
    const after = afterResolved.schema;
    const at = afterResolved.pointer ?? pointer;
    const b = before.schema;
    if (typeof b === "boolean" || typeof after === "boolean") return this.#compareBooleans(b, after, at, found);
    const seen = this.#visiting.get(b) ?? new Set<object>();
    if (seen.has(after)) {
      this.#assumed++;
      return;
    }
    seen.add(after);
    this.#visiting.set(b, seen);
    try {
      this.#compareObjects(b, after, at, found);
    } finally {
      seen.delete(after);
    }
  }

  /**
   * Texts inside root `$defs` / `definitions` entries that no `$ref` reaches (the walk above
   * meets only those it reaches): a model reading the schema reads them all. A whole entry
   * added or removed is a text change at its pointer.
   */
  compareDefinitionTexts(found: Findings): void {
    const seen = new Set(found.texts.map((text) => text.pointer));
    for (const container of ["$defs", "definitions"]) {
      const was = typeof this.beforeRoot === "object" ? recordOf(this.beforeRoot[container]) ?? {} : {};
      const now = typeof this.afterRoot === "object" ? recordOf(this.afterRoot[container]) ?? {} : {};
      for (const name of [...new Set([...Object.keys(was), ...Object.keys(now)])].sort()) {
        const pointer = `${this.rootPointer}/${container}/${escapePointer(name)}`;
        const inWas = Object.prototype.hasOwnProperty.call(was, name);
        const inNow = Object.prototype.hasOwnProperty.call(now, name);
        if (inWas !== inNow) {
          if (!seen.has(pointer)) found.text(pointer, inWas ? was[name] : undefined, inNow ? now[name] : undefined);
          continue;
        }
        if (canonicalJson(was[name]) === canonicalJson(now[name])) continue;
        const scratch = new Findings();
        this.compare(was[name], now[name], pointer, scratch);
        for (const text of scratch.texts) {
          if (seen.has(text.pointer)) continue;
          seen.add(text.pointer);
          found.texts.push(text);
        }
      }
    }
  }

  /** Whether `after` is proven to accept no more than `before` (memoised; texts do not count). */
  #within(before: unknown, after: unknown): boolean {
    if (typeof before === "object" && before !== null && typeof after === "object" && after !== null) {
      const known = this.#silent.get(before)?.get(after);
      if (known !== undefined) return known;
    }
    const found = new Findings();
    const assumed = this.#assumed;
    this.compare(before, after, "", found);
    const result = found.widenings.size === 0;
    if (this.#assumed === assumed && typeof before === "object" && before !== null && typeof after === "object" && after !== null) {
      const row = this.#silent.get(before) ?? new Map<object, boolean>();
      row.set(after, result);
      this.#silent.set(before, row);
    }
    return result;
  }

  /** Whether the two accept exactly the same (no widening, no narrowing). */
  #same(before: unknown, after: unknown): boolean {
    const found = new Findings();
    this.compare(before, after, "", found);
    return found.widenings.size === 0 && found.narrowings.size === 0;
  }

  #compareBooleans(before: Schema, after: Schema, pointer: string, found: Findings): void {
    // A text on the object side (`true` -> `{ description: "..." }`) is still a text the model reads.
    const textOf = (schema: Schema, key: string) => (typeof schema === "boolean" ? undefined : schema[key]);
    for (const key of TEXT_KEYWORDS) {
      if (canonicalJson(textOf(before, key) ?? null) !== canonicalJson(textOf(after, key) ?? null)) found.text(`${pointer}/${escapePointer(key)}`, textOf(before, key), textOf(after, key));
    }
    const b = typeof before === "boolean" ? before : Object.keys(before).every((key) => TEXT_KEYWORDS.has(key)) ? true : undefined;
    const a = typeof after === "boolean" ? after : Object.keys(after).every((key) => TEXT_KEYWORDS.has(key)) ? true : undefined;
    if (b === a) return;
    if (b === true) return found.narrow(pointer, "now constrained");
    if (a === false) return found.narrow(pointer, "now accepts nothing");
    found.widen(pointer, b === false ? "accepted nothing, now accepts values" : "no longer constrained");
  }

  #compareObjects(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    for (const key of TEXT_KEYWORDS) {
      if (canonicalJson(b[key] ?? null) !== canonicalJson(a[key] ?? null)) found.text(`${at}/${escapePointer(key)}`, b[key], a[key]);
    }
    this.#compareTypes(b, a, at, found);
    this.#compareValues(b, a, at, found);
    for (const key of UPPER) this.#bound(key, b[key], a[key], at, found, (was, now) => now > was);
    for (const key of LOWER) {
      // Beside `contains`, an absent minContains is 1: `minContains: 0` added lets every array through.
      const implied = (s: Record<string, unknown>) => (key === "minContains" && s[key] === undefined && "contains" in s ? 1 : s[key]);
      this.#bound(key, implied(b), implied(a), at, found, (was, now) => now < was);
    }
    this.#compareMultipleOf(b, a, at, found);
    this.#compareFlags(b, a, at, found);
    this.#compareObjectKeys(b, a, at, found);
    this.#compareRequired(b, a, at, found);
    this.#compareArrays(b, a, at, found);
    this.#compareCombinators(b, a, at, found);
    for (const key of ["then", "else"]) this.#optionalSubschema(key, b[key], a[key], at, found);
    this.#compareEvaluation(b, a, at, found);
    // Anything else (pattern, format, not, if, contains, propertyNames, dependentSchemas,
    // unevaluated*, $schema, vendor keywords): unchanged, or added (a new constraint), or wider.
    const keys = new Set([...Object.keys(b), ...Object.keys(a)]);
    for (const key of [...keys].sort()) {
      if (HANDLED.has(key)) continue;
      const pointer = `${at}/${escapePointer(key)}`;
      if (!(key in a)) found.widen(pointer, `${key} removed`);
      else if (!(key in b)) {
        // A constraint added narrows, except where a keyword's presence alone can admit more.
        if (ADDED_MAY_WIDEN.has(key)) found.widen(pointer, `${key} added; not proven narrower`);
        else found.narrow(pointer, `${key} added`);
      } else if (canonicalJson(b[key]) !== canonicalJson(a[key])) found.widen(pointer, `${key} changed; not proven narrower`);
    }
  }

  #compareTypes(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    const was = typesOf(b["type"]);
    const now = typesOf(a["type"]);
    const pointer = `${at}/type`;
    if (was === undefined) {
      if (now !== undefined) found.narrow(pointer, "type added");
      return;
    }
    if (now === undefined) return found.widen(pointer, `type ${[...was].join(", ")} removed`);
    const extra = [...now].filter((type) => !was.has(type) && !(type === "integer" && was.has("number")));
    if (extra.length > 0) found.widen(pointer, `type ${extra.join(", ")} added`);
    else if ([...was].some((type) => !now.has(type))) found.narrow(pointer, "types removed");
  }

  #compareValues(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    const allowed = (s: Record<string, unknown>): Set<string> | undefined => {
      const sets: Set<string>[] = [];
      if ("const" in s) sets.push(new Set([canonicalJson(s["const"])]));
      if (Array.isArray(s["enum"])) sets.push(new Set((s["enum"] as unknown[]).map((value) => canonicalJson(value))));
      if (sets.length === 0) return undefined;
      return sets.reduce((x, y) => new Set([...x].filter((value) => y.has(value))));
    };
    if ("enum" in b && !Array.isArray(b["enum"])) return found.widen(`${at}/enum`, "the committed enum is not a list");
    if ("enum" in a && !Array.isArray(a["enum"])) return found.widen(`${at}/enum`, "enum is not a list");
    const was = allowed(b);
    const now = allowed(a);
    const pointer = `${at}/${"enum" in a || !("const" in a) ? "enum" : "const"}`;
    if (was === undefined) {
      if (now !== undefined) found.narrow(pointer, "values now listed");
      return;
    }
    if (now === undefined) return found.widen(pointer, "the list of values was removed");
    const extra = [...now].filter((value) => !was.has(value));
    if (extra.length > 0) found.widen(pointer, `new values ${extra.slice(0, 5).join(", ")}`);
    else if (now.size < was.size) found.narrow(pointer, "values removed");
  }

  #bound(key: string, was: unknown, now: unknown, at: string, found: Findings, wider: (was: number, now: number) => boolean): void {
    if (was === undefined && now === undefined) return;
    const pointer = `${at}/${key}`;
    if (was === undefined) return found.narrow(pointer, `${key} added`);
    if (now === undefined) return found.widen(pointer, `${key} ${String(was)} removed`);
    if (typeof was !== "number" || typeof now !== "number") {
      // Draft 4's boolean exclusiveMaximum, or nonsense: equal or wider.
      if (canonicalJson(was) !== canonicalJson(now)) found.widen(pointer, `${key} changed`);
      return;
    }
    if (wider(was, now)) found.widen(pointer, `${key} ${was} -> ${now}`);
    else if (was !== now) found.narrow(pointer, `${key} ${was} -> ${now}`);
  }

  #compareMultipleOf(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    const was = b["multipleOf"];
    const now = a["multipleOf"];
    if (was === undefined && now === undefined) return;
    const pointer = `${at}/multipleOf`;
    if (was === undefined) return found.narrow(pointer, "multipleOf added");
    if (now === undefined) return found.widen(pointer, "multipleOf removed");
    if (typeof was === "number" && typeof now === "number" && was > 0 && Number.isInteger(now / was)) {
      if (now !== was) found.narrow(pointer, `multipleOf ${was} -> ${now}`);
      return;
    }
    found.widen(pointer, `multipleOf ${String(was)} -> ${String(now)}`);
  }

  /** Flags whose `true` constrains (uniqueItems) or withholds (deprecated and readOnly inputs are withheld by sluice's generators). */
  #compareFlags(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    for (const key of ["uniqueItems", "deprecated", "readOnly"]) {
      const was = b[key] === true;
      const now = a[key] === true;
      if (was && !now) found.widen(`${at}/${key}`, `${key} no longer true`);
      else if (!was && now) found.narrow(`${at}/${key}`, `${key} now true`);
    }
  }

  #compareObjectKeys(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    const was = recordOf(b["properties"]);
    const now = recordOf(a["properties"]);
    if (was === undefined || now === undefined) return found.widen(`${at}/properties`, "properties is not an object");
    for (const name of Object.keys(now).sort()) {
      const pointer = `${at}/properties/${escapePointer(name)}`;
      if (Object.prototype.hasOwnProperty.call(was, name)) this.compare(was[name], now[name], pointer, found);
      else found.widen(pointer, "new property");
    }
    const closed = a["additionalProperties"] === false && recordOf(a["patternProperties"]) !== undefined && Object.keys(recordOf(a["patternProperties"])!).length === 0;
    for (const name of Object.keys(was).sort()) {
      if (Object.prototype.hasOwnProperty.call(now, name)) continue;
      const pointer = `${at}/properties/${escapePointer(name)}`;
      if (closed) found.narrow(pointer, "property removed from a closed object");
      else found.widen(pointer, "property removed; its values are no longer checked as declared");
    }
    const extra = `${at}/additionalProperties`;
    const wasExtra = b["additionalProperties"];
    const nowExtra = a["additionalProperties"];
    if (wasExtra === undefined || wasExtra === true) {
      if (nowExtra !== undefined && nowExtra !== true) found.narrow(extra, "additional properties now constrained");
    } else if (nowExtra === undefined || nowExtra === true) {
      found.widen(extra, "additional properties opened");
    } else {
      this.compare(wasExtra, nowExtra, extra, found);
    }
    const wasPatterns = recordOf(b["patternProperties"]);
    const nowPatterns = recordOf(a["patternProperties"]);
    if (wasPatterns === undefined || nowPatterns === undefined) return found.widen(`${at}/patternProperties`, "patternProperties is not an object");
    for (const key of new Set([...Object.keys(wasPatterns), ...Object.keys(nowPatterns)])) {
      const pointer = `${at}/patternProperties/${escapePointer(key)}`;
      if (!Object.prototype.hasOwnProperty.call(nowPatterns, key)) found.widen(pointer, "pattern property removed");
      else if (!Object.prototype.hasOwnProperty.call(wasPatterns, key)) found.widen(pointer, "new pattern property; not proven narrower");
      else this.compare(wasPatterns[key], nowPatterns[key], pointer, found);
    }
  }

  #compareRequired(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    const was = new Set(stringsOf(b["required"]));
    const now = new Set(stringsOf(a["required"]));
    for (const name of [...was].sort()) if (!now.has(name)) found.widen(`${at}/required/${escapePointer(name)}`, `${name} no longer required`);
    for (const name of [...now].sort()) if (!was.has(name)) found.narrow(`${at}/required/${escapePointer(name)}`, `${name} now required`);
    const wasDeps = recordOf(b["dependentRequired"]) ?? {};
    const nowDeps = recordOf(a["dependentRequired"]) ?? {};
    for (const key of Object.keys(wasDeps).sort()) {
      const pointer = `${at}/dependentRequired/${escapePointer(key)}`;
      const nowList = new Set(stringsOf(nowDeps[key]));
      if (stringsOf(wasDeps[key]).some((name) => !nowList.has(name))) found.widen(pointer, "a dependent requirement removed");
    }
    for (const key of Object.keys(nowDeps).sort()) {
      const wasList = new Set(stringsOf(wasDeps[key]));
      if (stringsOf(nowDeps[key]).some((name) => !wasList.has(name))) found.narrow(`${at}/dependentRequired/${escapePointer(key)}`, "a dependent requirement added");
    }
  }

  #compareArrays(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    const wasItems = b["items"];
    const nowItems = a["items"];
    if (Array.isArray(wasItems) || Array.isArray(nowItems)) {
      // Draft 7's tuple form: only an unchanged list is proven no wider.
      if (canonicalJson(wasItems ?? null) !== canonicalJson(nowItems ?? null)) found.widen(`${at}/items`, "tuple items changed; not proven narrower");
    } else {
      this.#optionalSubschema("items", wasItems, nowItems, at, found);
    }
    const wasPrefix = b["prefixItems"];
    const nowPrefix = a["prefixItems"];
    if (wasPrefix === undefined && nowPrefix === undefined) return;
    const pointer = `${at}/prefixItems`;
    if (!Array.isArray(wasPrefix) || !Array.isArray(nowPrefix) || wasPrefix.length !== nowPrefix.length) {
      if (canonicalJson(wasPrefix ?? null) !== canonicalJson(nowPrefix ?? null)) found.widen(pointer, "prefixItems changed; not proven narrower");
      return;
    }
    wasPrefix.forEach((item, i) => this.compare(item, nowPrefix[i], `${pointer}/${i}`, found));
  }

  /** A keyword holding one subschema that constrains when present (`items`, `then`). */
  #optionalSubschema(key: string, was: unknown, now: unknown, at: string, found: Findings): void {
    if (was === undefined && now === undefined) return;
    const pointer = `${at}/${key}`;
    if (was === undefined) return found.narrow(pointer, `${key} added`);
    if (now === undefined) return found.widen(pointer, `${key} removed`);
    this.compare(was, now, pointer, found);
  }

  #compareCombinators(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    // anyOf: every live branch must be within some committed branch.
    const wasAny = b["anyOf"];
    const nowAny = a["anyOf"];
    if (wasAny !== undefined || nowAny !== undefined) {
      if (wasAny === undefined) found.narrow(`${at}/anyOf`, "anyOf added");
      else if (!Array.isArray(wasAny) || !Array.isArray(nowAny)) found.widen(`${at}/anyOf`, "anyOf removed or not a list");
      else {
        nowAny.forEach((branch, i) => {
          if (!wasAny.some((old) => this.#within(old, branch))) found.widen(`${at}/anyOf/${i}`, "a branch not within any committed branch");
        });
        if (nowAny.length < wasAny.length) found.narrow(`${at}/anyOf`, "branches removed");
      }
    }
    // oneOf: narrowing one branch can admit a value that matched two; only the same branches are proven.
    const wasOne = b["oneOf"];
    const nowOne = a["oneOf"];
    if (wasOne !== undefined || nowOne !== undefined) {
      if (wasOne === undefined) found.narrow(`${at}/oneOf`, "oneOf added");
      else if (!Array.isArray(wasOne) || !Array.isArray(nowOne) || wasOne.length !== nowOne.length) found.widen(`${at}/oneOf`, "oneOf branches changed; not proven narrower");
      else nowOne.forEach((branch, i) => !this.#same(wasOne[i], branch) && found.widen(`${at}/oneOf/${i}`, "a oneOf branch changed; not proven narrower"));
    }
    // allOf: every committed member must still be implied by some live member.
    const wasAll = b["allOf"];
    const nowAll = a["allOf"];
    if (wasAll !== undefined || nowAll !== undefined) {
      if (wasAll === undefined) found.narrow(`${at}/allOf`, "allOf added");
      else if (!Array.isArray(wasAll) || !Array.isArray(nowAll)) found.widen(`${at}/allOf`, "allOf removed or not a list");
      else {
        wasAll.forEach((member, i) => {
          const same = nowAll[i];
          if (same !== undefined && this.#within(member, same)) {
            this.compare(member, same, `${at}/allOf/${i}`, found);
          } else if (!nowAll.some((live) => this.#within(member, live))) {
            found.widen(`${at}/allOf/${i}`, "a committed allOf member is no longer implied");
          }
        });
        if (nowAll.length > wasAll.length) found.narrow(`${at}/allOf`, "members added");
      }
    }
  }

  /**
   * `unevaluatedProperties` / `unevaluatedItems` of the committed schema constrain only what
   * no sibling keyword (through `allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`,
   * `dependentSchemas`, `$ref`) evaluated: a live schema that evaluates more (a branch that
   * names a new property, a `contains` or `prefixItems` that reaches more items) lets more
   * through, even where each of those edits alone would narrow. Proven no wider only when
   * the live schema evaluates the same way: the same property names, patterns and catch-alls
   * (the same item positions) at every place, and every subschema whose success decides
   * what is evaluated is within its committed counterpart, place by place.
   */
  #compareEvaluation(b: Record<string, unknown>, a: Record<string, unknown>, at: string, found: Findings): void {
    for (const [keyword, kind] of [["unevaluatedProperties", "properties"], ["unevaluatedItems", "items"]] as const) {
      if (!constrains(b[keyword])) continue;
      if (!this.#evaluatesWithin(b, a, kind, 0)) found.widen(`${at}/${keyword}`, `what the keywords beside ${keyword} evaluate changed; the live schema may leave fewer ${kind} to it (not proven narrower)`);
    }
  }

  /** Whether `after` evaluates (properties or items) only where `before` does, on every instance both accept. */
  #evaluatesWithin(beforeIn: unknown, afterIn: unknown, kind: "properties" | "items", depth: number): boolean {
    if (depth > 24 || ++this.#spent > BUDGET) return false;
    const before = this.#resolve(beforeIn, this.beforeRoot)?.schema;
    const after = this.#resolve(afterIn, this.afterRoot)?.schema;
    if (before === undefined || after === undefined) return false;
    // A boolean schema evaluates nothing; nor does an object schema without evaluating keywords.
    const b = typeof before === "boolean" ? {} : before;
    const a = typeof after === "boolean" ? {} : after;
    const keys = kind === "properties" ? PROPERTY_EVALUATORS : ITEM_EVALUATORS;
    for (const key of keys) if ((key in b) !== (key in a)) return false;
    if (kind === "properties") {
      for (const key of ["properties", "patternProperties"]) {
        const was = recordOf(b[key]);
        const now = recordOf(a[key]);
        if (was === undefined || now === undefined || canonicalJson(Object.keys(was).sort()) !== canonicalJson(Object.keys(now).sort())) return false;
      }
      // Which properties a catch-all evaluates does not depend on its subschema, only on its success.
    } else {
      const was = b["prefixItems"];
      const now = a["prefixItems"];
      if ((Array.isArray(was) ? was.length : -1) !== (Array.isArray(now) ? now.length : -1)) return false;
      // The items `contains` evaluates are those it accepts: a wider `contains` evaluates more.
      if ("contains" in b && !this.#within(b["contains"], a["contains"])) return false;
      if (Array.isArray(b["items"]) || Array.isArray(a["items"])) return canonicalJson(b["items"] ?? null) === canonicalJson(a["items"] ?? null);
    }
    // In-place subschemas: what each evaluates counts when it succeeds, so each must succeed
    // no more often than its committed counterpart at the same place, and evaluate no more.
    const place = (was: unknown, now: unknown) => this.#within(was, now) && this.#evaluatesWithin(was, now, kind, depth + 1);
    for (const key of ["allOf", "anyOf", "oneOf"]) {
      const was = b[key];
      const now = a[key];
      if (was === undefined && now === undefined) continue;
      if (!Array.isArray(was) || !Array.isArray(now) || was.length !== now.length) return false;
      if (!was.every((member, i) => place(member, now[i]))) return false;
    }
    if ("if" in b || "if" in a) {
      // `then` or `else` applies by whether `if` succeeds: the same `if`, or nothing is proven.
      if (!this.#same(b["if"], a["if"]) || !this.#evaluatesWithin(b["if"], a["if"], kind, depth + 1)) return false;
    }
    for (const key of ["then", "else"]) {
      if (!(key in b) && !(key in a)) continue;
      if (!(key in b) || !(key in a) || !place(b[key], a[key])) return false;
    }
    const wasDeps = recordOf(b["dependentSchemas"]);
    const nowDeps = recordOf(a["dependentSchemas"]);
    if (wasDeps === undefined || nowDeps === undefined) return false;
    if (canonicalJson(Object.keys(wasDeps).sort()) !== canonicalJson(Object.keys(nowDeps).sort())) return false;
    return Object.keys(wasDeps).every((name) => place(wasDeps[name], nowDeps[name]));
  }

  /**
   * Follows local `$ref`s (chains included) to the schema they name. A `$ref` with sibling
   * keywords is the target and the siblings together (2020-12); when a sibling repeats one
   * of the target's keywords with another value, the two cannot be merged and the result is
   * undefined (reported as wider).
   */
  #resolve(schema: unknown, root: Schema): { schema: Schema; pointer?: string } | undefined {
    let current: unknown = schema;
    let pointer: string | undefined;
    const merged: Record<string, unknown> = {};
    for (let hops = 0; hops < 32; hops++) {
      if (typeof current === "boolean") return Object.keys(merged).length === 0 ? (pointer === undefined ? { schema: current } : { schema: current, pointer }) : undefined;
      if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
      const node = current as Record<string, unknown>;
      const ref = node["$ref"];
      if (typeof ref !== "string") {
        if (Object.keys(merged).length === 0) return pointer === undefined ? { schema: node } : { schema: node, pointer };
        for (const [key, value] of Object.entries(node)) {
          if (key in merged && canonicalJson(merged[key]) !== canonicalJson(value)) return undefined;
          merged[key] = value;
        }
        return pointer === undefined ? { schema: merged } : { schema: merged, pointer };
      }
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" || key === "$defs" || key === "definitions") continue;
        if (key in merged && canonicalJson(merged[key]) !== canonicalJson(value)) return undefined;
        merged[key] = value;
      }
      const target = lookup(root, ref);
      if (target === undefined) return undefined;
      pointer = `${this.rootPointer}${ref.slice(1)}`;
      current = target;
    }
    return undefined;
  }
}

/** Keywords whose presence decides which properties a schema evaluates (beside their own names and patterns). */
const PROPERTY_EVALUATORS = ["properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas"];
/** Keywords whose presence decides which items a schema evaluates. */
const ITEM_EVALUATORS = ["prefixItems", "items", "contains", "unevaluatedItems", "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas"];

/** Whether a schema value constrains anything: not absent, not `true`, not `{}`. */
function constrains(schema: unknown): boolean {
  if (schema === undefined || schema === true) return false;
  return !(typeof schema === "object" && schema !== null && !Array.isArray(schema) && Object.keys(schema).length === 0);
}

/** A local JSON pointer reference (`#/$defs/Name`, `#/definitions/Name`, `#`) in its document. */
function lookup(root: Schema, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (typeof node !== "object" || node === null || !Object.prototype.hasOwnProperty.call(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function typesOf(type: unknown): Set<string> | undefined {
  if (typeof type === "string") return new Set([type]);
  if (Array.isArray(type)) return new Set(type.filter((t): t is string => typeof t === "string"));
  return undefined;
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return {};
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * A diff for a person: one line per added or removed tool, per widening (with its pointer
 * and why), per changed text (before and after, `-` / `+` quoted lines), and a count of
 * narrowings. Blocking entries first within each tool. Empty when nothing differs.
 */
export function formatSnapshotDiff(diff: SnapshotDiff, indent = ""): string {
  const lines: string[] = [];
  for (const name of diff.added) lines.push(`new tool ${name} (not in the snapshot)`);
  for (const name of diff.removed) lines.push(`tool ${name} is no longer listed`);
  for (const change of diff.changed) {
    for (const pointer of change.widenings) lines.push(`${change.name}: WIDER at ${pointer} (${change.why[pointer]})`);
    for (const text of change.texts) {
      lines.push(`${change.name}: text changed at ${text.pointer}`);
      for (const line of (text.before ?? "(none)").split("\n")) lines.push(`  - ${line}`);
      for (const line of (text.after ?? "(none)").split("\n")) lines.push(`  + ${line}`);
    }
    if (change.narrowings.length > 0) lines.push(`${change.name}: narrower at ${change.narrowings.join(", ")}`);
    for (const pointer of change.other) lines.push(`${change.name}: changed at ${pointer}`);
  }
  if (diff.server !== undefined) lines.push(`server: ${diff.server.before} -> ${diff.server.after}`);
  return lines.map((line) => `${indent}${line}\n`).join("");
}
