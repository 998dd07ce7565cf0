import {
  canonicalJson,
  cyclicComponents,
  defsOf,
  hasOwn,
  isSchemaObject,
  reachable,
  refGraph,
  refTarget,
  ROOT,
  UNION_KEYWORDS,
  walkSchema,
  withinLimits,
  type JsonSchemaObject,
} from "@sluice/schema";
import { isFreeForm, openingSchema } from "../object-openness.ts";
import { BRANCH_KEYWORDS } from "../projection/schema-workspace.ts";
import { formatSegment, splitSelector } from "../projection/selectors.ts";
import type { Tool } from "../tool.ts";
import type { Binding, HttpBinding, PackSelection, WithheldPath } from "../tool-ir.ts";
import { clashOf, explodesKeys, reservedNames, schemesOf, type Reservation, type WireLocation } from "../http/wire-names.ts";
import { fetchedPaths } from "../bindings/graphql-returns.ts";

export interface EgressPath {
  /** Selector spelling: `filter.title` from the root, `IssueFilter.and` inside a type section. */
  path: string;
  /**
   * The path's segments, spelled as selectors spell them: a property name (quoted as a JSON
   * string when it holds selector syntax: `"@odata.type"`); `*` for any key an open object admits
   * (`additionalProperties`, or a free-form object); `/regex/` for a `patternProperties`
   * pattern; `anyOf[Label]` / `oneOf[Label]` for a union branch (Label: the type the branch
   * refers to, else its 0-based position), as selectors spell it.
   */
  segments: string[];
  /** Short type: `string`, `IssueFilter[]`, `enum: a | b`. */
  type: string;
  /** Type sections (in `types`) where this value's members continue, when it reaches any. */
  continues?: string[];
  /**
   * The limits screening enforces on the value, one constraint an item, sorted (see
   * `valueLimits`): `required`, `maxLength 255`, `pattern "^[a-z]+$"`, `items.minimum 0`.
   * Absent when there are none. A loosened limit is a widening, as a new path is.
   */
  limits?: string[];
}

export interface EgressTypeSection {
  name: string;
  recursive: boolean;
  /** Other sections whose members apply here too (reached through `allOf`, unions or refs). */
  includes?: string[];
  /** For a type without members (an enum, a scalar alias): its values or base type. */
  type?: string;
  members: EgressPath[];
}

export interface EgressToolEntry {
  name: string;
  /** `POST graphql query issues`, `GET /v1/customers`. */
  endpoint: string;
  /** Argument paths the model can see and send. */
  visible: EgressPath[];
  /** Types reached from more than one place or through a cycle, listed once each. */
  types: EgressTypeSection[];
  withheld: WithheldPath[];
  pins: Record<string, unknown>;
  /** GraphQL tools narrowed with `returns`: the response paths still fetched. */
  fetched?: string[];
  /**
   * Keys the runtime refuses although the schema admits them: keys of an exploded query or
   * cookie object that would be sent as another name on the wire (a parameter, a withheld or
   * pinned one, a credential), listed so `filter.*` does not read as "every key"; and a
   * declared `__proto__` (a prototype key). Sorted by path.
   */
  reserved?: ReservedKey[];
}

/** A key an exploded object argument cannot send, with why (`wire name (withheld admin)`). */
export interface ReservedKey {
  path: string;
  reason: string;
}

/** What each tool lets the model see and send, and what is withheld and why. */
export function egressMap(tools: readonly Tool<object>[]): EgressToolEntry[] {
  return egressMapWith(tools, new MapMemo());
}

/**
 * egressMap with the reuse between tools chosen: `new MapMemo()` (what egressMap does), or
 * none, which walks every tool's types afresh (the reference the reuse is tested against).
 * The entries may share their sections' member lists, and visible lines, between tools: read them, do not edit them.
 */
export function egressMapWith(tools: readonly Tool<object>[], memo: MapMemo | undefined): EgressToolEntry[] {
  return [...tools].sort((a, b) => compare(a.name, b.name)).map((tool) => withinLimits(`egressMap() of ${tool.name}`, () => describeTool(tool, memo)));
}

/**
 * What one egressMap call keeps between its tools. A pack's tools share their definition
 * objects, and each tool of a large pack reaches the same types again (Kubernetes: 1,410
 * type sections in 1,123 tools, 78 of them distinct): a type's section, and a definition's
 * refs and `$ref` sites, are worked out once per definition body and reused while every
 * answer the section read from the tool's definitions (which body a name has, whether it
 * is sectioned, which type a split copy stands for) is the same in the tool at hand.
 * So are the lines below a plain `$ref` to a definition listed inline (not below every shared
 * node: kept at every level, those had cost 1.7x the allocation).
 */
export class MapMemo {
  readonly sections = new WeakMap<object, TypeSection[]>();
  readonly refs = new WeakMap<object, string[]>();
  readonly sites = new WeakMap<object, ReadonlyMap<string, number>>();
  /** The lines below an inline definition (a plain `$ref` to it), per body and depth: see listBelow. */
  readonly below = new WeakMap<object, Subtree[]>();
  /** What a first-level line says of its value, per value schema: see knownLineInfo. */
  readonly lines = new WeakMap<object, Array<LineInfo & { answers: Answers }>>();
}

/**
 * The lines below a position that is a plain reference to an inline definition, relative to
 * it, in the order the walk emits them, with the answers they read; `placed`: the same lines
 * under each path they were listed at (tools listing a type at the same path share them).
 */
interface Subtree {
  depth: number;
  answers: Answers;
  lines: EgressPath[];
  placed: Map<string, EgressPath[]>;
}

/** Sections kept per definition: one sectioned differently in many tools is rare, and each costs a check. */
const SECTIONS_PER_DEFINITION = 8;

