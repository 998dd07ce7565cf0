import { canonicalJson, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { compileArgumentCheck, type ArgumentCheck } from "./argument-validator.ts";
import { toolInShape, viewCatalog, type CatalogShape, type CatalogTool, type CatalogToolView } from "./catalog-tool.ts";
import { argumentList, requiredNames, signatureLine, type SignatureOptions } from "./signature.ts";

/**
 * Level 3: the catalog becomes two tools, a dispatcher `call_tool(code, args)` and a lookup
 * `describe_tool(code)`, plus a code map in the system text (one line per tool: short code,
 * name, signature). The code map is the same bytes for the same catalog, so it belongs
 * behind a cache breakpoint (`systemBlock` carries one); the full schemas are read only
 * for the tools the model asks about. `resolve` maps the model's calls back.
 */
/**
 * How each tool is written in the code map.
 * - `"summary"` (the default): `t1 name(arg: type, …) — First sentence.`, required
 *   arguments with their types, `…` when there are optional ones, the description's first
 *   sentence cut at `sentenceChars` (80 here; 0 leaves it out).
 * - `"compact"`: `t1 name arg,arg`, the required arguments' names only. About half the
 *   tokens a tool; the model leans on `describe_tool` for types, optional arguments and
 *   what a tool is for, so it suits catalogs whose tool names already say what they do.
 */
export type DispatchMapStyle = "summary" | "compact";

/** Signature options apply to the code map lines; here they default to `requiredOnly: true, sentenceChars: 80`. */
export interface DispatchLevel3Options extends SignatureOptions {
  /** How each tool is written in the code map. Default `"summary"`. */
  readonly mapStyle?: DispatchMapStyle;
  /** Name of the dispatcher tool. Default `call_tool`. */
  readonly callToolName?: string;
  /** Name of the lookup tool. Default `describe_tool`. */
  readonly describeToolName?: string;
}

/** One tool of the catalog as the dispatcher knows it. */
export interface DispatchedTool {
  readonly code: string;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  /** `(arg: type, arg?: type, …)` as in the code map line. */
  readonly argumentList: string;
  /** The code map line, in the dispatcher's map style. */
  readonly signature: string;
}

interface DispatcherState {
  readonly byCode: ReadonlyMap<string, DispatchedTool>;
  readonly byName: ReadonlyMap<string, DispatchedTool>;
  readonly checks: Map<string, ArgumentCheck | { compileError: string }>;
}

const states = new WeakMap<Dispatcher, DispatcherState>();

export class Dispatcher {
  readonly level = 3;
  /** What to send as the tools array: the dispatcher, the lookup, then the provider-typed tools unchanged. */
  readonly tools: readonly CatalogTool[];
  /** The code map and how to use it, for the system text. */
  readonly system: string;
  /** `system` as an Anthropic text block with a cache breakpoint after it. */
  readonly systemBlock: { readonly type: "text"; readonly text: string; readonly cache_control: { readonly type: "ephemeral" } };
  readonly callToolName: string;
  readonly describeToolName: string;
  /** Code to tool name, in code order. */
  readonly codes: ReadonlyMap<string, string>;

  /** @internal use {@link dispatchLevel3} */
  constructor(tools: readonly CatalogTool[], system: string, callToolName: string, describeToolName: string, state: DispatcherState) {
    this.tools = tools;
    this.system = system;
    this.systemBlock = { type: "text", text: system, cache_control: { type: "ephemeral" } };
    this.callToolName = callToolName;
    this.describeToolName = describeToolName;
    this.codes = new Map([...state.byCode].map(([code, tool]) => [code, tool.name]));
    states.set(this, state);
  }

  /** The tool behind a code (or a name: models mix them up). */
  lookup(codeOrName: string): DispatchedTool | undefined {
    const state = states.get(this)!;
    return state.byCode.get(codeOrName) ?? state.byName.get(codeOrName) ?? state.byCode.get(codeOrName.trim().toLowerCase());
  }

  /** What `describe_tool` answers: the tool's full definition, canonical JSON. */
  describe(tool: DispatchedTool): string {
    return canonicalJson({ code: tool.code, name: tool.name, description: tool.description, input_schema: tool.inputSchema });
  }

  /** The argument check against the tool's original schema, compiled on first use. */
  checkFor(tool: DispatchedTool): ArgumentCheck | { compileError: string } {
    const checks = states.get(this)!.checks;
    let check = checks.get(tool.name);
    if (check === undefined) {
      check = compileArgumentCheck(tool.inputSchema);
      checks.set(tool.name, check);
    }
    return check;
  }
}

const CODE_PREFIXES = ["t", "c", "k", "x", "q"];

/** Codes `t1`, `t2`, … in name order; another letter when a tool is itself named like a code. */
function assignCodes(names: readonly string[]): string[] {
  const lower = new Set(names.map((n) => n.toLowerCase()));
  for (const prefix of CODE_PREFIXES) {
    const codes = names.map((_, index) => `${prefix}${index + 1}`);
    if (codes.every((code) => !lower.has(code))) return codes;
  }
  return names.map((_, index) => `tool_code_${index + 1}`);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function catalogShape(views: readonly CatalogToolView[]): CatalogShape {
  return views.find((view) => view.shape !== "provider-typed")?.shape ?? "schema";
}

export function dispatchLevel3(catalog: readonly CatalogTool[], options: DispatchLevel3Options = {}): Dispatcher {
  const callToolName = options.callToolName ?? "call_tool";
  const describeToolName = options.describeToolName ?? "describe_tool";
  if (callToolName === describeToolName) throw new SluiceError("INVALID_OPTION", "callToolName and describeToolName must differ.");
  const views = viewCatalog(catalog);
  const schemaTools = views.filter((view) => view.inputSchema !== undefined).sort((a, b) => compare(a.name, b.name));
  const passThrough = views.filter((view) => view.inputSchema === undefined);
  for (const view of views) {
    if (view.name === callToolName || view.name === describeToolName) {
      throw new SluiceError("INVALID_NAME", `The catalog has a tool named ${view.name}, the name of a dispatcher tool; pass other callToolName / describeToolName.`);
    }
  }
  // The code map is paid on every request for every tool; the describe_tool answer on
  // demand carries the rest. So lines list required arguments only, and a short summary.
  const lineOptions: SignatureOptions = { requiredOnly: true, sentenceChars: 80, ...options };
  const mapStyle = options.mapStyle ?? "summary";
  if (mapStyle !== "summary" && mapStyle !== "compact") throw new SluiceError("INVALID_OPTION", `mapStyle is "summary" or "compact", not ${JSON.stringify(mapStyle)}.`);
  const codes = assignCodes(schemaTools.map((view) => view.name));
  const dispatched: DispatchedTool[] = schemaTools.map((view, index) => {
    const code = codes[index]!;
    const required = requiredNames(view.inputSchema!);
    const line = mapStyle === "compact" ? (required.length === 0 ? view.name : `${view.name} ${required.join(",")}`) : signatureLine(view.name, view.description, view.inputSchema!, lineOptions);
    return { code, name: view.name, description: view.description, inputSchema: view.inputSchema!, argumentList: argumentList(view.inputSchema!, lineOptions.maxArgs, lineOptions.requiredOnly), signature: `${code} ${line}` };
  });
  const example = dispatched[0]?.code ?? "t1";
  const legend =
    mapStyle === "compact"
      ? `Tools (code name required,arguments; optional arguments and types are not listed, ${describeToolName} has them):`
      : "Tools (code name(required arguments, … when there are optional ones) — summary):";
  const system = [
    `Tools are called through ${callToolName}(code, args): code from the list below, args an object of the tool's arguments. ${describeToolName}(code) returns a tool's full argument schema; use it when the line below is not enough.`,
    `Example: ${callToolName}({"code": "${example}", "args": {...}})`,
    legend,
    ...dispatched.map((tool) => tool.signature),
  ].join("\n");

  const shape = catalogShape(views);
  const callTool = toolInShape(shape, callToolName, `Call a tool listed in the system prompt by its code, with its arguments nested under args.`, {
    type: "object",
    properties: {
      code: { type: "string", description: `The tool's code, e.g. ${example}.` },
      args: { type: "object", description: "The tool's arguments." },
    },
    required: ["code", "args"],
  });
  const describeTool = toolInShape(shape, describeToolName, "Return the full argument schema of a tool listed in the system prompt.", {
    type: "object",
    properties: { code: { type: "string", description: `The tool's code, e.g. ${example}.` } },
    required: ["code"],
  });
  const state: DispatcherState = {
    byCode: new Map(dispatched.map((tool) => [tool.code, tool])),
    byName: new Map(dispatched.map((tool) => [tool.name, tool])),
    checks: new Map(),
  };
  return new Dispatcher([callTool, describeTool, ...passThrough.map((view) => view.entry)], system, callToolName, describeToolName, state);
}
