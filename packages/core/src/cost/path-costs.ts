import {
  canonicalJson,
  defRef,
  isSluiceError,
  defsOf,
  hasOwn,
  isSchemaObject,
  refsFrom,
  refTarget,
  ROOT,
  subschemasOf,
  withinLimits,
  type JsonSchemaObject,
} from "@sluice/schema";
import { projectSchema, type ProjectedSchema } from "../projection/project-schema.ts";
import { parseBranchSegment, readSelector } from "../projection/selectors.ts";
import { schemaTokens, type Encoding } from "../tokens.ts";
import type { ProjectableTool } from "../tool-definition.ts";
import { PieceCounter, startsPiece } from "./chunk-tokens.ts";
import { transparentClosure } from "./transparent-closure.ts";

/**
 * Prices paths the way `paths({ byCost })` defines it, tokens(tool) - tokens(tool
 * without the path), with the same projection (`projectSchema`) and the same count, but
 * without copying, walking, serializing and tokenizing the whole tool once per path.
 *
 * A drop only reads and edits what its selector reaches: the nodes met walking the
 * selector's segments transparently (through refs, array items and union branches,
 * as every selector walk does). Everything else matters to the projection only as
 * names (split copies take the first free `Type_n`) and as references (how many places
 * share a definition decides whether it is split, and what stays reachable decides what
 * garbage collection keeps). So each path is projected on a small stand-in of the tool:
 *
 *  - the root with its other arguments emptied, and the definitions the walk can reach
 *    with only the members the selector names (a member never named is never read);
 *  - of the other definitions, only the names the projection can look up, as empty
 *    schemas;
 *  - for every reference the left-out parts made to a reachable definition, one extra
 *    reference in a keyword no selector walk reads (`dependentSchemas`, marked with the
 *    definition it stands for, so that a split copy carries it along), so reference
 *    counts, and with them every split decision, are exactly the tool's.
 *
 * The projected tool is then the original with the stand-in's edited parts put back
 * (left-out members restored from the definition a pad names), definitions kept by
 * reachability over the whole tool, and its tokens counted piece by piece
 * (`PieceCounter`): an untouched definition's count is a lookup, and only new pieces are
 * tokenized. Anything unusual (a bare-name selector, an error, a keyword the stand-in
 * needs already in use) is priced by the reference algorithm instead, so results never
 * differ; test/paths-by-cost-exact.test.ts holds the two against each other.
 */
export interface PricingStats {
  /** Paths priced on a stand-in. */
  fast: number;
  /** Paths priced by the reference (whole tool derived and counted). */
  reference: number;
}

export function pathCosts(
  tool: ProjectableTool,
  paths: readonly string[],
  encoding: Encoding,
  stats: PricingStats = { fast: 0, reference: 0 },
): Array<{ path: string; tokens: number }> {
  const pricer = new ToolPricer(tool, encoding);
  return paths.map((path) => ({ path, tokens: pricer.cost([path], stats) }));
}

/**
 * One tool priced many times: the tool's model is built once, and with a `PieceCounter`
 * given by the caller, definition texts shared by several tools (a pack's tools carry
 * the same types) are tokenized once for all of them. A counter only remembers texts
 * and their exact counts, so sharing one across the tools of one measurement (a report)
 * changes no number; it holds every text it saw until it is dropped. The counter must
 * count in `encoding`.
 */
export class ToolPricer {
  readonly tool: ProjectableTool;
  readonly encoding: Encoding;
  readonly #counter: PieceCounter;
  // Built on the first price: a tool that is only counted needs no model.
  #model: ToolModel | undefined | null = null;
  #total: number | undefined;

  /** `total`: the tool's `schemaTokens`, when the caller counted it already (`DefinitionTotals`, for many tools at once). */
  constructor(tool: ProjectableTool, encoding: Encoding, counter: PieceCounter = new PieceCounter(encoding), total?: number) {
    this.tool = tool;
    this.encoding = encoding;
    this.#counter = counter;
    this.#total = total;
  }

  /** Tokens of the tool as sent (what `schemaTokens` counts, counted piece by piece). */
  get total(): number {
    this.#total ??= this.#counter.countOnce(canonicalJson(this.tool.toJSON()));
    return this.#total;
  }