function describeTool(tool: Tool<object>, memo: MapMemo | undefined): EgressToolEntry {
  const schema = tool.inputSchema;
  const defs = defsOf(schema);
  // Each definition's refs read once per pack (the tools share their definition objects).
  const graph = refGraph(schema, memo?.refs);
  const live = reachable(graph, ROOT);
  const recursive = new Set(cyclicComponents(graph).flat());
  const sites = new Map<string, number>();
  for (const name of live) {
    const body = name === ROOT ? schema : defs[name]!;
    // The root is the tool's own; a definition's sites are the same in every tool.
    const shared = name !== ROOT && memo !== undefined && isSchemaObject(body);
    let found = shared ? memo.sites.get(body) : undefined;
    if (found === undefined) {
      found = refSites(body, name === ROOT);
      if (shared) memo.sites.set(body, found);
    }
    for (const [target, n] of found) sites.set(target, (sites.get(target) ?? 0) + n);
  }
  const sectioned = new Set([...live].filter((name) => name !== ROOT && (recursive.has(name) || (sites.get(name) ?? 0) > 1)));

  const ctx: MapContext = { defs, sectioned, origins: tool.definitionOrigins, memo, answers: undefined };
  const types = [...sectioned].sort(compare).map((name): EgressTypeSection => {
    const { members, includes, type } = sectionOf(name, defs[name]!, ctx);
    const section: EgressTypeSection = { name, recursive: recursive.has(name), members };
    if (includes.length > 0) section.includes = includes;
    if (type !== undefined) section.type = type;
    return section;
  });
  const entry: EgressToolEntry = {
    name: tool.name,
    endpoint: endpointOf(tool.binding),
    visible: inlinePaths(schema, [], ctx),
    types,
    withheld: [...tool.withheld].sort((a, b) => compare(a.path, b.path) || compare(a.reason, b.reason)),
    pins: { ...tool.pins },
  };
  if (tool.binding.kind === "graphql" && tool.binding.returns !== undefined) entry.fetched = fetchedPaths(tool.binding);
  // A schema may declare `__proto__`; screening refuses it all the same (see screen-arguments.ts), so the map must not list it as sendable.
  const prototypePaths = entry.visible.filter((p) => p.segments.includes("__proto__"));
  if (prototypePaths.length > 0) {
    entry.visible = entry.visible.filter((p) => !p.segments.includes("__proto__"));
    const cut = [...new Set(prototypePaths.map((p) => p.segments.slice(0, p.segments.indexOf("__proto__") + 1).join(".")))];
    entry.reserved = cut.sort(compare).map((path) => ({ path, reason: "prototype key" }));
  }
  if (tool.binding.kind === "http") {
    const reserved = reservedKeys(tool, tool.binding, entry.visible);
    if (reserved.length > 0) {
      const gone = new Set(reserved.map((r) => r.path));
      // A declared member the runtime refuses is not visible: the map lists it as reserved instead.
      entry.visible = entry.visible.filter((p) => !gone.has(p.segments.slice(0, 2).join(".")));
      entry.reserved = [...(entry.reserved ?? []), ...reserved].sort((a, b) => compare(a.path, b.path));
    }
  }
  return entry;
}

/** `$ref` sites in one body, by target (a target referred to from two places is listed in a section). */
function refSites(body: JsonSchemaObject, root: boolean): Map<string, number> {
  const sites = new Map<string, number>();
  walkSchema(
    body,
    ({ node }) => {
      if (typeof node.$ref === "string" && hasOwn(node, "$ref")) {
        const target = refTarget(node.$ref);
        sites.set(target, (sites.get(target) ?? 0) + 1);
      }
    },
    root ? { skipKeywords: SKIP_DEFS } : {},
  );
  return sites;
}

const SKIP_DEFS: ReadonlySet<string> = new Set(["$defs"]);


/** A type's section: its members, the sections included, and its own type when it has no members. */
interface TypeSection {
  members: EgressPath[];
  includes: string[];
  type: string | undefined;
  answers: Answers;
}

function sectionOf(name: string, body: JsonSchemaObject, ctx: MapContext): TypeSection {
  const memo = ctx.memo;
  const known = memo === undefined || !isSchemaObject(body) ? undefined : memo.sections.get(body);
  const reused = known?.find((section) => holds(section.answers, ctx));
  if (reused !== undefined) return reused;
  const answers = newAnswers();
  const frame: MapContext = { ...ctx, answers };
  const members = inlinePaths(body, [name], frame);
  const includes = sectionsIncluded(body, frame).filter((other) => other !== name);
  const type = members.length === 0 ? typeLabel(body, frame) : undefined;
  const section: TypeSection = { members, includes, type, answers };
  if (memo !== undefined && isSchemaObject(body)) remember(memo.sections, body, section);
  return section;
}

function remember<T>(store: WeakMap<object, T[]>, node: object, value: T): void {
  const list = store.get(node);
  if (list === undefined) store.set(node, [value]);
  else if (list.length < SECTIONS_PER_DEFINITION) list.push(value);
}

/**
 * The keys of each exploded object argument that screening refuses by wire name: declared
 * members whose name is reserved, and, where the object is open (`*` or a pattern), every
 * reserved name of its location.
 */
