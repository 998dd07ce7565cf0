import { escapePointerSegment, hasOwn, isSchemaObject, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { nearestNames, withSuggestion } from "../edit-distance.ts";
import { validatePin } from "./pin-validation.ts";
import { declaresKey, isOpen, opensTo, patternMatches, requiresUndeclared } from "../object-openness.ts";
import { SchemaWorkspace, type BranchSlot, type Found, type Located } from "./schema-workspace.ts";
import { branchCandidates, locate, parseBranchSegment, parseSelector, selectorText, splitSelector, startNodes, withSegments, type Selector } from "./selectors.ts";
import type { WithheldPath } from "../tool-ir.ts";

export interface SchemaProjection {
  drop?: readonly string[];
  keep?: readonly string[];
  pin?: Readonly<Record<string, unknown>>;
}

export interface ProjectedSchema {
  schema: JsonSchemaObject;
  origins: Map<string, string>;
  /** What this projection withheld, in the order applied. */
  withheld: WithheldPath[];
  pins: Record<string, unknown>;
}

export interface ProjectOptions {
  /** Measurement only (`paths({byCost})`): price a required branch by removing it anyway. */
  allowRequiredDrop?: boolean;
}

/**
 * Applies drop, keep and pin to a copy of `schema`. Every selector must name something
 * that exists (a typo is an error, never a no-op), nothing is ever added, and
 * definitions nobody reaches any more are collected at the end.
 *
 * Withholding a member is one rule wherever the member can appear: it is removed where
 * it is declared; a union branch that only requires it (`{ required: ["team_reviewers"] }`)
 * can no longer be met and goes; and every open schema beside it (an
 * `additionalProperties` branch, a free-form object) gets `"member": false`, so that no
 * branch invites the model to send it. Union branches are removed by their own
 * selectors (`body.oneOf[Modal]`), all resolved against the parent's positions first.
 */
export function projectSchema(
  schema: JsonSchemaObject,
  origins: ReadonlyMap<string, string>,
  projection: SchemaProjection,
  options: ProjectOptions = {},
): ProjectedSchema {
  const ws = new SchemaWorkspace(schema, origins);
  const withheld: WithheldPath[] = [];
  const pins = checkPins(ws, projection);

  const drops = (projection.drop ?? []).map((raw) => {
    const selector = parseSelector(ws, raw);
    if (selector.kind === "path" && selector.segments.length === 1 && hasOwn(pins, selector.segments[0]!)) {
      throw new SluiceError("INVALID_OPTION", `"${raw}" is both pinned and dropped; pinning already withholds it.`);
    }
    return selector;
  });
  // Every selector must exist in this tool (a typo is an error), checked before any edit.
  const existed = new Set<Selector>();
  for (const selector of drops) {
    locate(ws, selector, false);
    existed.add(selector);
  }
  const groups = keepGroups(ws, projection.keep ?? []);
  const keepContext = (group: KeepGroup) => {
    const parents = group.parent === undefined ? [{ node: ws.root, pointer: "" }] : parentNodes(ws, group.parent, true);
    const base = group.parent ?? { kind: "path" as const, segments: [], text: "" };
    const selectorFor = (segment: string): Selector => {
      const segments = [...base.segments, segment];
      if (segment !== "*") return withSegments(ws, base, segments);
      // `*` (any key the group's open objects admitted) is the egress map's own segment, not a name.
      const head = base.segments.length === 0 ? "" : selectorText(ws, base.kind, base.type, base.segments);
      return { ...base, segments, text: head === "" ? "*" : `${head}.*` };
    };
    return { parents, selectorFor };
  };

  // Branches first (dropped, or not kept), each located before any is removed, so that
  // positions mean the parent's and members of a removed branch are gone before members
  // are withheld (a member required only in that branch can then go).
  const branchDrops = drops.filter(isBranchSelector);
  dropBranches(ws, branchDrops);
  for (const selector of branchDrops) withheld.push({ path: selector.text, reason: "projection" });
  for (const group of groups) {
    if (!group.branches) continue;
    const { parents, selectorFor } = keepContext(group);
    const labels = new Set(parents.flatMap((parent) => branchCandidates(ws, [parent], "")));
    const others = [...labels].filter((label) => !group.kept.has(label)).sort().map(selectorFor);
    dropBranches(ws, others);
    for (const selector of others) withheld.push({ path: selector.text, reason: "projection" });
  }

  for (const selector of drops) {
    if (isBranchSelector(selector)) continue;
    // Checked before anything was removed: a member that only a removed branch had is gone already.
    if (existed.has(selector) && !exists(ws, selector)) {
      withheld.push({ path: selector.text, reason: "projection" });
      continue;
    }
    withholdMember(ws, selector, pins, options);
    withheld.push({ path: selector.text, reason: "projection" });
  }

  for (const group of groups) {
    if (group.branches) continue;
    const { parents, selectorFor } = keepContext(group);
    const members = new Set(parents.flatMap((parent) => ws.membersOf(parent).map((m) => m.key)));
    for (const key of [...members].sort()) {
      if (group.kept.has(key) || (group.parent === undefined && hasOwn(pins, key))) continue;
      const selector = selectorFor(key);
      withholdMember(ws, selector, pins, options);
      withheld.push({ path: selector.text, reason: "projection" });
    }
    // Keep is an allowlist: objects of the group that admit keys they do not declare are closed too.
    if (closeOpenNodes(ws, parents, [...members].filter((key) => group.kept.has(key)))) withheld.push({ path: selectorFor("*").text, reason: "projection" });
  }

  settleDependentRequired(ws.root, pins, options);
  for (const key of Object.keys(pins)) {
    ws.removeProperty(ws.root, key);
    withheld.push({ path: key, reason: "pinned", value: pins[key] });
  }

  return { schema: ws.result(), origins: ws.origins, withheld, pins };
}

function exists(ws: SchemaWorkspace, selector: Selector): boolean {
  try {
    return locate(ws, selector, false).length > 0;
  } catch (error) {
    if (error instanceof SluiceError && error.code === "UNKNOWN_SELECTOR") return false;
    throw error;
  }
}

function isBranchSelector(selector: Selector): boolean {
  const last = selector.segments[selector.segments.length - 1];
  return last !== undefined && parseBranchSegment(last) !== undefined;
}

/**
 * Removes the union branches the selectors name (all located first, with shared definitions split).
 * A removed `anyOf` branch only narrows; a removed `oneOf` branch lets through a value that
 * matched it and one remaining branch (the parent refused that). Repeating the branch as a
 * `not` would be exact but costs the tokens the drop saves (bench/NEVER-WIDEN.md), so the
 * schema just loses the branch and the call-time parent check (guards.parentCheck) refuses
 * such a value.
 */
function dropBranches(ws: SchemaWorkspace, selectors: readonly Selector[]): void {
  const slots: BranchSlot[] = [];
  for (const selector of selectors) {
    for (const location of locate(ws, selector, true)) if (location.branch !== undefined) slots.push(location.branch);
  }
  if (slots.length > 0) ws.removeBranches(slots, selectors.map((s) => s.text).join(", "));
}

/**
 * Withholds one member wherever the selector reaches it: removed where declared
 * (refused while required, unless pinned at the top level), bare union branches that
 * require it removed, open schemas beside it made to forbid it.
 */
function withholdMember(ws: SchemaWorkspace, selector: Selector, pins: Readonly<Record<string, unknown>>, options: ProjectOptions): void {
  const key = selector.segments[selector.segments.length - 1]!;
  if (locate(ws, selector, false).length === 0) return; // must exist; errors list candidates
  const parents = selectorParents(ws, selector);
  const touched = (node: JsonSchemaObject) => declaresKey(node, key) || requiresUndeclared(node, key) || opensTo(node, key, patternMatches);
  const found: Found[] = [];
  const seen = new Set<JsonSchemaObject>();
  for (const parent of parents) {
    for (const node of ws.findNodes(parent, touched, true)) if (!seen.has(node.node) && seen.add(node.node)) found.push(node);
  }
  const bareBranches: BranchSlot[] = [];
  for (const { node, pointer, slot } of found) {
    const required = Array.isArray(node.required) && node.required.includes(key);
    if (declaresKey(node, key)) {
      const pinnedHere = node === ws.root && hasOwn(pins, key);
      if (required && !pinnedHere && !options.allowRequiredDrop) {
        const branches = slot === undefined ? branchesRequiring(ws, selector) : [branchText(ws, selector, slot)];
        const where = branches.length === 0 ? "" : ` in ${branches.length === 1 ? "the branch" : "the branches"} ${branches.join(", ")}; withhold ${branches.length === 1 ? "that branch" : "those branches"} first`;
        throw new SluiceError("REQUIRED_DROPPED", `Cannot withhold "${selector.text}": it is required${where}${node === ws.root ? "; pin it to a value instead" : ""}.`, {
          pointer: pointer + "/required",
          ...(branches.length === 0 ? {} : { candidates: branches }),
        });
      }
      ws.removeProperty(node, key);
      if (opensTo(node, key, patternMatches)) ws.forbidProperty(node, key);
      continue;
    }
    if (required) {
      if (slot !== undefined && isBareConstraint(node)) {
        bareBranches.push(slot);
        continue;
      }
      if (!options.allowRequiredDrop) {
        throw new SluiceError("REQUIRED_DROPPED", `Cannot withhold "${selector.text}": it is required (${pointer === "" ? "at the top level" : pointer}).`, { pointer: pointer + "/required" });
      }
      ws.removeRequired(node, key);
      continue;
    }
    ws.forbidProperty(node, key);
  }
  if (bareBranches.length > 0) {
    try {
      ws.removeBranches(bareBranches, selector.text);
    } catch (error) {
      if (!(error instanceof SluiceError) || error.code !== "LAST_BRANCH") throw error;
      if (!options.allowRequiredDrop) {
        throw new SluiceError("REQUIRED_DROPPED", `Cannot withhold "${selector.text}": every alternative of its union requires it.`);
      }
    }
  }
}

/** A branch that only constrains its siblings' members: `{ required: [...] }`, with nothing that describes members. */
function isBareConstraint(node: JsonSchemaObject): boolean {
  return !["properties", "patternProperties", "additionalProperties", "$ref", "allOf", "anyOf", "oneOf", "items"].some((k) => hasOwn(node, k));
}

/** `body.oneOf[Modal]`: the selector of the branch a holder sits in, for messages. */
function branchText(ws: SchemaWorkspace, selector: Selector, slot: BranchSlot): string {
  const parentSegments = selector.segments.slice(0, -1);
  const parent = selector.kind === "path" && parentSegments.length === 0 ? "" : selectorText(ws, selector.kind, selector.type, parentSegments).replace(/:$/, "");
  const label = ws.branchLabel((slot.container[slot.keyword] as unknown[])[slot.index], slot.index);
  return `${parent === "" ? "" : `${parent}.`}${slot.keyword}[${label}]`;
}

/**
 * The union branches along a selector's path in which the selected member is required:
 * withholding those branches first lets the member go (`body.anyOf[Modal]` for
 * `body.data.components`).
 */
function branchesRequiring(ws: SchemaWorkspace, selector: Selector): string[] {
  const out: string[] = [];
  const key = selector.segments[selector.segments.length - 1]!;
  for (let i = 0; i < selector.segments.length - 1; i++) {
    const here = selector.segments.slice(0, i + 1);
    let nodes: Located[];
    try {
      nodes = parentNodes(ws, { ...selector, segments: here });
    } catch {
      continue;
    }
    for (const candidate of branchCandidates(ws, nodes, selectorText(ws, selector.kind, selector.type, here))) {
      const segments = [...here, splitSelector(candidate).at(-1)!, ...selector.segments.slice(i + 1)];
      try {
        const holders = locate(ws, withSegments(ws, selector, segments), false);
        if (holders.some(({ holder }) => Array.isArray(holder.node.required) && holder.node.required.includes(key))) out.push(candidate);
      } catch {
        // The member is not in this branch.
      }
    }
  }
  return out;
}

/** The nodes whose members the selector's last segment names (the root, a type's definitions, or a parent path's schemas). */
function selectorParents(ws: SchemaWorkspace, selector: Selector): Located[] {
  if (selector.segments.length <= 1) return startNodes(ws, selector);
  return parentNodes(ws, { ...selector, segments: selector.segments.slice(0, -1) }, true);
}

/**
 * Closes the open objects among `parents` (and their branches): `additionalProperties`
 * and `patternProperties` go, and a free-form object gets an empty `properties`, which
 * sluice reads as closed. True when anything was closed.
 *
 * A kept member keeps every constraint that applied to it: the `patternProperties`
 * entries whose pattern matches its name, or, where it is not declared and no pattern
 * matches, the `additionalProperties` schema, move into its own property schema first
 * (`keep: ["v.foo"]` beside `"^f": {type: integer}` keeps `foo` an integer).
 */
function closeOpenNodes(ws: SchemaWorkspace, parents: readonly Located[], kept: readonly string[]): boolean {
  let closed = false;
  for (const parent of parents) {
    for (const { node } of ws.findNodes(parent, isOpen, true)) {
      if (!admitsObjects(node)) continue;
      const patterns = isSchemaObject(node.patternProperties) ? node.patternProperties : {};
      const additional = node.additionalProperties;
      for (const key of kept) {
        const matching = Object.keys(patterns).filter((pattern) => patternMatches(pattern, key)).map((pattern) => patterns[pattern]);
        if (matching.length > 0) ws.constrainProperty(node, key, matching);
        else if (!declaresKey(node, key) && additional !== undefined && additional !== true) ws.constrainProperty(node, key, [additional]);
      }
      for (const keyword of ["additionalProperties", "patternProperties"]) {
        if (hasOwn(node, keyword)) {
          ws.removeKeyword(node, keyword);
        }
      }
      if (!hasOwn(node, "properties")) node.properties = {};
      closed = true;
    }
  }
  return closed;
}

function admitsObjects(node: JsonSchemaObject): boolean {
  const type = node.type;
  return type === undefined || type === "object" || (Array.isArray(type) && type.includes("object"));
}

function checkPins(ws: SchemaWorkspace, projection: SchemaProjection): Record<string, unknown> {
  const pins: Record<string, unknown> = {};
  const pin = projection.pin ?? {};
  if (!isSchemaObject(pin)) throw new SluiceError("INVALID_OPTION", "`pin` must be an object of argument names to values.");
  const properties = isSchemaObject(ws.root.properties) ? ws.root.properties : {};
  for (const key of Object.keys(pin)) {
    if (!hasOwn(properties, key)) {
      const near = nearestNames(key, Object.keys(properties));
      throw new SluiceError("UNKNOWN_SELECTOR", withSuggestion(`Cannot pin "${key}": only top-level arguments can be pinned, and this tool has no argument "${key}".`, near), {
        candidates: [...new Set([...near, ...Object.keys(properties)])],
      });
    }
    const value = pin[key];
    const argSchema = properties[key];
    if (argSchema === false) {
      throw new SluiceError("PIN_INVALID", `Cannot pin "${key}": its schema is \`false\`, so no value of it is ever accepted.`, { pointer: "/properties/" + escapePointerSegment(key) });
    }
    validatePin(key, value, isSchemaObject(argSchema) ? argSchema : {}, ws.root.$defs);
    Object.defineProperty(pins, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return pins;
}

interface KeepGroup {
  /** The selector whose members are narrowed; undefined for the top level. */
  parent: Selector | undefined;
  /** Whether the group is the union branches below the parent (`oneOf[...]`) rather than its members. */
  branches: boolean;
  kept: Set<string>;
}

/** Groups keep selectors by the sibling group they narrow, shallowest first. */
function keepGroups(ws: SchemaWorkspace, keep: readonly string[]): KeepGroup[] {
  const groupId = (selector: Selector, parentSegments: readonly string[], child: string): string => {
    const branches = parseBranchSegment(child) !== undefined;
    if (selector.kind === "path" && parentSegments.length === 0 && !branches) return "";
    return `${selector.kind}${branches ? "|" : ":"}${[...(selector.kind === "type" ? [selector.type!] : []), ...parentSegments].join("\u0000")}`;
  };
  const selectors = keep.map((raw) => parseSelector(ws, raw));
  const groups = new Map<string, KeepGroup>();
  /** A branch segment as listed by branchCandidates: by type where the branch is a ref. */
  const canonical = (selector: Selector, upTo: number): string => {
    const segment = selector.segments[upTo - 1]!;
    if (parseBranchSegment(segment) === undefined) return segment;
    const slot = locate(ws, { ...selector, segments: selector.segments.slice(0, upTo) }, false)[0]?.branch;
    if (slot === undefined) return segment;
    return `${slot.keyword}[${ws.branchLabel((slot.container[slot.keyword] as unknown[])[slot.index], slot.index)}]`;
  };
  for (const selector of selectors) {
    locate(ws, selector, false); // must exist
    const parentSegments = selector.segments.slice(0, -1);
    const last = selector.segments[selector.segments.length - 1]!;
    const id = groupId(selector, parentSegments, last);
    const parent: Selector | undefined =
      id === "" ? undefined : withSegments(ws, selector, parentSegments);
    const group = groups.get(id) ?? { parent, branches: parseBranchSegment(last) !== undefined, kept: new Set<string>() };
    group.kept.add(canonical(selector, selector.segments.length));
    groups.set(id, group);
  }
  // A kept path keeps its ancestors too, in those groups that are named at all:
  // keep ["first", "filter.title"] keeps `filter` beside `first`.
  for (const selector of selectors) {
    for (let n = 1; n < selector.segments.length; n++) {
      groups.get(groupId(selector, selector.segments.slice(0, n - 1), selector.segments[n - 1]!))?.kept.add(canonical(selector, n));
    }
  }
  return [...groups.entries()]
    // Shallowest first; at one place, branches before members, so that members of a
    // dropped branch are gone before the member group is narrowed.
    .sort(([a, ga], [b, gb]) => (ga.parent?.segments.length ?? -1) - (gb.parent?.segments.length ?? -1) || Number(gb.branches) - Number(ga.branches) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([, group]) => group);
}

/** The nodes whose members a keep group narrows. */
function parentNodes(ws: SchemaWorkspace, parent: Selector, split = false): Array<{ node: JsonSchemaObject; pointer: string }> {
  if (parent.segments.length === 0) {
    if (parent.kind === "path") return [{ node: ws.root, pointer: "" }]; // a root union's branches
    return ws.defsOfType(parent.type!).map((name) => ({ node: ws.defs[name]!, pointer: "/$defs/" + name }));
  }
  return locate(ws, parent, split).map(({ holder, key, branch }) => {
    if (branch !== undefined) {
      const element = (branch.container[branch.keyword] as unknown[])[branch.index];
      return { node: isSchemaObject(element) ? element : {}, pointer: "" };
    }
    const child = (holder.node.properties as Record<string, unknown>)[key];
    return { node: isSchemaObject(child) ? child : {}, pointer: holder.pointer + "/properties/" + escapePointerSegment(key) };
  });
}

/**
 * Keeps the root's `dependentRequired` (an optional body's members, which once one is sent
 * need the body's required ones) true to what is left: a withheld argument no longer needs
 * anything; a pinned one is always sent, so what it needs becomes required; a pinned value
 * is always there; and withholding an argument that a visible one needs is REQUIRED_DROPPED,
 * as for a required one (unless every argument that needs it goes too). Runs after drops and
 * keeps, before pins leave the schema.
 */
function settleDependentRequired(root: JsonSchemaObject, pins: Record<string, unknown>, options: ProjectOptions): void {
  const dependencies = root.dependentRequired;
  if (!isSchemaObject(dependencies)) return;
  const properties = isSchemaObject(root.properties) ? root.properties : {};
  const present = (name: string) => hasOwn(properties, name);
  const settled: Record<string, string[]> = {};
  const alsoRequired: string[] = [];
  for (const [key, needs] of Object.entries(dependencies)) {
    if (!present(key) || !Array.isArray(needs)) continue;
    const open = needs.filter((name): name is string => typeof name === "string" && !hasOwn(pins, name));
    const missing = open.filter((name) => !present(name));
    if (missing.length > 0 && !options.allowRequiredDrop) {
      throw new SluiceError("REQUIRED_DROPPED", `Cannot withhold "${missing[0]}": "${key}" requires it whenever it is sent (a required member of the request body); withhold "${key}" too, or pin "${missing[0]}".`, {
        pointer: `/dependentRequired/${escapePointerSegment(key)}`,
        candidates: [key],
      });
    }
    const kept = open.filter(present);
    if (hasOwn(pins, key)) alsoRequired.push(...kept);
    else if (kept.length > 0) Object.defineProperty(settled, key, { value: kept, enumerable: true, writable: true, configurable: true });
  }
  if (Object.keys(settled).length > 0) root.dependentRequired = settled;
  else delete root.dependentRequired;
  if (alsoRequired.length > 0) {
    const required = Array.isArray(root.required) ? (root.required as string[]) : [];
    root.required = [...required, ...[...new Set(alsoRequired)].filter((name) => !required.includes(name))];
  }
}
