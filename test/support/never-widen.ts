/**
 * The never-widen property, as an engine the tests drive: for a parent tool, a list of
 * projections and instances, "accepted by the projection" (check(): screening and
 * validation, argumentIssues in call/call.ts) must imply "accepted by the parent".
 *
 * Each instance is checked twice against each projection: with every guard on (the
 * guarantee users get, which the parent check holds by construction) and with
 * `parentCheck` off (what the projection's own schema and withheld list admit), so that
 * a report also says which edits rely on the backstop. Pins are also held to the
 * derive-time promise: a pin `derived()` took must be accepted by the parent in a call.
 */
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { join } from "node:path";
import { isSluiceError, type DeriveOptions, type JsonSchemaObject, Tool } from "@sluice/core";
import { guards } from "@sluice/core/guards";

const BINDING = { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } as const;

export interface SuiteCase {
  file: string;
  description: string;
  schema: unknown;
  instances: unknown[];
}

/** Every case of the suite's JSON files in `dir` (required tests only; the fixture holds no optional/). */
export function loadSuite(dir: string): SuiteCase[] {
  const cases: SuiteCase[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".json")).sort()) {
    const groups = JSON.parse(readFileSync(join(dir, file), "utf8")) as Array<{ description: string; schema: unknown; tests: Array<{ data: unknown }> }>;
    for (const group of groups) cases.push({ file, description: group.description, schema: group.schema, instances: group.tests.map((t) => t.data) });
  }
  return cases;
}

const LOCAL_REF = /^#(?:\/(\$defs|definitions)\/([A-Za-z0-9_.-]+))?$/;
/** Keywords that move the base URI or resolve dynamically: the Tool model takes local `#/$defs/Name` refs only. */
const UNSUPPORTED = ["$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"];

/**
 * A suite schema as the input of a tool with one argument `v`: its root definitions
 * (`$defs`, draft-04 `definitions`) are hoisted to the tool's `$defs`, its body becomes
 * `$defs.Suite`, and refs are rewritten (`#` to the body). A schema that needs more than
 * local definition refs is skipped, with the reason.
 */
export function suiteTool(schema: unknown, name = "suite"): { tool: Tool } | { skip: string } {
  if (typeof schema === "boolean") return { tool: Tool.create({ name, description: "suite", inputSchema: { type: "object", properties: { v: schema } }, binding: BINDING }) };
  const text = JSON.stringify(schema);
  for (const keyword of UNSUPPORTED) if (text.includes(`"${keyword}"`)) return { skip: `uses ${keyword}` };
  const body = structuredClone(schema) as JsonSchemaObject;
  delete body.$schema;
  const defs: Record<string, unknown> = {};
  for (const keyword of ["$defs", "definitions"]) {
    const group = body[keyword];
    if (group !== undefined && typeof group === "object" && group !== null) Object.assign(defs, group);
    delete body[keyword];
  }
  const suiteName = Object.hasOwn(defs, "Suite") ? "Suite_" : "Suite";
  let bad: string | undefined;
  const rewrite = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(rewrite);
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    if (typeof record.$ref === "string") {
      const match = LOCAL_REF.exec(record.$ref);
      if (match === null || (match[2] !== undefined && !Object.hasOwn(defs, match[2]))) bad = record.$ref;
      else record.$ref = match[2] === undefined ? `#/$defs/${suiteName}` : `#/$defs/${match[2]}`;
    }
    for (const value of Object.values(record)) rewrite(value);
  };
  rewrite(body);
  for (const def of Object.values(defs)) rewrite(def);
  if (bad !== undefined) return { skip: `ref ${bad} is not a local definition` };
  defs[suiteName] = body;
  const inputSchema: JsonSchemaObject = { type: "object", properties: { v: { $ref: `#/$defs/${suiteName}` } }, $defs: defs };
  return { tool: Tool.create({ name, description: "suite", inputSchema, binding: BINDING }) };
}