function reservedKeys(tool: Tool<object>, binding: HttpBinding, visible: readonly EgressPath[]): ReservedKey[] {
  const out = new Map<string, string>();
  const schemes = schemesOf(binding, tool.auth);
  for (const parameter of binding.parameters) {
    if (!explodesKeys(parameter) || hasOwn(tool.pins, parameter.arg)) continue;
    const spelled = formatSegment(parameter.arg);
    const below = visible.filter((p) => p.segments[0] === spelled && p.segments.length >= 2);
    if (below.length === 0) continue;
    const reserved = reservedNames(binding, schemes, parameter.in as WireLocation);
    const why = (r: Reservation): string =>
      r.why === "credential" ? "wire name (credential)" : r.why === "fixed" ? "wire name (fixed by the path)" : r.why === "withheld" ? `wire name (withheld ${r.arg})` : hasOwn(tool.pins, r.arg ?? "") ? `wire name (pinned ${r.arg})` : `wire name (argument ${r.arg})`;
    let open = false;
    for (const path of below) {
      const segment = path.segments[1]!;
      if (segment === "*" || segment.startsWith("/")) {
        open = true;
        continue;
      }
      if (/^(?:anyOf|oneOf)\[/.test(segment)) continue;
      const key = splitSelector(segment)[0]!;
      const clash = clashOf(reserved, key, parameter.arg);
      if (clash !== undefined) out.set(`${spelled}.${segment}`, why(clash));
    }
    if (!open) continue;
    for (const reservation of new Set(reserved.values())) {
      if (reservation.arg === parameter.arg) continue;
      const path = `${spelled}.${formatSegment(reservation.name)}`;
      if (!out.has(path)) out.set(path, why(reservation));
    }
  }
  return [...out.keys()].sort(compare).map((path) => ({ path, reason: out.get(path)! }));
}

/** Inline nesting listed in a map; real API inputs stay far below it. */
const MAX_LISTED_DEPTH = 64;

/** What the map needs to know of a tool's definitions. */
interface MapContext {
  defs: Record<string, JsonSchemaObject>;
  /** Definitions listed once in their own section (recursive, or reached from several places). */
  sectioned: ReadonlySet<string>;
  /** Split copies and the type each stands for: branch labels use the type, as selectors do. */
  origins: ReadonlyMap<string, string>;
  memo: MapMemo | undefined;
  /** Where the lookups below are recorded, while a section that may be reused is worked out. */
  answers: Answers | undefined;
}

/** What a section read of its tool's definitions, by name. */
interface Answers {
  defs: Map<string, JsonSchemaObject | undefined>;
  sectioned: Map<string, boolean>;
  origins: Map<string, string | undefined>;
}

/** Answers of what read none (never added to: addAnswers only reads from it). */
const NO_ANSWERS: Answers = { defs: new Map(), sectioned: new Map(), origins: new Map() };

function newAnswers(): Answers {
  return { defs: new Map(), sectioned: new Map(), origins: new Map() };
}

/** The tool's definition of that name (an own entry only). */
function defOf(ctx: MapContext, name: string): JsonSchemaObject | undefined {
  const body = hasOwn(ctx.defs, name) ? ctx.defs[name] : undefined;
  ctx.answers?.defs.set(name, body);
  return body;
}

function isSectioned(ctx: MapContext, name: string): boolean {
  const answer = ctx.sectioned.has(name);
  ctx.answers?.sectioned.set(name, answer);
  return answer;
}

function originOf(ctx: MapContext, name: string): string | undefined {
  const origin = ctx.origins.get(name);
  ctx.answers?.origins.set(name, origin);
  return origin;
}

function addAnswers(into: Answers, from: Answers): void {
  for (const [name, body] of from.defs) into.defs.set(name, body);
  for (const [name, answer] of from.sectioned) into.sectioned.set(name, answer);
  for (const [name, origin] of from.origins) into.origins.set(name, origin);
}

/** Whether every answer a section read holds in this tool too. */
function holds(answers: Answers, ctx: MapContext): boolean {
  for (const [name, body] of answers.defs) if ((hasOwn(ctx.defs, name) ? ctx.defs[name] : undefined) !== body) return false;
  for (const [name, answer] of answers.sectioned) if (ctx.sectioned.has(name) !== answer) return false;
  for (const [name, origin] of answers.origins) if (ctx.origins.get(name) !== origin) return false;
  return true;
}

/** One line below a position: its segment (relative to the position), its schema, and whether to list below it. */
interface PositionEntry {
  segment: string;
  schema: JsonSchemaObject;
  descend: boolean;
  /** A member every object at the position must hold (`required` of a part that always applies). */
  required?: boolean;
}

/**
 * Member paths below `start`, descending into inline objects and into definitions used
 * only here; a sectioned definition ends the descent (it is listed once, by name). Every
 * key the runtime would accept is listed: declared members, `*` where an object is
 * open, pattern properties, and the members of every union branch, qualified by branch
 * where two or more branches have members of their own. Sorted by path.
 */
function inlinePaths(start: JsonSchemaObject, prefix: string[], ctx: MapContext): EgressPath[] {
  const out: EgressPath[] = [];
  listBelow(start, prefix, prefix.join("."), prefix.length, ctx, out);
  return out.sort((a, b) => compare(a.path, b.path));
}

/**
 * The lines below `start` (at `segments`, spelled `text`), unsorted, in the walk's order: a
 * position's lines, then what lies below each of them, the last first. `base`: the segment
 * count the depth limit counts from. Below a plain reference to an inline definition (a pod
 * spec listed below a deployment, a job, a pod template, in each tool that uses it once), the
 * lines are the definition's, worked out once per body and depth (MapMemo.below) and reused
 * wherever every answer they read of the tool's definitions holds, as sections are: what is
 * listed is the same, and in the same order, so that equal paths sort the same.
 */
function listBelow(start: JsonSchemaObject, startSegments: string[], startText: string, base: number, ctx: MapContext, out: EgressPath[]): void {
  // Each path's text grows with its segments: one concatenation a line, not a join of all of them.
  const stack: Array<{ node: JsonSchemaObject; segments: string[]; text: string; inline: boolean }> = [{ node: start, segments: startSegments, text: startText, inline: false }];
  while (stack.length > 0) {
    const { node, segments, text: above, inline } = stack.pop()!;
    if (inline) {
      placeBelow(node, segments, above, base, ctx, out);
      continue;
    }
    for (const entry of positionEntries(node, ctx)) {
      const path = segments.concat(entry.segment);
      const text = above === "" ? entry.segment : `${above}.${entry.segment}`;
      if (path.length - base > MAX_LISTED_DEPTH) {
        // Listing every level would make the map quadratic in the nesting; say so instead.
        out.push({ path: text, segments: path, type: `nested deeper than ${MAX_LISTED_DEPTH} levels; members below are not listed` });
        continue;
      }
      // A tool's own arguments are often the spec's shared parameter objects (Kubernetes: 11,515
      // arguments, 1,798 objects): what a line says of one is worked out once while it holds.
      const info = ctx.memo !== undefined && path.length - base === 1 ? knownLineInfo(entry.schema, ctx, ctx.memo) : lineInfo(entry.schema, ctx);
      const line: EgressPath = { path: text, segments: path, type: info.type };
      if (info.continues.length > 0) line.continues = info.continues;
      const limits = entry.required === true ? ["required", ...info.limits] : info.limits;
      if (limits.length > 0) line.limits = limits;
      out.push(line);
      if (!entry.descend) continue;
      const body = ctx.memo === undefined ? undefined : inlineBody(entry.schema, ctx);
      stack.push(body === undefined ? { node: entry.schema, segments: path, text, inline: false } : { node: body, segments: path, text, inline: true });
    }
  }
}

/** What a line says of its value: its short type, the sections it continues in, its limits (without `required`, which is its parent's to say). */
interface LineInfo {
  type: string;
  continues: string[];
  limits: string[];
}

function lineInfo(schema: JsonSchemaObject, ctx: MapContext): LineInfo {
  return { type: typeLabel(schema, ctx), continues: sectionsReached(schema, ctx), limits: valueLimits(schema, false, ctx) };
}

/** lineInfo worked out once per value schema and reused while every answer it read of the tool's definitions holds. */
function knownLineInfo(schema: JsonSchemaObject, ctx: MapContext, memo: MapMemo): LineInfo {
  let known = memo.lines.get(schema)?.find((info) => holds(info.answers, ctx));
  if (known === undefined) {
    const answers = newAnswers();
    const info = lineInfo(schema, { ...ctx, answers });
    // Most values read no definition (a string, an enum): they keep no maps of their own.
    const read = answers.defs.size > 0 || answers.sectioned.size > 0 || answers.origins.size > 0;
    known = { ...info, answers: read ? answers : NO_ANSWERS };
    remember(memo.lines, schema, known);
  }
  if (ctx.answers !== undefined) addAnswers(ctx.answers, known.answers);
  return known;
}

/**
 * The definition a position lists below itself when the position is `{ $ref }` to an inline
 * (not sectioned) definition and nothing else that adds members or parts: its entries are
 * then the body's (positionEntries of the reference visits the reference, which adds nothing,
 * then the body). Reads the definitions as positionEntries would.
 */
function inlineBody(node: JsonSchemaObject, ctx: MapContext): JsonSchemaObject | undefined {
  if (typeof node.$ref !== "string" || !hasOwn(node, "$ref")) return undefined;
  for (const keyword of FOLLOWED_KEYWORDS) if (keyword !== "$ref" && node[keyword] !== undefined) return undefined;
  for (const keyword of MEMBER_KEYWORDS) if (node[keyword] !== undefined) return undefined;
  if (openingSchema(node) !== undefined || isFreeForm(node)) return undefined;
  const target = refTarget(node.$ref);
  const body = target === ROOT ? undefined : defOf(ctx, target);
  if (body === undefined || isSectioned(ctx, target) || !isSchemaObject(body)) return undefined;
  return body;
}

/** Lists below `segments` the lines below an inline definition's body, worked out once per body and depth while the answers hold. */
function placeBelow(body: JsonSchemaObject, segments: string[], text: string, base: number, ctx: MapContext, out: EgressPath[]): void {
  const memo = ctx.memo!;
  const depth = segments.length - base;
  let subtree = memo.below.get(body)?.find((known) => known.depth === depth && holds(known.answers, ctx));
  if (subtree === undefined) {
    const answers = newAnswers();
    const lines: EgressPath[] = [];
    listBelow(body, [], "", -depth, { ...ctx, answers }, lines);
    subtree = { depth, answers, lines, placed: new Map() };
    remember(memo.below, body, subtree);
  }
  // Inside a section being worked out: what these lines read is what the section read.
  if (ctx.answers !== undefined) addAnswers(ctx.answers, subtree.answers);
  let placed = subtree.placed.get(text);
  if (placed === undefined) {
    placed = subtree.lines.map((relative) => {
      const line: EgressPath = { path: `${text}.${relative.path}`, segments: segments.concat(relative.segments), type: relative.type };
      if (relative.continues !== undefined) line.continues = relative.continues;
      if (relative.limits !== undefined) line.limits = relative.limits;
      return line;
    });
    subtree.placed.set(text, placed);
  }
  for (const line of placed) out.push(line);
}

const ANY_SCHEMA: JsonSchemaObject = {};

/** The keywords positionEntries follows or lists members from; a node with none of them is a leaf. */
const STRUCTURE_KEYWORDS = ["properties", "required", "patternProperties", "$ref", "items", "prefixItems", "allOf", ...BRANCH_KEYWORDS];

/**
 * The entries one level below a value position: what the schemas it may match (through
 * refs to inline definitions, `allOf` parts, array items, and unions whose branches do not
 * need telling apart) let an object there hold. A union with two or more branches that
 * have members of their own gives one entry per branch, listed below it.
 */
function positionEntries(node: JsonSchemaObject, ctx: MapContext): PositionEntry[] {
  // Most positions are leaves (a string, an enum): nothing to walk, only whether they are open.
  if (STRUCTURE_KEYWORDS.every((keyword) => node[keyword] === undefined)) {
    const opening = openingSchema(node);
    const open = opening !== undefined ? (opening === true ? ANY_SCHEMA : opening) : isFreeForm(node) ? ANY_SCHEMA : undefined;
    return open === undefined ? [] : [{ segment: "*", schema: open, descend: !isFreeForm(open) }];
  }
  const part = onePart(node, ctx);
  if (part !== undefined) return partEntries(part);
  const members = new Map<string, JsonSchemaObject[]>();
  const entries: PositionEntry[] = [];
  const open: JsonSchemaObject[] = [];
  const requiredOnly = new Set<string>();
  // Keys some part that always applies requires: the node, its refs and `allOf` parts, array
  // items, and the one branch of a union that can hold an object. Another branch's `required`
  // binds only when that branch is the one matched.
  const required = new Set<string>();
  const always = new Set<JsonSchemaObject>([node]);
  const seen = new Set<JsonSchemaObject>();
  const queue = [node];
  const add = (key: string, schema: JsonSchemaObject) => {
    const list = members.get(key) ?? [];
    if (!list.includes(schema)) list.push(schema);
    members.set(key, list);
  };
  for (let head = 0; head < queue.length; head++) {
    const current = queue[head]!;
    if (seen.has(current)) continue;
    seen.add(current);
    const binding = always.has(current);
    if (binding && Array.isArray(current.required)) for (const key of current.required) if (typeof key === "string") required.add(formatSegment(key));
    const properties = current.properties;
    if (isSchemaObject(properties)) {
      for (const key of Object.keys(properties)) {
        const child = properties[key];
        if (child !== false) add(formatSegment(key), isSchemaObject(child) ? child : ANY_SCHEMA);
      }
    } else if (Array.isArray(current.required)) {
      for (const key of current.required) if (typeof key === "string") requiredOnly.add(formatSegment(key));
    }
    const patterns = current.patternProperties;
    if (isSchemaObject(patterns)) {
      for (const pattern of Object.keys(patterns)) {
        const child = patterns[pattern];
        if (child !== false) add(`/${pattern}/`, isSchemaObject(child) ? child : ANY_SCHEMA);
      }
    }
    const opening = openingSchema(current);
    if (opening !== undefined) open.push(opening === true ? ANY_SCHEMA : opening);
    else if (isFreeForm(current)) open.push(ANY_SCHEMA);
    if (typeof current.$ref === "string" && hasOwn(current, "$ref")) {
      const target = refTarget(current.$ref);
      const body = target === ROOT ? undefined : defOf(ctx, target);
      if (body !== undefined && !isSectioned(ctx, target)) {
        if (binding) always.add(body);
        queue.push(body);
      }
    }
    for (const keyword of ["items", "prefixItems", "allOf"]) {
      const value = current[keyword];
      // A tuple's positions each hold their own value: only `items` and `allOf` bind every one.
      const binds = binding && keyword !== "prefixItems";
      if (Array.isArray(value)) {
        for (const part of value) {
          if (!isSchemaObject(part)) continue;
          queue.push(part);
          if (binds) always.add(part);
        }
      } else if (isSchemaObject(value)) {
        queue.push(value);
        if (binds) always.add(value);
      }
    }
    for (const keyword of BRANCH_KEYWORDS) {
      const branches = current[keyword];
      if (!Array.isArray(branches)) continue;
      const contributing = branches.filter((branch) => isSchemaObject(branch) && hasMembers(branch, ctx));
      if (contributing.length < 2) {
        const objects = branches.filter((branch) => isSchemaObject(branch) && mayHoldObject(branch, ctx));
        for (const branch of branches) if (isSchemaObject(branch)) queue.push(branch);
        if (binding && objects.length === 1) always.add(objects[0] as JsonSchemaObject);
        continue;
      }
      branches.forEach((branch, index) => {
        if (!isSchemaObject(branch) || !hasMembers(branch, ctx)) return;
        entries.push({ segment: `${keyword}[${branchLabel(branch, index, ctx)}]`, schema: branch, descend: !isSectionedRef(branch, ctx) });
      });
    }
  }
  // A schema naming members only in `required` lets them through (screening does too).
  for (const key of requiredOnly) if (!members.has(key)) add(key, ANY_SCHEMA);
  for (const [key, schemas] of members) {
    const entry: PositionEntry = { segment: key, schema: merged(schemas), descend: !schemas.every(isFreeForm) };
    if (required.has(key)) entry.required = true;
    entries.push(entry);
  }
  // `*: any` says it all: nothing below it needs listing.
  if (open.length > 0) entries.push({ segment: "*", schema: merged(open), descend: !open.every(isFreeForm) });
  return entries;
}

/** Keywords that make a position draw on more than its own schema (what positionEntries' queue follows). */
const FOLLOWED_KEYWORDS = ["$ref", "items", "prefixItems", "allOf", ...BRANCH_KEYWORDS];
/** Keywords by which a node adds members or requirements of its own. */
const MEMBER_KEYWORDS = ["properties", "required", "patternProperties"];

/**
 * The one schema whose members a position has, when there is one (most positions: an object,
 * or a plain reference to an inline definition that is an object): then positionEntries'
 * walk over parts would visit that schema alone, and partEntries gives the same entries
 * without the walk's sets and queue. Undefined when the walk is needed. Reads the tool's
 * definitions exactly as the walk does (defOf, then isSectioned), so a section reused on
 * these answers is reused on the walk's.
 */
function onePart(node: JsonSchemaObject, ctx: MapContext): JsonSchemaObject | undefined {
  if (FOLLOWED_KEYWORDS.every((keyword) => node[keyword] === undefined)) return node;
  const body = inlineBody(node, ctx);
  return body !== undefined && FOLLOWED_KEYWORDS.every((keyword) => body[keyword] === undefined) ? body : undefined;
}

/** positionEntries of a position whose members are one schema's (onePart): it always applies, so its `required` binds. */
function partEntries(part: JsonSchemaObject): PositionEntry[] {
  const entries: PositionEntry[] = [];
  const listed = Array.isArray(part.required) ? part.required : undefined;
  const required = listed === undefined || listed.length === 0 ? undefined : new Set(listed);
  const properties = part.properties;
  // Property keys, patterns (`/p/`) and quoted keys never spell the same segment, so no key is listed twice.
  const member = (segment: string, child: unknown, key: string | undefined) => {
    const schema = isSchemaObject(child) ? child : ANY_SCHEMA;
    const entry: PositionEntry = { segment, schema, descend: !isFreeForm(schema) };
    if (key !== undefined && required?.has(key) === true) entry.required = true;
    entries.push(entry);
  };
  if (isSchemaObject(properties)) {
    for (const key of Object.keys(properties)) if (properties[key] !== false) member(formatSegment(key), properties[key], key);
  }
  const patterns = part.patternProperties;
  if (isSchemaObject(patterns)) {
    for (const pattern of Object.keys(patterns)) if (patterns[pattern] !== false) member(`/${pattern}/`, patterns[pattern], undefined);
  }
  // A schema naming members only in `required` lets them through (screening does too).
  if (!isSchemaObject(properties) && listed !== undefined) {
    const seen = new Set<string>();
    for (const key of listed) {
      if (typeof key !== "string" || seen.has(key)) continue;
      seen.add(key);
      member(formatSegment(key), ANY_SCHEMA, key);
    }
  }
  const opening = openingSchema(part);
  const open = opening !== undefined ? (opening === true ? ANY_SCHEMA : opening) : isFreeForm(part) ? ANY_SCHEMA : undefined;
  if (open !== undefined) entries.push({ segment: "*", schema: open, descend: !isFreeForm(open) });
  return entries;
}

/** One schema for a key several parts declare: itself, or all of them together. */
function merged(schemas: readonly JsonSchemaObject[]): JsonSchemaObject {
  return schemas.length === 1 ? schemas[0]! : { allOf: [...schemas] };
}

function admitsObject(node: JsonSchemaObject): boolean {
  return node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
}

function isSectionedRef(node: JsonSchemaObject, ctx: MapContext): boolean {
  if (typeof node.$ref !== "string" || !hasOwn(node, "$ref")) return false;
  return isSectioned(ctx, refTarget(node.$ref));
}

/** A branch's label in selectors and the map: the type it refers to, else its position. */
function branchLabel(branch: JsonSchemaObject, index: number, ctx: MapContext): string {
  if (typeof branch.$ref === "string" && hasOwn(branch, "$ref")) {
    const target = refTarget(branch.$ref);
    if (target !== ROOT && defOf(ctx, target) !== undefined) return originOf(ctx, target) ?? target;
  }
  return String(index);
}

const ALL_TRANSPARENT = ["items", "prefixItems", ...UNION_KEYWORDS];
/** What sectionsReached gives for a value that reaches none (never attached to a line: see inlinePaths). */
const NO_SECTIONS: string[] = [];

/**
 * Walks the schemas a value at `start` may match: through refs and the given keywords.
 * A ref to a sectioned definition is reported to `onSection` and, unless `intoSections`,
 * not followed. `visit` returning true stops the walk (and `walkValue` returns true).
 */
function walkValue(
  start: JsonSchemaObject,
  ctx: MapContext,
  keywords: readonly string[],
  visit: (node: JsonSchemaObject) => boolean,
  onSection: (name: string) => void = () => {},
  intoSections = false,
): boolean {
  // A value with nothing to follow (most of them): only itself to visit.
  if (start.$ref === undefined && keywords.every((keyword) => start[keyword] === undefined)) return visit(start);
  const seen = new Set<JsonSchemaObject>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const current = queue[head]!;
    if (seen.has(current)) continue;
    seen.add(current);
    if (visit(current)) return true;
    if (typeof current.$ref === "string" && hasOwn(current, "$ref")) {
      const target = refTarget(current.$ref);
      if (isSectioned(ctx, target)) onSection(target);
      const body = target === ROOT ? undefined : defOf(ctx, target);
      if (body !== undefined && (intoSections || !isSectioned(ctx, target))) queue.push(body);
    }
    for (const keyword of keywords) {
      const value = current[keyword];
      if (Array.isArray(value)) {
        for (const part of value) if (isSchemaObject(part)) queue.push(part);
      } else if (isSchemaObject(value)) {
        queue.push(value);
      }
    }
  }
  return false;
}