  /**
   * tokens(tool) - tokens(tool derived without every path of `paths` at once), the
   * projection allowed to drop required arguments, as `paths({ byCost })` prices one path.
   * Several paths are one projection (not a sum of single costs): what a set of drops
   * saves together. A selector the projection refuses throws as `derived()` would.
   */
  cost(paths: readonly string[], stats: PricingStats = { fast: 0, reference: 0 }): number {
    const total = this.total;
    if (this.#model === null) this.#model = toolModel(this.tool, this.#counter);
    const priced = this.#model === undefined || paths.length === 0 ? undefined : priceDrops(this.#model, paths, this.#counter);
    if (priced === undefined) {
      stats.reference++;
      return total - schemaTokens(this.tool.project({ drop: paths }, { allowRequiredDrop: true }), { encoding: this.encoding });
    }
    stats.fast++;
    return total - priced;
  }

  /**
   * What `derived({ drop: [path] })` refuses the drop with (REQUIRED_DROPPED's message), or
   * undefined when it would not refuse it for that reason. The projection runs on the
   * drop's stand-in (what the selector walk reaches, members it never names left out) in
   * place of a copy of the whole tool: every schema the walk meets, its `required` list and
   * the root's `dependentRequired` are the tool's own, so the check sees what it sees in
   * the tool. Where pricing would fall back to the reference, so does this (a real derive).
   */
  refusal(path: string, stats: PricingStats = { fast: 0, reference: 0 }): string | undefined {
    if (this.#model === null) this.#model = toolModel(this.tool, this.#counter);
    const read = this.#model === undefined ? undefined : readDrops(this.#model, [path]);
    if (read === undefined) {
      stats.reference++;
      return refusalOf(this.tool.name, () => this.tool.project({ drop: [path] }, {}));
    }
    stats.fast++;
    const standIn = standInOf(this.#model!, read.selectors, read.reach).schema;
    const origins = this.tool.definitionOrigins;
    // What the projection says is a function of what it reads (see projectionOf): tools with the same stand-in share it.
    let known = refusals.get(this.#counter);
    if (known === undefined) refusals.set(this.#counter, (known = new Map()));
    const key = projectionKey(standIn, origins, [path]);
    let refused = known.get(key);
    if (refused === undefined) {
      refused = refusalOf(this.tool.name, () => projectSchema(standIn, origins, { drop: [path] }, {})) ?? null;
      known.set(key, refused);
    }
    return refused ?? undefined;
  }
}

/** REQUIRED_DROPPED's message when `attempt` throws it, else undefined. */
function refusalOf(toolName: string, attempt: () => unknown): string | undefined {
  try {
    withinLimits(`derived() of ${toolName}`, attempt);
    return undefined;
  } catch (error) {
    return isSluiceError(error, "REQUIRED_DROPPED") ? error.message : undefined;
  }
}

/**
 * The reference: derive the tool without the path and count it whole. Slow (a full copy,
 * serialization and tokenization per path); kept as the definition the fast pricing is
 * tested against, and used for the cases it does not handle.
 * @internal
 */
export function referencePathCost(tool: ProjectableTool, path: string, encoding: Encoding, total = schemaTokens(tool, { encoding })): number {
  return total - schemaTokens(tool.project({ drop: [path] }, { allowRequiredDrop: true }), { encoding });
}

/** Where the stand-in keeps its extra references: a keyword selector walks never follow. */
const PAD_KEYWORD = "dependentSchemas";

interface ToolModel {
  tool: ProjectableTool;
  schema: JsonSchemaObject;
  defs: Record<string, JsonSchemaObject>;
  /** Root arguments (`properties`), when the root has them. */
  args: Record<string, unknown> | undefined;
  /** Each definition's place in `defs` (its key order), and the names sorted. */
  order: Map<string, number>;
  sortedNames: string[];
  /** Reference sites per definition and per argument, counted as the projection counts them (multiset: target -> sites). */
  defRefs: Map<string, Map<string, number>>;
  argRefs: Map<string, Map<string, number>>;
  /** Definitions referring to each definition, with their number of sites. */
  referrers: Map<string, Array<[string, number]>>;
  /** Of definitions with members (`properties`), reference sites per member, and outside the members. */
  memberRefs: Map<string, Map<string, Map<string, number>>>;
  restRefs: Map<string, Map<string, number>>;
  /** Reference sites outside `properties` and `$defs` at the root. */
  skeletonRefs: Map<string, number>;
  /** Definitions a (projected) definition body refers to. */
  targetsOf(body: JsonSchemaObject): string[];
  /** Canonical text of a value (remembered per object). */
  textOf(value: unknown): string;
  /** Records the canonical text of a new object, computed another way. */
  remember(value: object, text: string): void;
  /**
   * The sorted definitions and the running sums of their whole pieces, or undefined when
   * prices must walk every definition: a name that does not start a piece, or a definition
   * nothing reaches (a price's collection would drop it).
   */
  runs(): DefinitionRuns | undefined;
  /**
   * The definition as sent, in parts for `PieceCounter.countJoined`: one part per
   * definition and per argument (`name":<body>,"`), so that an untouched one is the same
   * string every time and its count is a lookup.
   */
  parts(
    root: JsonSchemaObject,
    isOriginal: (value: unknown) => boolean,
    defNames?: ReadonlyArray<string | number>,
    bodyOf?: (name: string) => JsonSchemaObject,
  ): Array<string | number>;
}

/** Whether a stand-in may leave out members of this definition (its references then go into a marked pad). */
function collapsible(body: JsonSchemaObject): boolean {
  return isSchemaObject(body.properties) && !hasOwn(body, PAD_KEYWORD);
}

/** Marks a stand-in definition's pad with the definition it was made from (split copies keep it). */
const PAD_MARK = "\u0000";

function toolModel(tool: ProjectableTool, counter: PieceCounter): ToolModel | undefined {
  const schema = tool.inputSchema;
  if (hasOwn(schema, PAD_KEYWORD)) return undefined;
  if (hasOwn(schema, "$defs") && !isSchemaObject(schema.$defs)) return undefined;
  const args = hasOwn(schema, "properties") ? schema.properties : undefined;
  if (args !== undefined && !isSchemaObject(args)) return undefined;
  const defs = defsOf(schema);
  // The stand-in marks its pads; a definition that already carries such a mark would be misread.
  if (Object.keys(defs).some((name) => padSource(defs[name]!) !== undefined)) return undefined;
  let defRefs: Map<string, Map<string, number>>;
  let argRefs: Map<string, Map<string, number>>;
  let skeletonRefs: Map<string, number>;
  const memberRefs = new Map<string, Map<string, Map<string, number>>>();
  const referrers = new Map<string, Array<[string, number]>>();
  const seen = new Set<object>();
  const restRefs = new Map<string, Map<string, number>>();
  try {
    defRefs = new Map();
    for (const name of Object.keys(defs)) {
      const body = defs[name]!;
      const members = collapsible(body) ? (body.properties as Record<string, unknown>) : undefined;
      if (members === undefined) {
        defRefs.set(name, refSites(body, defs, false, seen));
        continue;
      }
      // Per member too: a stand-in may leave members out and carry their references instead.
      const rest: JsonSchemaObject = { ...body };
      delete rest.properties;
      const all = refSites(rest, defs, false, seen);
      restRefs.set(name, new Map(all));
      const byMember = new Map<string, Map<string, number>>();
      for (const key of Object.keys(members)) {
        const value = members[key];
        const sites = isSchemaObject(value) ? refSites(value, defs, false, seen) : new Map<string, number>();
        byMember.set(key, sites);
        for (const [target, n] of sites) all.set(target, (all.get(target) ?? 0) + n);
      }
      defRefs.set(name, all);
      memberRefs.set(name, byMember);
    }
    for (const [source, sites] of defRefs) {
      for (const [target, n] of sites) {
        let list = referrers.get(target);
        if (list === undefined) referrers.set(target, (list = []));
        list.push([source, n]);
      }
    }
    argRefs = new Map(Object.keys(args ?? {}).map((key) => [key, isSchemaObject(args![key]) ? refSites(args![key], defs, true, seen) : new Map()]));
    const skeleton: JsonSchemaObject = { ...schema };
    delete skeleton.properties;
    delete skeleton.$defs;
    skeletonRefs = refSites(skeleton, defs, true, seen);
  } catch {
    return undefined; // an unresolvable ref or a shared node: the reference prices (or refuses) it
  }
  const textOf = (value: unknown): string => counter.textOf(value);
  // Definitions reached from a projected body, by the body's text: the same edit made again is not walked again.
  const targets = new Map<string, string[]>();
  const targetsOf = (body: JsonSchemaObject): string[] => {
    const text = textOf(body);
    let found = targets.get(text);
    if (found === undefined) {
      found = targetsIn(body);
      targets.set(text, found);
    }
    return found;
  };
  // Entry parts of the tool's own values, by value and key: [followed by another entry, last].
  const entries = new Map<unknown, Map<string, [string | undefined, string | undefined]>>();
  // No closure made per call: the built CLI names every function it makes (esbuild's keepNames), and this runs per entry per price.
  const entryOf = (key: string, value: unknown, last: boolean, original: boolean): string => {
    if (!original || typeof value !== "object" || value === null) return entryText(key, textOf(value), last);
    let byKey = entries.get(value);
    if (byKey === undefined) entries.set(value, (byKey = new Map()));
    let pair = byKey.get(key);
    if (pair === undefined) byKey.set(key, (pair = [undefined, undefined]));
    const slot = last ? 1 : 0;
    return (pair[slot] ??= entryText(key, textOf(value), last));
  };
  const head = `{"description":${JSON.stringify(tool.description)},"inputSchema":`;
  const tail = `,"name":${JSON.stringify(tool.name)}}`;
  // Tokens of the text up to the first definition's name (`{"description":...,"inputSchema":{"$defs":{"`),
  // the same for every price whose schema starts with `$defs` and whose first definition starts a piece.
  let prefixCount: number | undefined;
  const out: Array<string | number> = [];
  /**
   * The entries of one object in canonical order (after its `{"`), then what closes it and
   * what follows (`after`: `}` then `,"` or `}`). An entry of the tool's own (`isOriginal`)
   * whose piece is whole (its key and the next one start with a letter or digit) is its
   * count, looked up per value object and key: only what a price changed is joined and
   * counted as text.
   */
  const pushEntries = (
    names: ReadonlyArray<string | number>,
    valueOf: (name: string) => unknown,
    isOriginal: (name: string, value: unknown) => boolean,
    lastRootKey: boolean,
    nextRootKey: string | undefined,
  ): void => {
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      // A number is a stretch of whole pieces already counted (`changedDefinitions`); a name always follows it.
      if (typeof name === "number") {
        out.push(name);
        continue;
      }
      const value = valueOf(name);
      const original = isOriginal(name, value);
      const whole = original && typeof value === "object" && value !== null && startsPiece(name);
      if (i < names.length - 1) {
        const next = names[i + 1]!;
        out.push(whole && (typeof next === "number" || startsPiece(next)) ? counter.memberCount(name, value) : entryOf(name, value, false, original));
      } else if (whole && !lastRootKey && startsPiece(nextRootKey!)) {
        out.push(counter.memberCount(name, value, true));
      } else {
        out.push(entryOf(name, value, true, original), lastRootKey ? "}" : ',"');
      }
    }
  };
  let runs: DefinitionRuns | undefined | null = null;
  const runsOf = (): DefinitionRuns | undefined => {
    const sorted = model.sortedNames;
    if (!sorted.every((name) => startsPiece(name) && isSchemaObject(defs[name]))) return undefined;
    const reached = new Set<string>();
    const stack = [...model.skeletonRefs.keys()];
    for (const sites of model.argRefs.values()) for (const target of sites.keys()) stack.push(target);
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (reached.has(name)) continue;
      reached.add(name);
      for (const target of defRefs.get(name)!.keys()) stack.push(target);
    }
    if (reached.size !== sorted.length) return undefined;
    const sums = [0];
    for (let k = 0; k < sorted.length - 1; k++) sums.push(sums[k]! + counter.memberCount(sorted[k]!, defs[sorted[k]!]!));
    return { sorted, sums };
  };
  // The arguments in canonical order: the tool's own, sorted once, where a price kept (some of) them and added none.
  const sortedArgs = args === undefined ? [] : Object.keys(args).sort();
  const argumentOrder = (value: Record<string, unknown>): string[] => {
    const names = sortedArgs.filter((name) => hasOwn(value, name) && value[name] !== undefined);
    let defined = 0;
    for (const name of Object.keys(value)) if (value[name] !== undefined) defined++;
    return defined === names.length ? names : Object.keys(value).filter((name) => value[name] !== undefined).sort();
  };
  const defNames = Object.keys(defs);
  const model: ToolModel = {
    tool,
    schema,
    defs,
    args,
    order: new Map(defNames.map((name, i) => [name, i])),
    sortedNames: [...defNames].sort(),
    defRefs,
    argRefs,
    skeletonRefs,
    memberRefs,
    restRefs,
    referrers,
    targetsOf,
    textOf,
    remember: (value, text) => counter.remember(value, text),
    runs: () => (runs === null ? (runs = runsOf()) : runs),
    parts(root, isOriginal, defNames, bodyOf) {
      out.length = 0;
      const keys = Object.keys(root).filter((key) => root[key] !== undefined);
      const withDefs = defNames !== undefined && defNames.length > 0;
      if (withDefs) keys.push("$defs");
      keys.sort();
      if (keys.length === 0) {
        out.push(head, "{}", tail);
        return out;
      }
      // The opening up to the first definition is one piece when that definition's name starts one.
      const first = withDefs ? defNames[0]! : undefined;
      const opened = keys[0] === "$defs" && first !== undefined && (typeof first === "number" || startsPiece(first));
      if (opened) out.push((prefixCount ??= counter.countOnce(`${head}{"$defs":{"`)));
      else out.push(head, '{"');
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k]!;
        const last = k === keys.length - 1;
        if (key === "$defs" && withDefs) {
          if (!(opened && k === 0)) out.push('$defs":', '{"');
          // A definition is the tool's own exactly when its body is the original object.
          pushEntries(defNames, bodyOf!, (name, body) => body === defs[name], last, keys[k + 1]);
          continue;
        }
        const value = root[key];
        if ((key === "$defs" || key === "properties") && isSchemaObject(value)) {
          out.push(JSON.stringify(key).slice(1) + ":");
          const names = key === "properties" ? argumentOrder(value) : Object.keys(value).filter((name) => value[name] !== undefined).sort();
          if (names.length === 0) {
            out.push("{}", last ? "}" : ',"');
            continue;
          }
          out.push('{"');
          pushEntries(names, (name) => value[name], (_name, member) => isOriginal(member), last, keys[k + 1]);
        } else {
          out.push(entryOf(key, value, last, isOriginal(value)));
        }
      }
      out.push(tail);
      // Reused from price to price: the caller counts it at once.
      return out;
    },
  };
  return model;
}

/** One entry as a part: from its key's first character to the separator after its value. */
function entryText(key: string, valueText: string, last: boolean): string {
  return JSON.stringify(key).slice(1) + ":" + valueText + (last ? "}" : ',"');
}

/** The definitions `body` refers to (the targets `refsFrom` lists, without the root). */
function targetsIn(body: JsonSchemaObject): string[] {
  const found = new Set<string>();
  const seen = new Set<JsonSchemaObject>();
  const stack = [body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (typeof node.$ref === "string" && hasOwn(node, "$ref")) {
      const target = defTarget(node.$ref);
      if (target !== ROOT) found.add(target);
    }
    for (const edge of subschemasOf(node)) stack.push(edge.child);
  }
  return [...found];
}

/** `refTarget`, without decoding where there is nothing to decode (`#/$defs/Name`). */
function defTarget(ref: string): string {
  if (ref.startsWith("#/$defs/")) {
    const name = ref.slice(8);
    if (name.length > 0 && !/[/~%]/.test(name)) return name;
  }
  return refTarget(ref);
}

/**
 * Reference sites below `body`, by target definition, as the projection's workspace counts
 * them. It counts on a copy, where a node shared between two places is two nodes; so a
 * node met twice (shared, or a loop) ends the fast pricing (`seen` spans the whole tool),
 * and the reference prices such a tool. `atRoot` skips nested `$defs`, as the root is walked.
 */
function refSites(body: JsonSchemaObject, defs: Record<string, JsonSchemaObject>, atRoot: boolean, seen: Set<object>): Map<string, number> {
  const sites = new Map<string, number>();
  const stack = [body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) throw new Error("a shared node");
    seen.add(node);
    if (typeof node.$ref === "string" && hasOwn(node, "$ref")) {
      const target = defTarget(node.$ref);
      if (target !== ROOT) {
        if (!hasOwn(defs, target)) throw new Error("unresolved");
        sites.set(target, (sites.get(target) ?? 0) + 1);
      }
    }
    for (const edge of subschemasOf(node)) if (!(atRoot && edge.keyword === "$defs")) stack.push(edge.child);
  }
  return sites;
}

