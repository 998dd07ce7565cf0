import { defRef, hasOwn, isSchemaObject, refsFrom, ROOT, setOwn, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { kindOf } from "../projection/derive-options.ts";
import { Tool } from "../tool.ts";
import type { ToolIR, WithheldPath } from "../tool-ir.ts";
import type { PackRuntime, ToolRuntime } from "../call/types.ts";
import { checkReformatChoice } from "../responses/reformat/reformat-choice.ts";

export interface PackDefinition {
  name: string;
  /** Every named type once; tools reference entries as `#/$defs/<Name>`. */
  defs: Readonly<Record<string, JsonSchemaObject>>;
  /** Members the generator withheld from types, by type name; listed by every tool reaching the type. */
  withheldMembers?: Readonly<Record<string, readonly WithheldPath[]>>;
  tools: readonly ToolIR[];
  /** How the pack's tools are called: endpoint, auth, failure envelope, handlers, pagination. */
  runtime?: PackRuntime;
}

export interface Pack {
  readonly name: string;
  readonly tools: readonly Tool[];
  /** The tool with this wire name, typed by the caller (generated packs pass the argument type). */
  tool<A extends object = Record<string, unknown>>(name: string): Tool<A>;
}

/**
 * Builds the tools of a pack. Each type is stored once in the pack's table; a tool's
 * input schema (with exactly the `$defs` it reaches) is assembled on first use, so
 * importing a pack builds nothing nobody asked for.
 */
export function definePack(definition: PackDefinition): Pack {
  checkDefinition(definition);
  const refsOfDef = new Map<string, string[]>();
  const defRefs = (name: string): string[] => {
    let refs = refsOfDef.get(name);
    if (refs === undefined) {
      const body = definition.defs[name];
      refs = isSchemaObject(body) ? refsFrom(body, "/$defs/" + name, false).filter((r) => r !== ROOT) : [];
      refsOfDef.set(name, refs);
    }
    return refs;
  };

  const assemble = (ir: ToolIR) => (): JsonSchemaObject => {
    const root: JsonSchemaObject = { type: "object", properties: ir.parameters.properties };
    if (ir.parameters.required.length > 0) root.required = ir.parameters.required;
    if (ir.parameters.dependentRequired !== undefined) root.dependentRequired = ir.parameters.dependentRequired;
    const reached = new Set<string>();
    const queue = mayHoldRef(root) ? refsFrom(root, "", true).filter((r) => r !== ROOT) : [];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (reached.has(name)) continue;
      if (!hasOwn(definition.defs, name)) {
        throw new SluiceError("UNRESOLVED_REF", `Tool ${ir.name} refers to ${defRef(name)}, which pack ${definition.name} does not define.`);
      }
      reached.add(name);
      for (const ref of defRefs(name)) queue.push(ref);
    }
    if (reached.size > 0) {
      const $defs: Record<string, JsonSchemaObject> = {};
      for (const name of [...reached].sort()) setOwn($defs, name, definition.defs[name]!);
      root.$defs = $defs;
    }
    return root;
  };

  const members = definition.withheldMembers ?? {};
  const typeWithheld = (type: string): readonly WithheldPath[] => (hasOwn(members, type) ? members[type]! : []);
  const runtime = definition.runtime ?? {};
  const declared = runtime.tools ?? {};
  const names = new Set(definition.tools.map((ir) => ir.name));
  const strays = Object.keys(declared).filter((name) => !names.has(name));
  if (strays.length > 0) {
    throw new SluiceError("TOOL_NOT_FOUND", `Pack ${definition.name} declares call behaviour for tools it does not have: ${strays.sort().join(", ")}.`);
  }
  const settings = {
    ...(runtime.endpoint === undefined ? {} : { endpoint: runtime.endpoint }),
    ...(runtime.auth === undefined ? {} : { auth: runtime.auth }),
    ...(runtime.failure === undefined ? {} : { failure: runtime.failure }),
    ...(runtime.credentialEnv === undefined ? {} : { credentialEnv: runtime.credentialEnv }),
    ...(runtime.credentialOAuth2 === undefined ? {} : { credentialOAuth2: runtime.credentialOAuth2 }),
    ...(runtime.api === undefined ? {} : { api: runtime.api }),
    ...(runtime.endpointEnv === undefined ? {} : { endpointEnv: runtime.endpointEnv }),
    ...(runtime.selection === undefined ? {} : { selection: runtime.selection }),
    ...(runtime.mcp === undefined ? {} : { mcp: runtime.mcp }),
  };
  const packReformat = runtime.reformatters === undefined ? undefined : checkReformatChoice(runtime.reformatters, `pack ${definition.name}`);
  const tools = definition.tools.map((ir) => {
    const own: ToolRuntime = { ...runtime.forTool?.(ir.name, ir.binding), ...(hasOwn(declared, ir.name) ? declared[ir.name] : {}) };
    const reformatters = own.reformatters === undefined ? packReformat : { ...packReformat, ...checkReformatChoice(own.reformatters, `pack ${definition.name}, tool ${ir.name}`) };
    const arg = own.pagination?.arg;
    if (arg !== undefined && !hasOwn(ir.parameters.properties, arg)) {
      throw new SluiceError("INVALID_OPTION", `Pack ${definition.name}: the pagination of ${ir.name} carries its marker in "${arg}", which is not an argument of the tool.`);
    }
    return Tool.create({
      name: ir.name,
      description: ir.description,
      inputSchema: assemble(ir),
      binding: ir.binding,
      annotations: ir.annotations,
      withheld: ir.withheld ?? [],
      typeWithheld,
      settings,
      ...(own.responseHandler === undefined ? {} : { responseHandler: own.responseHandler }),
      ...(reformatters === undefined ? {} : { reformatters }),
      ...(own.pagination === undefined ? {} : { pagination: own.pagination }),
    });
  });
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new SluiceError("SPEC_INVALID", `Pack ${definition.name} has two tools named ${tool.name}.`);
    byName.set(tool.name, tool);
  }
  return {
    name: definition.name,
    tools,
    tool<A extends object>(name: string): Tool<A> {
      const tool = byName.get(name);
      if (tool === undefined) throw new SluiceError("TOOL_NOT_FOUND", `Pack ${definition.name} has no tool named ${name}.`);
      return tool as unknown as Tool<A>;
    },
  };
}