/** Whether a branch lets an object hold anything: members, patterns, openness, or a section with members. */
function hasMembers(start: JsonSchemaObject, ctx: MapContext): boolean {
  return walkValue(
    start,
    ctx,
    ALL_TRANSPARENT,
    (node) =>
      (isSchemaObject(node.properties) && Object.values(node.properties).some((child) => child !== false)) ||
      isSchemaObject(node.patternProperties) ||
      openingSchema(node) !== undefined ||
      (isFreeForm(node) && admitsObject(node)),
    undefined,
    true,
  );
}

/** Sectioned definitions whose members all apply to the same value: through refs and `allOf` parts. */
function sectionsIncluded(start: JsonSchemaObject, ctx: MapContext): string[] {
  const found = new Set<string>();
  walkValue(start, ctx, ["allOf"], () => false, (name) => found.add(name));
  return [...found].sort(compare);
}

/** Sectioned definitions a value reaches directly (through refs, items and unions), sorted. */
function sectionsReached(start: JsonSchemaObject, ctx: MapContext): string[] {
  // A value with nothing to follow (most lines) reaches no section: no set, no list.
  if (start.$ref === undefined && ALL_TRANSPARENT.every((keyword) => start[keyword] === undefined)) return NO_SECTIONS;
  const found = new Set<string>();
  walkValue(start, ctx, ALL_TRANSPARENT, () => false, (name) => found.add(name));
  return [...found].sort(compare);
}