/** Tokens of the tool without every path of `paths`, or undefined when the reference must price it. */
function priceDrops(model: ToolModel, paths: readonly string[], counter: PieceCounter): number | undefined {
  const read = readDrops(model, paths);
  if (read === undefined) return undefined;
  try {
    return countProjected(model, paths, read.selectors, read.reach, counter);
  } catch {
    return undefined;
  }
}

/** What the drops reach (for their stand-in), or undefined when the reference must handle them. */
function readDrops(model: ToolModel, paths: readonly string[]): { selectors: string[][]; reach: Reach } | undefined {
  // The stand-in of several drops holds what any of them reaches.
  const reach: Reach = { defs: new Set(), args: new Set() };
  const selectors: string[][] = [];
  for (const path of paths) {
    const read = readSelector(path);
    if (read === undefined) return undefined;
    // `Type:member` names the type; a quoted first name is an argument, never a type.
    const segments = read.type === undefined ? read.segments : [read.type, ...read.segments];
    const first = segments[0]!;
    const namesType = segments.length > 1 && (hasOwn(model.defs, first) || [...model.tool.definitionOrigins.values()].includes(first));
    const isArgument = read.type === undefined && model.args !== undefined && hasOwn(model.args, first);
    const isType = read.type !== undefined ? namesType : !read.quoted.has(0) && namesType;
    if (read.type === undefined && read.quoted.has(0) && !isArgument) return undefined;
    // Bare names search the whole tool, and both-or-neither is an error: the reference handles those.
    if (isArgument === isType) return undefined;
    try {
      reachOf(model, isArgument, first, segments, reach);
    } catch {
      return undefined;
    }
    selectors.push(segments);
  }
  return { selectors, reach };
}