export interface Projection {
  /** `drop v.foo`, `keep v.oneOf[1]`, `pin v=<json>` */
  label: string;
  kind: "drop" | "keep" | "drop-branch" | "keep-branch" | "pin";
  options: DeriveOptions<object>;
}

/** Every projection `paths()` suggests: drop each path, keep each path (branches included), pin each argument to each instance. */
export async function projectionsOf(tool: Tool, instances: readonly unknown[], depth: number): Promise<Projection[]> {
  const paths = (await tool.paths({ depth })).map((p) => p.path);
  const out: Projection[] = [];
  for (const path of paths) {
    const branch = /(?:oneOf|anyOf)\[[^\]]*\]$/.test(path);
    out.push({ label: `drop ${path}`, kind: branch ? "drop-branch" : "drop", options: { drop: [path] } });
    out.push({ label: `keep ${path}`, kind: branch ? "keep-branch" : "keep", options: { keep: [path] } });
  }
  const args = Object.keys((tool.inputSchema.properties ?? {}) as object);
  for (const arg of args) {
    for (const instance of instances) {
      if (instance === undefined) continue;
      out.push({ label: `pin ${arg}=${JSON.stringify(instance)}`, kind: "pin", options: { pin: { [arg]: instance } } });
    }
  }
  return out;
}

export interface WidenFinding {
  tool: string;
  projection: string;
  kind: Projection["kind"];
  args: unknown;
  /** `check`: the projection accepted, the parent refused; `pin`: derive took a pin the parent refuses in a call; `crash`: an uncoded throw. */
  what: "check" | "pin" | "crash";
  detail?: string;
}

export interface WidenReport {
  tools: number;
  projections: number;
  /** Projections derive() refused with a coded error (REQUIRED_DROPPED, PIN_INVALID ...), by code. */
  refused: Record<string, number>;
  instanceChecks: number;
  /** Instance checks the parent refuses: the ones that could show a widening. */
  parentRefusals: number;
  /** With every guard on: must be empty. */
  failures: WidenFinding[];
  /** With parentCheck off: what the projection's own schema admits beyond its parent, by projection kind. */
  withoutParentCheck: WidenFinding[];
}

export function emptyReport(): WidenReport {
  return { tools: 0, projections: 0, refused: {}, instanceChecks: 0, parentRefusals: 0, failures: [], withoutParentCheck: [] };
}

/** check() as a yes/no: a coded error (a schema Ajv cannot compile) is a refusal; anything else is rethrown. */
function accepts(tool: Tool, args: unknown): boolean {
  return refusalCode(tool, args) === undefined;
}

/** undefined when check() accepts; "" when it lists issues; the code when the schema itself is refused (SPEC_INVALID, KEYWORD_UNSUPPORTED). */
function refusalCode(tool: Tool, args: unknown): string | undefined {
  try {
    return tool.check(args).length === 0 ? undefined : "";
  } catch (error) {
    if (isSluiceError(error)) return error.code;
    throw error;
  }
}

function withParentCheckOff<T>(fn: () => T): T {
  const before = guards.parentCheck;
  guards.parentCheck = false;
  try {
    return fn();
  } finally {
    guards.parentCheck = before;
  }
}

/**
 * Runs one parent against its projections, adding to `report`. `argSets` are calls of the
 * parent; a projection that pins arguments is called with the rest of each (and the
 * parent with the pins put back). With `pinsAlone` (tools whose only arguments are the
 * pinned ones), a pin that `derived()` took must also be one the parent accepts in a call.
 */