/** Whether a value may be an object: no `type` that leaves objects out (through refs). */
function mayHoldObject(node: JsonSchemaObject, ctx: MapContext, depth = 0): boolean {
  if (typeof node.$ref === "string" && hasOwn(node, "$ref") && depth < 8) {
    const target = refTarget(node.$ref);
    const body = target === ROOT ? undefined : defOf(ctx, target);
    if (body !== undefined && isSchemaObject(body) && !mayHoldObject(body, ctx, depth + 1)) return false;
  }
  const type = node.type;
  if (typeof type === "string") return type === "object";
  if (Array.isArray(type)) return type.includes("object");
  if (hasOwn(node, "const")) return isSchemaObject(node.const);
  if (Array.isArray(node.enum)) return node.enum.some((value) => isSchemaObject(value));
  return true;
}

/** Refs followed and subschemas entered, at most, for one value's limits (the types of real APIs stay far below it). */
const LIMIT_DEPTH = 12;

/**
 * The limits screening enforces on a value, as the map shows them: one constraint an item
 * (`maxLength 255`, `pattern "^a"`, `uniqueItems`, `default 30`; `required` for a member
 * its parent requires), each of a nested value under its place (`items.maxLength 5`,
 * `propertyNames.pattern "^x"`, `anyOf[Card].minimum 1`, a branch by its label). Collected
 * through refs (sectioned types too: a type's limits read the same wherever it is listed),
 * `allOf` parts, items and union branches; not below a union whose branches the map lists
 * one by one (each branch line carries its own). Type, format, enum and nullability are in
 * the type label already. Sorted: `required` first, then by text.
 */