interface Reach {
  /** Definitions the selector walk can enter. */
  defs: Set<string>;
  /** Root arguments kept whole in the stand-in. */
  args: Set<string>;
}

/**
 * What a selector walk can read or edit: from its start (the root, or every definition
 * of the type), segment by segment, the transparent closure of the current nodes and
 * the named property below each. Over-approximates (every node of a closure is taken
 * as a holder), which only makes the stand-in larger.
 */
function reachOf(model: ToolModel, fromRoot: boolean, first: string, segments: readonly string[], reach: Reach): void {
  const origins = model.tool.definitionOrigins;
  let nodes: JsonSchemaObject[];
  let rest: readonly string[];
  if (fromRoot) {
    nodes = [model.schema];
    rest = segments;
  } else {
    const names = Object.keys(model.defs).filter((name) => name === first || origins.get(name) === first);
    for (const name of names) reach.defs.add(name);
    nodes = names.map((name) => model.defs[name]!);
    rest = segments.slice(1);
  }
  for (let i = 0; i < rest.length; i++) {
    const closure = reachClosure(model, nodes, reach);
    const key = rest[i]!;
    if (parseBranchSegment(key) !== undefined) {
      nodes = closure; // branches are part of the closure already
      continue;
    }
    if (closure.includes(model.schema)) reach.args.add(key);
    if (i === rest.length - 1) break;
    nodes = [];
    for (const node of closure) {
      const properties = node.properties;
      if (isSchemaObject(properties) && hasOwn(properties, key) && isSchemaObject(properties[key])) nodes.push(properties[key]);
    }
  }
}