export function checkNeverWiden(parent: Tool, projections: readonly Projection[], argSets: readonly Record<string, unknown>[], report: WidenReport, pinsAlone = false): void {
  report.tools++;
  const parentAccepts = new Map<string, boolean>();
  const parentVerdict = (args: unknown): boolean => {
    const key = JSON.stringify(args);
    if (!parentAccepts.has(key)) parentAccepts.set(key, accepts(parent, args));
    return parentAccepts.get(key)!;
  };
  for (const projection of projections) {
    let child: Tool;
    try {
      child = parent.derived(projection.options);
    } catch (error) {
      if (isSluiceError(error)) {
        report.refused[error.code] = (report.refused[error.code] ?? 0) + 1;
        continue;
      }
      report.failures.push({ tool: parent.name, projection: projection.label, kind: projection.kind, args: undefined, what: "crash", detail: String(error) });
      continue;
    }
    report.projections++;
    const pins = (projection.options.pin ?? {}) as Record<string, unknown>;
    const calls = new Map<string, { sent: Record<string, unknown>; asParentCall: Record<string, unknown> }>();
    for (const args of argSets) {
      const sent = Object.fromEntries(Object.entries(args).filter(([key]) => !Object.hasOwn(pins, key)));
      calls.set(JSON.stringify(sent), { sent, asParentCall: { ...sent, ...pins } });
    }
    if (pinsAlone && Object.keys(pins).length > 0 && !parentVerdict(pins)) {
      report.failures.push({ tool: parent.name, projection: projection.label, kind: projection.kind, args: pins, what: "pin" });
    }
    for (const { sent, asParentCall } of calls.values()) {
      report.instanceChecks++;
      try {
        const parentOk = parentVerdict(asParentCall);
        if (!parentOk) report.parentRefusals++;
        if (parentOk) continue;
        if (accepts(child, sent)) report.failures.push({ tool: parent.name, projection: projection.label, kind: projection.kind, args: asParentCall, what: "check" });
        if (withParentCheckOff(() => accepts(child, sent))) {
          // Say when the parent refuses every call outright (its schema is refused with a code): a projection that cuts the refused keyword away admits what the parent never could.
          const code = refusalCode(parent, asParentCall);
          report.withoutParentCheck.push({ tool: parent.name, projection: projection.label, kind: projection.kind, args: asParentCall, what: "check", ...(code ? { detail: code } : {}) });
        }
      } catch (error) {
        report.failures.push({ tool: parent.name, projection: projection.label, kind: projection.kind, args: asParentCall, what: "crash", detail: String(error) });
      }
    }
  }
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A drawing function as `fc.gen()` gives one. */
export type Draw = <T>(arb: fc.Arbitrary<T>) => T;

const WRONG: readonly unknown[] = [null, 0, -1, 1.5, "", "x".repeat(70), true, [], { zz_extra: 1 }, [1, "a"]];

/**
 * A random value for `schema` (resolved against the tool's `$defs`), mostly shaped like
 * the schema and sometimes not: a wrong type, a value just past a bound, an extra key,
 * a branch's value where another was meant. Values the parent refuses are the ones that
 * can show a widening, so they are drawn often.
 */
export function drawInstance(draw: Draw, root: JsonSchemaObject, schema: unknown, depth = 0): unknown {
  const pick = <T>(items: readonly T[]): T => items[draw(fc.nat({ max: items.length - 1 }))]!;
  if (draw(fc.nat({ max: 9 })) === 0) return structuredClone(pick(WRONG));
  if (typeof schema !== "object" || schema === null) return structuredClone(pick(WRONG));
  let node = schema as JsonSchemaObject;
  for (let hops = 0; typeof node.$ref === "string" && hops < 8; hops++) {
    const name = /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1];
    const target = name === undefined ? undefined : (root.$defs as Record<string, unknown> | undefined)?.[name.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (typeof target !== "object" || target === null) return structuredClone(pick(WRONG));
    node = target as JsonSchemaObject;
  }
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const list = node[keyword];
    if (Array.isArray(list) && list.length > 0) return drawInstance(draw, root, pick(list), depth + 1);
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0 && node.properties === undefined) return drawInstance(draw, root, pick(node.allOf), depth + 1);
  if (Array.isArray(node.enum) && node.enum.length > 0) return structuredClone(pick(node.enum));
  if (Object.hasOwn(node, "const")) return structuredClone(node.const);
  const declared = Array.isArray(node.type) ? (node.type as string[]) : typeof node.type === "string" ? [node.type] : node.properties !== undefined ? ["object"] : node.items !== undefined ? ["array"] : ["string", "integer", "object"];
  const type = pick(declared);
  const bound = (keyword: string): number | undefined => (typeof node[keyword] === "number" ? (node[keyword] as number) : undefined);
  switch (type) {
    case "object": {
      if (depth > 5) return {};
      const out: Record<string, unknown> = {};
      const properties = (typeof node.properties === "object" && node.properties !== null ? node.properties : {}) as Record<string, unknown>;
      const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
      const keys = Object.keys(properties).sort();
      let budget = 6;
      for (const key of keys) {
        if (budget === 0) break;
        if (!required.has(key) && draw(fc.nat({ max: 3 })) !== 0) continue;
        budget--;
        Object.defineProperty(out, key, { value: drawInstance(draw, root, properties[key], depth + 1), enumerable: true, writable: true, configurable: true });
      }
      if (draw(fc.nat({ max: 7 })) === 0) out.zz_extra = "x";
      return out;
    }
    case "array": {
      if (depth > 5) return [];
      const length = draw(fc.nat({ max: 2 }));
      return Array.from({ length }, () => drawInstance(draw, root, node.items ?? true, depth + 1));
    }
    case "integer":
    case "number": {
      const min = bound("minimum") ?? bound("exclusiveMinimum");
      const max = bound("maximum") ?? bound("exclusiveMaximum");
      const candidates = [0, 1, -1, 100, ...(min === undefined ? [] : [min, min - 1]), ...(max === undefined ? [] : [max, max + 1]), ...(type === "number" ? [1.5] : [])];
      return pick(candidates);
    }
    case "string": {
      const minLength = bound("minLength");
      const maxLength = bound("maxLength");
      const candidates = ["", "a", "abc", "2024-01-02T03:04:05Z", "user@example.com", "123", ...(minLength === undefined ? [] : ["a".repeat(Math.max(0, minLength - 1)), "a".repeat(minLength)]), ...(maxLength === undefined ? [] : ["a".repeat(maxLength + 1)])];
      return pick(candidates);
    }
    case "boolean":
      return pick([true, false]);
    case "null":
      return null;
    default:
      return structuredClone(pick(WRONG));
  }
}