function valueLimits(schema: JsonSchemaObject, required: boolean, ctx: MapContext): string[] {
  // Most values have no limit, or one: collected into a list, sorted, then duplicates (adjacent once sorted) dropped.
  const found: string[] = [];
  collectLimits(schema, "", ctx, found, [], 0);
  if (found.length === 0) return required ? ["required"] : NO_LIMITS;
  found.sort(compare);
  const sorted = required ? ["required"] : [];
  for (let i = 0; i < found.length; i++) if (i === 0 || found[i] !== found[i - 1]) sorted.push(found[i]!);
  return sorted;
}

/** The limits of a value without any (shared: a line keeps limits only when there are some). */
const NO_LIMITS: string[] = [];

function collectLimits(node: JsonSchemaObject, prefix: string, ctx: MapContext, found: string[], open: JsonSchemaObject[], depth: number): void {
  // A cycle or a deep nesting: what lies further is listed where the cycle's type is. The
  // nodes open are those on the way here, at most LIMIT_DEPTH: a list is enough.
  if (depth > LIMIT_DEPTH || open.includes(node)) return;
  open.push(node);
  // By the keys the node has (a few), not by every keyword that might limit it (some thirty
  // lookups a node, each a miss on most). What is found does not depend on the order: it is
  // sorted, and `open` is only the way down.
  for (const keyword in node) {
    const value = node[keyword];
    switch (keyword) {
      // A number that bounds the value: `maximum 10`.
      case "minimum":
      case "exclusiveMinimum":
      case "maximum":
      case "exclusiveMaximum":
      case "multipleOf":
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
      case "minContains":
      case "maxContains":
      case "minProperties":
      case "maxProperties":
        if (typeof value === "number" && hasOwn(node, keyword)) found.push(`${prefix}${keyword} ${canonicalJson(value)}`);
        break;
      case "pattern":
        if (typeof value === "string" && hasOwn(node, keyword)) found.push(`${prefix}pattern ${JSON.stringify(value)}`);
        break;
      case "uniqueItems":
        if (value === true && hasOwn(node, keyword)) found.push(`${prefix}uniqueItems`);
        break;
      case "default":
        if (hasOwn(node, keyword)) found.push(`${prefix}default ${canonicalJson(value)}`);
        break;
      // A subschema or list that constrains the value in ways the map does not unfold: shown whole, as canonical JSON.
      case "contains":
      case "not":
      case "if":
      case "then":
      case "else":
      case "dependentRequired":
      case "dependentSchemas":
        if (hasOwn(node, keyword) && value !== undefined) found.push(`${prefix}${keyword} ${canonicalJson(value)}`);
        break;
      case "propertyNames":
        if (value === false && hasOwn(node, keyword)) found.push(`${prefix}propertyNames false`);
        else if (isSchemaObject(value)) collectLimits(value, `${prefix}propertyNames.`, ctx, found, open, depth + 1);
        break;
      case "$ref":
        if (typeof value === "string" && hasOwn(node, keyword)) {
          const target = refTarget(value);
          const body = target === ROOT ? undefined : defOf(ctx, target);
          if (body !== undefined && isSchemaObject(body)) collectLimits(body, prefix, ctx, found, open, depth + 1);
        }
        break;
      case "allOf":
        if (Array.isArray(value)) for (const part of value) if (isSchemaObject(part)) collectLimits(part, prefix, ctx, found, open, depth + 1);
        break;
      case "items":
        if (value === false && hasOwn(node, keyword)) found.push(`${prefix}items false`);
        else if (isSchemaObject(value)) collectLimits(value, `${prefix}items.`, ctx, found, open, depth + 1);
        break;
      case "prefixItems":
        if (Array.isArray(value)) {
          value.forEach((part, index) => {
            if (isSchemaObject(part)) collectLimits(part, `${prefix}prefixItems[${index}].`, ctx, found, open, depth + 1);
          });
        }
        break;
      case "anyOf":
      case "oneOf":
        if (Array.isArray(value)) branchLimits(value, keyword, prefix, ctx, found, open, depth);
        break;
    }
  }
  open.pop();
}