function reachClosure(model: ToolModel, start: readonly JsonSchemaObject[], reach: Reach): JsonSchemaObject[] {
  return transparentClosure(model.defs, start, (name) => reach.defs.add(name));
}

const EMPTY: JsonSchemaObject = Object.freeze({}) as JsonSchemaObject;

/**
 * A record without a prototype: any key (`__proto__` included) is an own property on
 * plain assignment, and assignment is much cheaper than defineProperty in these loops.
 */
function record<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The stand-in of a drop: what the projection is run on, and what it left out (to put back). */
interface StandIn {
  schema: JsonSchemaObject;
  /** Root arguments emptied in the stand-in. */
  emptied: Set<string>;
  /** Member names the selectors walk through. */
  onPath: Set<string>;
  /** Reachable definitions as the stand-in holds them. */
  bodies: Map<string, JsonSchemaObject>;
}

function standInOf(model: ToolModel, selectors: ReadonlyArray<readonly string[]>, reach: Reach): StandIn {
  const { schema, defs, args } = model;
  const origins = model.tool.definitionOrigins;
  // The stand-in: reachable definitions as they are; of the others, only the names the
  // projection can look up (targets of what it holds, possible split-copy names, the
  // selector's first segment) as empty schemas.
  const named = new Set<string>(model.skeletonRefs.keys());
  for (const key of reach.args) for (const target of model.argRefs.get(key)?.keys() ?? []) named.add(target);
  for (const segments of selectors) if (hasOwn(defs, segments[0]!)) named.add(segments[0]!);
  const copyPrefixes = [...reach.defs].map((name) => (origins.get(name) ?? name) + "_");
  // Reachable definitions with members keep only the members the selector names; the
  // references of the others go into a pad marked with the definition's name.
  const onPath = new Set(selectors.flat());
  const standInBody = new Map<string, JsonSchemaObject>();
  for (const name of reach.defs) {
    const original = defs[name]!;
    const byMember = model.memberRefs.get(name);
    if (byMember === undefined) {
      standInBody.set(name, original);
      continue;
    }
    const members = original.properties as Record<string, unknown>;
    const kept: Record<string, unknown> = record();
    const padRefs: JsonSchemaObject[] = [];
    for (const key of Object.keys(members)) {
      if (onPath.has(key)) {
        kept[key] = members[key];
        for (const target of byMember.get(key)!.keys()) named.add(target);
      } else {
        for (const [target, n] of byMember.get(key)!) {
          if (!reach.defs.has(target)) continue;
          const $ref = defRef(target);
          for (let i = 0; i < n; i++) padRefs.push({ $ref });
        }
      }
    }
    const body: JsonSchemaObject = { ...original, properties: kept };
    body[PAD_KEYWORD] = { [PAD_MARK + name]: { anyOf: padRefs } };
    standInBody.set(name, body);
  }
  for (const name of reach.defs) for (const target of (model.restRefs.get(name) ?? model.defRefs.get(name)!).keys()) named.add(target);
  // The definitions the stand-in holds, in the tool's own order (the order the projection meets them in),
  // found without visiting the others: the reachable and named ones, and the names under each copy prefix.
  const { order, sortedNames } = model;
  const held = new Set<string>(reach.defs);
  for (const name of named) if (order.has(name)) held.add(name);
  for (const prefix of copyPrefixes) {
    for (let i = lowerBound(sortedNames, prefix); i < sortedNames.length && sortedNames[i]!.startsWith(prefix); i++) held.add(sortedNames[i]!);
  }
  const standInDefs: Record<string, JsonSchemaObject> = record();
  for (const name of [...held].sort((a, b) => order.get(a)! - order.get(b)!)) standInDefs[name] = reach.defs.has(name) ? standInBody.get(name)! : EMPTY;
  const emptied = new Set<string>();
  let standInArgs: Record<string, unknown> | undefined;
  if (args !== undefined) {
    standInArgs = record();
    for (const key of Object.keys(args)) {
      const value = args[key];
      const keep = reach.args.has(key) || !isSchemaObject(value);
      if (!keep) emptied.add(key);
      standInArgs[key] = keep ? value : EMPTY;
    }
  }
  // Reference sites the emptied parts held, so that every count (and split decision) is the tool's.
  const pad: JsonSchemaObject[] = [];
  const addPad = (sites: Map<string, number>) => {
    for (const [target, n] of sites) {
      if (!reach.defs.has(target)) continue;
      const $ref = defRef(target);
      for (let i = 0; i < n; i++) pad.push({ $ref });
    }
  };
  for (const target of reach.defs) {
    const $ref = defRef(target);
    for (const [source, n] of model.referrers.get(target) ?? []) if (!reach.defs.has(source)) for (let i = 0; i < n; i++) pad.push({ $ref });
  }
  for (const key of emptied) addPad(model.argRefs.get(key)!);
  const standIn: JsonSchemaObject = { ...schema };
  if (standInArgs !== undefined) standIn.properties = standInArgs;
  if (hasOwn(schema, "$defs")) standIn.$defs = standInDefs;
  if (pad.length > 0) standIn[PAD_KEYWORD] = { "": { anyOf: pad } };
  return { schema: standIn, emptied, onPath, bodies: standInBody };
}