/** A random projection of `tool` from the paths it lists: one to three drops, or a keep of one to three paths, and sometimes a pin. */
export function drawProjection(draw: Draw, tool: Tool, paths: readonly string[]): Projection {
  const pick = <T>(items: readonly T[]): T => items[draw(fc.nat({ max: items.length - 1 }))]!;
  const options: DeriveOptions<object> = {};
  const parts: string[] = [];
  const selected = paths.length === 0 ? [] : [...new Set(Array.from({ length: 1 + draw(fc.nat({ max: 2 })) }, () => pick(paths)))].sort();
  const how = draw(fc.nat({ max: 2 }));
  if (selected.length > 0 && how !== 2) {
    if (how === 0) options.drop = selected;
    else options.keep = selected;
    parts.push(`${how === 0 ? "drop" : "keep"} ${selected.join(", ")}`);
  }
  const args = Object.keys((tool.inputSchema.properties ?? {}) as object).sort();
  if (args.length > 0 && (how === 2 || draw(fc.nat({ max: 3 })) === 0)) {
    const arg = pick(args);
    if (!selected.some((path) => path === arg || path.startsWith(`${arg}.`))) {
      const value = drawInstance(draw, tool.inputSchema, (tool.inputSchema.properties as Record<string, unknown>)[arg]);
      options.pin = { [arg]: value };
      parts.push(`pin ${arg}=${JSON.stringify(value)}`);
    }
  }
  const branch = selected.some((path) => /(?:oneOf|anyOf)\[[^\]]*\]$/.test(path));
  const kind: Projection["kind"] = options.pin !== undefined && selected.length === 0 ? "pin" : how === 0 ? (branch ? "drop-branch" : "drop") : branch ? "keep-branch" : "keep";
  return { label: parts.join("; ") || "identity", kind, options };
}