/**
 * The limits of a union's branches. Listed branch by branch (positionEntries) when two or more
 * have members: those branch lines show their own limits; a branch without members has no
 * line, so its limits are shown here.
 */
function branchLimits(branches: unknown[], keyword: string, prefix: string, ctx: MapContext, found: string[], open: JsonSchemaObject[], depth: number): void {
  const listed = branches.filter((branch) => isSchemaObject(branch) && hasMembers(branch, ctx)).length >= 2;
  branches.forEach((branch, index) => {
    if (!isSchemaObject(branch) || (listed && hasMembers(branch, ctx))) return;
    collectLimits(branch, `${prefix}${keyword}[${limitBranchLabel(branch, index, ctx)}].`, ctx, found, open, depth + 1);
  });
}

/**
 * A branch without members, as its limits name it: the type it refers to, else its short type
 * without spaces (`oneOf[string[]].minItems 1`), so that dropping another branch, which
 * renumbers the positions, does not read as a limit moving; the position when the type says
 * too little to be written so.
 */
function limitBranchLabel(branch: JsonSchemaObject, index: number, ctx: MapContext): string {
  const named = branchLabel(branch, index, ctx);
  if (named !== String(index)) return named;
  const short = typeLabel(branch, ctx).replace(/\s+/g, "");
  return /^[A-Za-z0-9_.:|()[\]-]+$/.test(short) && short !== "any" ? short : named;
}

/** Labels nest (arrays of unions of arrays ...); past this many levels the rest is elided. */
const LABEL_DEPTH = 8;

function typeLabel(node: JsonSchemaObject, ctx: MapContext, level = 0): string {
  if (level >= LABEL_DEPTH) return "…";
  const nested = (child: JsonSchemaObject) => typeLabel(child, ctx, level + 1);
  if (typeof node.$ref === "string") {
    const target = refTarget(node.$ref);
    // An own entry: refGraph refused the tool if a ref named anything else.
    const body = defOf(ctx, target);
    // A type without members used only here is shown by value, so that a new enum
    // value shows up in a diff (sectioned ones show it in their section).
    if (body && !isSectioned(ctx, target) && !isSchemaObject(body.properties)) return `${target} (${nested(body)})`;
    return target;
  }
  if (Array.isArray(node.enum)) return "enum: " + node.enum.map((v) => (typeof v === "string" && plainValue(v) ? v : canonicalJson(v))).join(" | ");
  if (hasOwn(node, "const")) return "const " + canonicalJson(node.const);
  for (const keyword of UNION_KEYWORDS) {
    if (Array.isArray(node[keyword])) {
      const branches = (node[keyword] as unknown[]).map((b) => (isSchemaObject(b) ? nested(b) : String(b)));
      return branches.join(keyword === "allOf" ? " & " : " | ");
    }
  }
  const type = node.type;
  if (type === "array" || (node.items !== undefined && type === undefined)) {
    const item = isSchemaObject(node.items) ? nested(node.items) : "any";
    return /[ |&]/.test(item) ? `(${item})[]` : `${item}[]`;
  }
  // A nullable array (`["array", "null"]`) reads as its items, `Item[] | null`, as a plain one does.
  const base = Array.isArray(type) ? type.map((one) => (one === "array" ? typeLabel({ ...node, type: "array" }, ctx, level + 1) : String(one))).join(" | ") : typeof type === "string" ? type : "any";
  return typeof node.format === "string" ? `${base} (${node.format})` : base;
}