function countProjected(model: ToolModel, paths: readonly string[], selectors: ReadonlyArray<readonly string[]>, reach: Reach, counter: PieceCounter): number {
  const { defs, args } = model;
  const origins = model.tool.definitionOrigins;
  const { schema: standIn, emptied, onPath, bodies: standInBody } = standInOf(model, selectors, reach);
  const result = projectionOf(standIn, origins, paths, counter);
  const projected = result.schema;

  // Put the untouched parts back.
  const outDefs = defsOf(projected);
  const root: JsonSchemaObject = record();
  for (const key of Object.keys(projected)) if (key !== "$defs" && key !== PAD_KEYWORD) root[key] = projected[key];
  let projectedEdges = rootRefs.get(result);
  if (projectedEdges === undefined) rootRefs.set(result, (projectedEdges = refsFrom(root, "", true)));
  const rootEdges = new Set(projectedEdges);
  if (isSchemaObject(root.properties)) {
    const restored: Record<string, unknown> = record();
    for (const key of Object.keys(root.properties)) {
      if (emptied.has(key)) {
        restored[key] = args![key];
        for (const target of model.argRefs.get(key)!.keys()) rootEdges.add(target);
      } else {
        restored[key] = root.properties[key];
      }
    }
    root.properties = restored;
  }
  // A reachable definition the projection left as it was is the original; one it changed
  // (or a split copy) gets the members the stand-in left out back from the definition
  // its pad names.
  const body = new Map<string, JsonSchemaObject>();
  const edges = new Map<string, Iterable<string>>();
  const bodyOf = (name: string): JsonSchemaObject => {
    let found = body.get(name);
    if (found !== undefined) return found;
    if (hasOwn(defs, name) && !reach.defs.has(name)) {
      found = defs[name]!;
      edges.set(name, model.defRefs.get(name)!.keys());
    } else {
      if (!hasOwn(outDefs, name)) throw new Error(`stand-in lost ${name}`);
      const projectedBody = outDefs[name]!;
      const source = padSource(projectedBody);
      if (source === undefined) {
        const baseline = defs[name] ?? defs[result.origins.get(name) ?? name];
        if (hasOwn(defs, name) && sameJson(projectedBody, defs[name])) {
          found = defs[name]!;
          edges.set(name, model.defRefs.get(name)!.keys());
        } else {
          found = projectedBody;
          model.remember(found, textAgainst(found, baseline, 2, model));
          edges.set(name, model.targetsOf(found));
        }
      } else if (name === source && sameJson(projectedBody, standInBody.get(source))) {
        found = defs[name]!;
        edges.set(name, model.defRefs.get(name)!.keys());
      } else {
        const original = defs[source]!;
        const members = original.properties as Record<string, unknown>;
        const projectedMembers = (projectedBody.properties ?? {}) as Record<string, unknown>;
        const restoredMembers: Record<string, unknown> = record();
        const targets = new Set<string>();
        for (const key of Object.keys(members)) {
          if (onPath.has(key)) continue;
          restoredMembers[key] = members[key];
          for (const target of model.memberRefs.get(source)!.get(key)!.keys()) targets.add(target);
        }
        for (const key of Object.keys(projectedMembers)) restoredMembers[key] = projectedMembers[key];
        found = record();
        for (const key of Object.keys(projectedBody)) if (key !== PAD_KEYWORD) found[key] = projectedBody[key];
        found.properties = restoredMembers;
        const shell: JsonSchemaObject = { ...found, properties: projectedMembers };
        for (const target of targetsIn(shell)) targets.add(target);
        model.remember(found, textAgainst(found, original, 2, model));
        edges.set(name, targets);
      }
    }
    body.set(name, found);
    return found;
  };
  // Bodies and arguments taken from the original are serialized once per call.
  const original = new Set<unknown>();
  for (const key of emptied) original.add(args![key]);
  const isOriginal = (value: unknown) => original.has(value);
  const runs = model.runs();
  const restoredAll = emptied.size === 0 || (isSchemaObject(root.properties) && [...emptied].every((key) => hasOwn(root.properties as object, key)));
  if (runs !== undefined && restoredAll) {
    return counter.countJoined(model.parts(root, isOriginal, changedDefinitions(model, runs, reach, rootEdges, bodyOf, edges), bodyOf));
  }
  // What stays: reachability over the whole tool (the stand-in's own collection saw only part of it).
  const live = new Set<string>();
  const queue = [...rootEdges].filter((name) => name !== ROOT);
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (live.has(name)) continue;
    live.add(name);
    bodyOf(name);
    for (const target of edges.get(name)!) queue.push(target);
  }
  return counter.countJoined(model.parts(root, isOriginal, [...live].sort(), bodyOf));
}

