import { hasOwn, isSchemaObject, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { validatePin } from "./pin-validation.ts";
import { SchemaWorkspace } from "./schema-workspace.ts";
import { locate, parseSelector, type Selector } from "./selectors.ts";
import type { WithheldPath } from "./tool-ir.ts";

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

  const dropOne = (selector: Selector): void => {
    for (const { holder, key } of locate(ws, selector, false)) {
      const required = Array.isArray(holder.node.required) && holder.node.required.includes(key);
      const pinnedHere = holder.node === ws.root && hasOwn(pins, key);
      if (required && !pinnedHere && !options.allowRequiredDrop) {
        throw new SluiceError("REQUIRED_DROPPED", `Cannot withhold "${selector.text}": it is required${holder.node === ws.root ? "; pin it to a value instead" : ""}.`, {
          pointer: holder.pointer + "/required",
        });
      }
    }
    for (const { holder, key } of locate(ws, selector, true)) ws.removeProperty(holder.node, key);
    withheld.push({ path: selector.text, reason: "projection" });
  };

  for (const raw of projection.drop ?? []) {
    const selector = parseSelector(ws, raw);
    if (selector.kind === "path" && selector.segments.length === 1 && hasOwn(pins, selector.segments[0]!)) {
      throw new SluiceError("INVALID_OPTION", `"${raw}" is both pinned and dropped; pinning already withholds it.`);
    }
    dropOne(selector);
  }

  for (const group of keepGroups(ws, projection.keep ?? [])) {
    const parents = group.parent === undefined ? [{ node: ws.root, pointer: "" }] : parentNodes(ws, group.parent);
    const members = new Set(parents.flatMap((parent) => ws.membersOf(parent).map((m) => m.key)));
    for (const key of [...members].sort()) {
      if (group.kept.has(key) || (group.parent === undefined && hasOwn(pins, key))) continue;
      const base = group.parent ?? { kind: "path" as const, segments: [], text: "" };
      const segments = [...base.segments, key];
      const text = [...(base.kind === "type" ? [base.type!] : []), ...segments].join(".");
      dropOne({ ...base, segments, text });
    }
  }

  for (const key of Object.keys(pins)) {
    ws.removeProperty(ws.root, key);
    withheld.push({ path: key, reason: "pinned", value: pins[key] });
  }

  return { schema: ws.result(), origins: ws.origins, withheld, pins };
}

function checkPins(ws: SchemaWorkspace, projection: SchemaProjection): Record<string, unknown> {
  const pins: Record<string, unknown> = {};
  const pin = projection.pin ?? {};
  if (!isSchemaObject(pin)) throw new SluiceError("INVALID_OPTION", "`pin` must be an object of argument names to values.");
  const properties = isSchemaObject(ws.root.properties) ? ws.root.properties : {};
  for (const key of Object.keys(pin)) {
    if (!hasOwn(properties, key)) {
      throw new SluiceError("UNKNOWN_SELECTOR", `Cannot pin "${key}": only top-level arguments can be pinned, and this tool has no argument "${key}".`, {
        candidates: Object.keys(properties),
      });
    }
    const value = pin[key];
    const argSchema = properties[key];
    validatePin(key, value, isSchemaObject(argSchema) ? argSchema : {}, ws.root.$defs);
    Object.defineProperty(pins, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return pins;
}

interface KeepGroup {
  /** The selector whose members are narrowed; undefined for the top level. */
  parent: Selector | undefined;
  kept: Set<string>;
}

/** Groups keep selectors by the sibling group they narrow, shallowest first. */
function keepGroups(ws: SchemaWorkspace, keep: readonly string[]): KeepGroup[] {
  const groupId = (selector: Selector, parentSegments: readonly string[]): string =>
    selector.kind === "path" && parentSegments.length === 0
      ? ""
      : `${selector.kind}:${[...(selector.kind === "type" ? [selector.type!] : []), ...parentSegments].join(".")}`;
  const selectors = keep.map((raw) => parseSelector(ws, raw));
  const groups = new Map<string, KeepGroup>();
  for (const selector of selectors) {
    locate(ws, selector, false); // must exist
    const parentSegments = selector.segments.slice(0, -1);
    const id = groupId(selector, parentSegments);
    const parent: Selector | undefined =
      id === "" ? undefined : { ...selector, segments: parentSegments, text: id.slice(id.indexOf(":") + 1) };
    const group = groups.get(id) ?? { parent, kept: new Set<string>() };
    group.kept.add(selector.segments[selector.segments.length - 1]!);
    groups.set(id, group);
  }
  // A kept path keeps its ancestors too, in those groups that are named at all:
  // keep ["first", "filter.title"] keeps `filter` beside `first`.
  for (const selector of selectors) {
    for (let n = 1; n < selector.segments.length; n++) {
      groups.get(groupId(selector, selector.segments.slice(0, n - 1)))?.kept.add(selector.segments[n - 1]!);
    }
  }
  return [...groups.entries()]
    .sort(([a, ga], [b, gb]) => (ga.parent?.segments.length ?? -1) - (gb.parent?.segments.length ?? -1) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([, group]) => group);
}

/** The nodes whose members a keep group narrows. */
function parentNodes(ws: SchemaWorkspace, parent: Selector): Array<{ node: JsonSchemaObject; pointer: string }> {
  if (parent.segments.length === 0) {
    return ws.defsOfType(parent.type!).map((name) => ({ node: ws.defs[name]!, pointer: "/$defs/" + name }));
  }
  return locate(ws, parent, false).map(({ holder, key }) => {
    const child = (holder.node.properties as Record<string, unknown>)[key];
    return { node: isSchemaObject(child) ? child : {}, pointer: holder.pointer + "/properties/" + key };
  });
}
