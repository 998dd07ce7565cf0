import { isSchemaObject, SluiceError } from "@sluice/schema";
import { aliasArguments, declaredArguments } from "./argument-aliases.ts";
import type { ArgumentProblem } from "./argument-validator.ts";
import type { DispatchedTool, Dispatcher } from "./dispatch-level3.ts";

/**
 * A tool call as the model made it. The arguments are read from `args`, or from the
 * providers' own fields: Anthropic `input` (an object), OpenAI `arguments` (a JSON string).
 */
export interface ModelCall {
  readonly name: string;
  readonly args?: unknown;
  readonly input?: unknown;
  readonly arguments?: unknown;
}

/** A slip `resolve` tolerated, so a proxy can log how often the model makes it. */
export type SlipKind =
  | "code_as_tool_name" // t12({...}) instead of call_tool({code: "t12", ...})
  | "name_as_tool_name" // create_issue({...}) instead of call_tool({code: "t12", ...})
  | "name_as_code" // call_tool({code: "create_issue", ...})
  | "flat_arguments" // call_tool({code, title, team_id}) instead of call_tool({code, args: {title, team_id}})
  | "nested_arguments" // t12({args: {...}}): the dispatcher's nesting kept on a direct call
  | "arguments_as_json_text" // args: "{\"title\": ...}"
  | "argument_alias"; // teamId for team_id, id for issue_id

export interface Slip {
  readonly kind: SlipKind;
  readonly detail: string;
}

export type ResolveResult =
  | { readonly ok: true; readonly kind: "call"; readonly tool: string; readonly code: string; readonly args: Record<string, unknown>; readonly slips: readonly Slip[] }
  | { readonly ok: true; readonly kind: "describe"; readonly tool: string; readonly code: string; readonly text: string; readonly slips: readonly Slip[] }
  | {
      readonly ok: false;
      /** `TOOL_NOT_FOUND` or `INVALID_ARGUMENTS`; its message is written for the model: send it back as the tool result. */
      readonly error: SluiceError;
      readonly problems: readonly ArgumentProblem[];
    };

type Payload = { value: Record<string, unknown>; slips: Slip[] } | { problem: string };

function payloadOf(value: unknown, where: string): Payload {
  const slips: Slip[] = [];
  let parsed = value;
  if (value === undefined || value === null) return { value: {}, slips };
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value === "" ? "{}" : value);
    } catch {
      return { problem: `${where} is not valid JSON; send an object.` };
    }
    slips.push({ kind: "arguments_as_json_text", detail: `${where} was JSON text` });
  }
  if (!isSchemaObject(parsed)) return { problem: `${where} must be an object, not ${Array.isArray(parsed) ? "an array" : typeof parsed}.` };
  return { value: parsed, slips };
}

function failure(code: "TOOL_NOT_FOUND" | "INVALID_ARGUMENTS", headline: string, problems: ArgumentProblem[], footer: string): ResolveResult {
  const lines = [headline, ...problems.map((p) => `- ${p.pointer === "" ? "(arguments)" : p.pointer}: ${p.message}`), ...(footer === "" ? [] : [footer])];
  return { ok: false, error: new SluiceError(code, lines.join("\n"), problems[0] ? { pointer: problems[0].pointer } : {}), problems };
}

function notFound(dispatcher: Dispatcher, given: string): ResolveResult {
  const codes = [...dispatcher.codes.keys()];
  const range = codes.length === 0 ? "the catalog is empty" : `codes run ${codes[0]} to ${codes[codes.length - 1]}`;
  return failure("TOOL_NOT_FOUND", `No tool has the code or name ${JSON.stringify(given)} (${range}; the list is in the system prompt).`, [], `Call ${dispatcher.callToolName} with a code from that list.`);
}

const CODE_KEYS = ["code", "tool_code", "tool", "name", "tool_name"];
const ARGS_KEYS = ["args", "arguments"];

/** The code field of a dispatcher call, or a known alias of it when it names a tool. */
function codeField(payload: Record<string, unknown>, dispatcher: Dispatcher): { key: string; value: string } | undefined {
  if (typeof payload["code"] === "string") return { key: "code", value: payload["code"] };
  for (const key of CODE_KEYS) {
    const value = payload[key];
    if (typeof value === "string" && dispatcher.lookup(value) !== undefined) return { key, value };
  }
  return undefined;
}

/** The arguments of a call_tool payload: nested under `args` as asked, or flat beside the code. */
function dispatcherArguments(payload: Record<string, unknown>, codeKey: string): Payload {
  const argsKey = ARGS_KEYS.find((key) => Object.hasOwn(payload, key) && (isSchemaObject(payload[key]) || typeof payload[key] === "string"));
  const rest = Object.fromEntries(Object.entries(payload).filter(([key]) => key !== codeKey && key !== argsKey)) as Record<string, unknown>;
  if (argsKey === undefined) {
    return { value: rest, slips: Object.keys(rest).length > 0 ? [{ kind: "flat_arguments", detail: "arguments beside code instead of under args" }] : [] };
  }
  const nested = payloadOf(payload[argsKey], argsKey);
  if ("problem" in nested) return nested;
  const slips = nested.slips;
  if (Object.keys(rest).length === 0) return { value: nested.value, slips };
  for (const key of Object.keys(rest)) {
    if (Object.hasOwn(nested.value, key)) return { problem: `${JSON.stringify(key)} is given both under ${argsKey} and beside it; give it once, under args.` };
  }
  slips.push({ kind: "flat_arguments", detail: `${Object.keys(rest).join(", ")} beside ${argsKey} instead of under it` });
  return { value: Object.fromEntries([...Object.entries(nested.value), ...Object.entries(rest)]) as Record<string, unknown>, slips };
}