/**
 * The projected tool's definitions in canonical order, without visiting the ones a price
 * cannot change. `changed`: what the original graph reaches from the parts the stand-in
 * held (its definitions, the arguments it kept whole, the root's other keywords). Every
 * definition outside it keeps its body and its edges, and stays reachable: a path to it
 * from an argument the stand-in emptied (restored as it was) meets nothing changed, or
 * the definition would be in `changed`. So only `changed` and the split copies are walked
 * (from the root's new edges, and from unchanged definitions referring into `changed`),
 * and each stretch of unchanged definitions between them is one number: the sum of their
 * whole pieces (`runs.sums`), all but the stretch's last, which is written as a name (its
 * successor may be new). Returns names and numbers for `parts`.
 */
function changedDefinitions(
  model: ToolModel,
  runs: DefinitionRuns,
  reach: Reach,
  rootEdges: ReadonlySet<string>,
  bodyOf: (name: string) => JsonSchemaObject,
  edges: ReadonlyMap<string, Iterable<string>>,
): Array<string | number> {
  const { defs } = model;
  const changed = new Set<string>();
  const stack: string[] = [...reach.defs];
  for (const key of reach.args) for (const target of model.argRefs.get(key)?.keys() ?? []) stack.push(target);
  for (const target of model.skeletonRefs.keys()) stack.push(target);
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (changed.has(name) || !hasOwn(defs, name)) continue;
    changed.add(name);
    for (const target of model.defRefs.get(name)!.keys()) stack.push(target);
  }
  const stable = (name: string) => hasOwn(defs, name) && !changed.has(name);
  const live = new Set<string>();
  const queue: string[] = [];
  for (const name of rootEdges) if (name !== ROOT && !stable(name)) queue.push(name);
  for (const name of changed) {
    for (const [source] of model.referrers.get(name) ?? []) {
      if (!changed.has(source)) {
        queue.push(name);
        break;
      }
    }
  }
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (live.has(name)) continue;
    live.add(name);
    bodyOf(name);
    for (const target of edges.get(name)!) if (!stable(target)) queue.push(target);
  }
  const { sorted, sums } = runs;
  const out: Array<string | number> = [];
  // Unchanged definitions sorted[from .. to - 1]: the whole pieces of all but the last, then the last by name.
  const pushRun = (from: number, to: number) => {
    if (to - from >= 2) out.push(sums[to - 1]! - sums[from]!);
    if (to - from >= 1) out.push(sorted[to - 1]!);
  };
  let next = 0;
  for (const name of [...new Set([...changed, ...live])].sort()) {
    const at = lowerBound(sorted, name);
    pushRun(next, at);
    next = sorted[at] === name ? at + 1 : at;
    if (live.has(name)) out.push(name);
  }
  pushRun(next, sorted.length);
  return out;
}