/**
 * Freezes a tool's own part of its input schema (the properties, required lists; what
 * `Tool.inputSchema` would freeze next) and answers whether any object in it has a `$ref`
 * key. Most tools have none (GitHub REST: 18 of the first 500 reach a definition), and then
 * the walk for refs is skipped: `refsFrom` finds refs only at objects that own a `$ref`
 * key, so without one there is nothing to find. One walk instead of two on the path to the
 * first tools/list. An object already frozen is not walked, and counts as holding a ref
 * (it may be shared with a tool whose refs were gathered by `refsFrom`), so the answer is
 * never a wrong "no".
 */
function mayHoldRef(root: JsonSchemaObject): boolean {
  let found = false;
  const stack: unknown[] = [];
  for (const key of Object.keys(root)) stack.push(root[key]);
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (Object.isFrozen(node)) {
      found = true;
      continue;
    }
    Object.freeze(node);
    if (!found && !Array.isArray(node) && hasOwn(node, "$ref")) found = true;
    for (const key of Object.keys(node)) stack.push((node as Record<string, unknown>)[key]);
  }
  return found;
}

/**
 * The definition's outer shape, checked before anything reads it: generated packs always
 * pass it right, but a hand-written or hand-edited one otherwise failed with a TypeError
 * from deep inside (`definePack({ name: 42 })`: "reading 'map'"). Each tool's own shape is
 * the Tool layer's to check.
 */
function checkDefinition(definition: unknown): asserts definition is PackDefinition {
  const shape = "definePack() takes { name: string, defs: { [type]: schema }, tools: [...] } (what a generated pack's tools.gen.ts passes)";
  if (typeof definition !== "object" || definition === null || Array.isArray(definition)) throw new SluiceError("INVALID_OPTION", `${shape}; got ${kindOf(definition)}.`);
  const { name, defs, tools } = definition as Record<string, unknown>;
  if (typeof name !== "string" || name === "") throw new SluiceError("INVALID_OPTION", `${shape}; \`name\` is ${kindOf(name)}.`);
  if (typeof defs !== "object" || defs === null || Array.isArray(defs)) throw new SluiceError("INVALID_OPTION", `${shape}; pack ${name}: \`defs\` is ${kindOf(defs)}.`);
  if (!Array.isArray(tools)) throw new SluiceError("INVALID_OPTION", `${shape}; pack ${name}: \`tools\` is ${kindOf(tools)}.`);
}