/** A direct call (`t12({...})`, `create_issue({...})`): flat, unless it kept the dispatcher's `{args: {...}}` nesting. */
function directArguments(payload: Record<string, unknown>, tool: DispatchedTool): Payload {
  const declared = new Set(declaredArguments(tool.inputSchema).names);
  const keys = Object.keys(payload);
  const argsKey = ARGS_KEYS.find((key) => Object.hasOwn(payload, key) && !declared.has(key) && isSchemaObject(payload[key]));
  if (argsKey !== undefined && keys.every((key) => key === argsKey || (key === "code" && !declared.has("code")))) {
    return { value: payload[argsKey] as Record<string, unknown>, slips: [{ kind: "nested_arguments", detail: `arguments under ${argsKey} on a direct call` }] };
  }
  return { value: payload, slips: [] };
}

function allowsOtherArguments(schema: Record<string, unknown>): boolean {
  if (schema["additionalProperties"] !== undefined) return true; // Ajv reports it when false
  return ["patternProperties", "unevaluatedProperties", "allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas"].some((k) => schema[k] !== undefined) || !isSchemaObject(schema["properties"]);
}

/**
 * Maps a model's call at level 3 back to the real tool and its arguments, tolerating the
 * slips models are known to make (see {@link SlipKind}), and validates the arguments
 * against the tool's ORIGINAL schema. A `describe_tool` call resolves to the text to send
 * back. Failures come back (not thrown) with every problem listed, in a message the model
 * can act on.
 */
export function resolve(call: ModelCall, dispatcher: Dispatcher): ResolveResult {
  if (typeof call !== "object" || call === null || typeof call.name !== "string") {
    return failure("INVALID_ARGUMENTS", "A tool call needs a name.", [], "");
  }
  const raw = call.args !== undefined ? call.args : call.input !== undefined ? call.input : call.arguments;
  const outer = payloadOf(raw, "the arguments");
  if ("problem" in outer) return failure("INVALID_ARGUMENTS", `Call to ${call.name} not made:`, [{ pointer: "", message: outer.problem }], "");
  const slips = [...outer.slips];
  let tool: DispatchedTool | undefined;
  let args: Payload;

  if (call.name === dispatcher.callToolName || call.name === dispatcher.describeToolName) {
    const code = codeField(outer.value, dispatcher);
    if (code === undefined) {
      return failure("INVALID_ARGUMENTS", `Call to ${call.name} not made:`, [{ pointer: "", message: 'missing "code": the code of a tool in the system prompt\'s list' }], "");
    }
    tool = dispatcher.lookup(code.value);
    if (tool === undefined) return notFound(dispatcher, code.value);
    if (code.value !== tool.code) slips.push({ kind: "name_as_code", detail: `${JSON.stringify(code.value)} for ${tool.code}` });
    if (call.name === dispatcher.describeToolName) return { ok: true, kind: "describe", tool: tool.name, code: tool.code, text: dispatcher.describe(tool), slips };
    args = dispatcherArguments(outer.value, code.key);
  } else {
    tool = dispatcher.lookup(call.name);
    if (tool === undefined) return notFound(dispatcher, call.name);
    slips.push(call.name === tool.name ? { kind: "name_as_tool_name", detail: `${tool.name} called directly` } : { kind: "code_as_tool_name", detail: `${call.name} called as a tool` });
    args = directArguments(outer.value, tool);
  }
  const footer = `${tool.name} (${tool.code}) takes ${tool.argumentList}; ${dispatcher.describeToolName}({"code": "${tool.code}"}) returns the full schema.`;
  if ("problem" in args) return failure("INVALID_ARGUMENTS", `Call to ${tool.name} (${tool.code}) not made:`, [{ pointer: "", message: args.problem }], footer);
  slips.push(...args.slips);

  const aliased = aliasArguments(args.value, tool.inputSchema);
  for (const [from, to] of aliased.renamed) slips.push({ kind: "argument_alias", detail: `${from} taken as ${to}` });

  const check = dispatcher.checkFor(tool);
  if ("compileError" in check) {
    return failure("INVALID_ARGUMENTS", `Call to ${tool.name} (${tool.code}) not made: its schema cannot be checked (${check.compileError}).`, [], "");
  }
  const problems = check(aliased.args);
  if (!allowsOtherArguments(tool.inputSchema)) {
    const declared = declaredArguments(tool.inputSchema).names;
    for (const key of Object.keys(aliased.args)) {
      if (!declared.includes(key)) problems.push({ pointer: "", message: `unknown argument ${JSON.stringify(key)}; the arguments are ${declared.join(", ") || "(none)"}` });
    }
  }
  if (problems.length > 0) {
    return failure("INVALID_ARGUMENTS", `Call to ${tool.name} (${tool.code}) not made: ${problems.length} problem${problems.length === 1 ? "" : "s"} with the arguments.`, problems, footer);
  }
  // A copy: the caller may edit what it sends on without touching the model's message.
  return { ok: true, kind: "call", tool: tool.name, code: tool.code, args: structuredClone(aliased.args), slips };
}