/** The first index of `sorted` whose name is not below `name` (the order of `Array.prototype.sort`). */
function lowerBound(sorted: readonly string[], name: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < name) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** What pricing by stretches of unchanged definitions needs (`ToolModel.runs`). */
interface DefinitionRuns {
  /** The tool's definition names, sorted. */
  sorted: string[];
  /** sums[k]: the whole pieces (`name":<body>,"`) of sorted[0 .. k - 1] added up. */
  sums: number[];
}

/**
 * Projections of stand-ins, shared by every pricer counting with one `PieceCounter` (one
 * measurement). Tools of one pack have the same stand-in for many drops (every Kubernetes
 * `list_namespaced_*` tool has the same arguments: dropping `limit` empties the same others
 * and keeps the same schema), 1,416 distinct in the 10,508 prices of a Kubernetes report.
 * The key is the stand-in as JSON in its own key order (the order a projection meets keys
 * in, and so names split copies in), with the selectors and the tool's split-copy origins:
 * all a projection reads. Its result is only read, never edited, by whoever uses it.
 */
const projections = new WeakMap<PieceCounter, Map<string, ProjectedSchema>>();
/** What a shared projection's root (its `$defs` and pad left out) refers to: read again by every tool sharing it. */
const rootRefs = new WeakMap<ProjectedSchema, string[]>();
/** The same for `ToolPricer.refusal`: REQUIRED_DROPPED's message, or null. */
const refusals = new WeakMap<PieceCounter, Map<string, string | null>>();

function projectionKey(standIn: JsonSchemaObject, origins: ReadonlyMap<string, string>, paths: readonly string[]): string {
  return `${JSON.stringify(paths)}\n${origins.size === 0 ? "" : JSON.stringify([...origins])}\n${JSON.stringify(standIn)}`;
}

function projectionOf(standIn: JsonSchemaObject, origins: ReadonlyMap<string, string>, paths: readonly string[], counter: PieceCounter): ProjectedSchema {
  let known = projections.get(counter);
  if (known === undefined) projections.set(counter, (known = new Map()));
  const key = projectionKey(standIn, origins, paths);
  let result = known.get(key);
  if (result === undefined) {
    result = projectSchema(standIn, origins, { drop: paths }, { allowRequiredDrop: true });
    known.set(key, result);
  }
  return result;
}

/** The definition a stand-in body (or a split copy of one) was made from, by its pad's mark. */
function padSource(body: JsonSchemaObject): string | undefined {
  const pad = body[PAD_KEYWORD];
  if (!isSchemaObject(pad)) return undefined;
  const keys = Object.keys(pad);
  return keys.length === 1 && keys[0]!.startsWith(PAD_MARK) ? keys[0]!.slice(PAD_MARK.length) : undefined;
}

/** Whether two JSON values are equal (same keys, same primitives); then their canonical texts are equal. */
function sameJson(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const xKeys = Object.keys(x);
    const yKeys = Object.keys(y);
    if (xKeys.length !== yKeys.length) return false;
    for (const key of xKeys) {
      if (!hasOwn(y, key)) return false;
      stack.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

/**
 * `canonicalJson(value)`, reusing the known text of each member equal to the same member
 * of `baseline` (a projected definition differs from its original in a few members).
 * Goes `levels` deep at most, then serializes.
 */
function textAgainst(value: unknown, baseline: unknown, levels: number, model: ToolModel): string {
  if (baseline !== undefined && sameJson(value, baseline)) return model.textOf(baseline);
  if (levels === 0 || typeof value !== "object" || value === null || Array.isArray(value) || typeof baseline !== "object" || baseline === null || Array.isArray(baseline)) {
    return canonicalJson(value);
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort();
  let out = "{";
  keys.forEach((key, i) => {
    const before = hasOwn(baseline, key) ? (baseline as Record<string, unknown>)[key] : undefined;
    out += (i > 0 ? "," : "") + JSON.stringify(key) + ":" + textAgainst(object[key], before, levels - 1, model);
  });
  return out + "}";
}