/**
 * An enum string written as it is: one that cannot read as the label's own syntax (` | `,
 * `&`, brackets, braces, quotes) nor as the limits after it; any other is JSON-quoted.
 */
function plainValue(value: string): boolean {
  return value !== "" && !/[\u0000-\u001f"(){}|&]|^\s|\s$|\s\s/.test(value);
}

function endpointOf(binding: Binding): string {
  if (binding.kind === "mcp") return `MCP tools/call ${binding.tool}`;
  return binding.kind === "graphql" ? `POST graphql ${binding.operationType} ${binding.field}` : `${binding.method.toUpperCase()} ${binding.path}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface EgressMapOptions {
  /**
   * The packs' tool selections (`packSelections(tools)`): listed after the legend, so that
   * a tool the config leaves out, renames or describes anew shows in the map's diff.
   */
  selections?: readonly PackSelection[];
}

/**
 * The selections the tools' packs were generated with (a config's include / exclude,
 * `readOnly`, renames, descriptions), once per pack, by pack name.
 */
export function packSelections(tools: readonly Tool<object>[]): PackSelection[] {
  const found = new Map<PackSelection, string>();
  for (const tool of tools) {
    const { selection, api } = tool.callSettings;
    if (selection !== undefined && !found.has(selection)) found.set(selection, api ?? "");
  }
  return [...found].sort(([, a], [, b]) => compare(a, b)).map(([selection]) => selection);
}

/**
 * The header lines of one selection: comments (a check compares tools, which show a
 * change of selection as a tool that comes or goes), one fact a line, sorted by tool.
 */
function selectionLines(selection: PackSelection): string[] {
  const lines = ["#", `# Tool selection by the config: ${selection.tools} tool${selection.tools === 1 ? "" : "s"}, ${selection.leftOut.length} left out.`];
  for (const rule of selection.rules) lines.push(`#   rule ${rule}`);
  for (const { tool, reason } of selection.leftOut) lines.push(`#   left out ${tool}: ${reason}`);
  for (const { from, to } of selection.renamed) lines.push(`#   renamed ${from} -> ${to}`);
  // JSON-quoted: a description is one line here whatever it holds, and what the model reads is reviewed word for word.
  for (const { tool, description } of selection.described) lines.push(`#   description of ${tool}: ${JSON.stringify(description)}`);
  return lines;
}

/**
 * The egress map as text, meant to be committed and reviewed: stable order, one path
 * per line, `+` visible, `-` withheld (with the reason), `=` pinned (with the value).
 * A type with the same shape in every tool that uses it is listed once at the end; a
 * type whose shape differs between tools (narrowed in some) is listed inside each tool.
 */
export function formatEgressMap(entries: readonly EgressToolEntry[], options: EgressMapOptions = {}): string {
  const texts = new SectionTexts();
  const variants = new Map<string, Set<string>>();
  for (const entry of entries) {
    for (const section of entry.types) {
      const shapes = variants.get(section.name) ?? new Set<string>();
      shapes.add(texts.of(section, ""));
      variants.set(section.name, shapes);
    }
  }
  const shared = new Map<string, EgressTypeSection>();
  const lines = [
    "# sluice egress map: what the model can see and send, and what is withheld.",
    "# + visible   - withheld: reason   = pinned: value sent on every call",
    "# < fetched: response fields a GraphQL tool narrowed with `returns` still asks for",
    "# Types used in several places or recursively are listed once: inside a tool when",
    "# their shape is particular to it, otherwise under `type` at the end.",
    ...(options.selections ?? []).flatMap(selectionLines),
  ];
  for (const entry of entries) {
    lines.push("", `tool ${entry.name}`, `  endpoint ${entry.endpoint}`);
    for (const path of entry.visible) lines.push(`  + ${path.path}: ${path.type}${limitsText(path.limits)}`);
    for (const key of Object.keys(entry.pins).sort(compare)) lines.push(`  = ${key}: ${canonicalJson(entry.pins[key])}`);
    for (const w of entry.withheld) if (w.reason !== "pinned") lines.push(`  - ${w.path}: ${w.reason}`);
    for (const r of entry.reserved ?? []) lines.push(`  - ${r.path}: ${r.reason}`);
    for (const path of entry.fetched ?? []) lines.push(`  < ${path}`);
    for (const section of entry.types) {
      if (variants.get(section.name)!.size === 1) shared.set(section.name, section);
      else lines.push(texts.of(section, "  "));
    }
  }
  for (const name of [...shared.keys()].sort(compare)) lines.push("", texts.of(shared.get(name)!, ""));
  return lines.join("\n") + "\n";
}

/**
 * A section's lines as one text (its heading, then a line per member). Tools that reach a
 * type alike share its member list (MapMemo), so the members' text is written once per list
 * and indent: Kubernetes lists 1,410 sections of 78 types.
 */
class SectionTexts {
  private readonly members = [new WeakMap<readonly EgressPath[], string>(), new WeakMap<readonly EgressPath[], string>()];
  of(section: EgressTypeSection, indent: "" | "  "): string {
    const heading = `${indent}type ${section.name}${section.recursive ? " (recursive)" : ""}${section.includes === undefined ? "" : ` includes ${section.includes.join(", ")}`}${section.type === undefined ? "" : `: ${section.type}`}`;
    if (section.members.length === 0) return heading;
    const known = this.members[indent.length / 2]!;
    let text = known.get(section.members);
    if (text === undefined) {
      text = section.members.map(({ path, type, limits }) => `${indent}  + ${path}: ${type}${limitsText(limits)}`).join("\n");
      known.set(section.members, text);
    }
    return `${heading}\n${text}`;
  }
}

/** The limits after a line's type: two spaces and a brace, which no type label holds (`string  {required, maxLength 255}`). */
function limitsText(limits: readonly string[] | undefined): string {
  return limits === undefined || limits.length === 0 ? "" : `  {${limits.join(", ")}}`;
}
