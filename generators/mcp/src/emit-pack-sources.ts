import type { McpServerFact, PackIR, RuntimeFacts } from "@sluice/core";
import { emitPackFiles as emitEachWith, emitPackSources as emitWith, isBooleanSchema, type EmitOptions, type EmittedFile } from "@sluice/emit";
import { MCP_GENERATOR } from "./generator-info.ts";

/** All generated files of an MCP pack, headed with this generator's name and version. */
export function emitPackSources(pack: PackIR, options: EmitOptions = {}): EmittedFile[] {
  return emitWith(pack, MCP_GENERATOR, options);
}

/** The same files built one at a time. */
export function emitPackFiles(pack: PackIR, options: EmitOptions = {}): Iterable<EmittedFile> {
  return emitEachWith(pack, MCP_GENERATOR, options);
}

/** Names that read like secrets: an argument the model would be asked to fill with one. */
const SECRET_NAME = /(?:^|_|-)(?:token|secret|password|passwd|api_?key|apikey|credential|private_?key)(?:$|_|-)/i;

/**
 * What runtime.gen.ts holds for an MCP pack: no credentials of sluice's own (the upstream
 * holds its own, given through `mcp.env` / `mcp.headers`), no pagination declared, the
 * upstream (when known: a pack regenerated from its snapshot file alone has none), and the
 * arguments whose names look like secrets.
 */
export function mcpRuntimeFacts(ir: PackIR, server?: McpServerFact): RuntimeFacts {
  // A flag named like a secret (`is_secret: boolean`) says whether, never what: as secretLookingArguments rules for the other generators.
  const secretLooking = ir.tools.flatMap((tool) =>
    Object.entries(tool.parameters.properties)
      .filter(([arg, schema]) => SECRET_NAME.test(arg) && !isBooleanSchema(schema))
      .map(([argument]) => ({ tool: tool.name, argument })),
  );
  return { kind: "mcp", name: ir.name, ...(server === undefined ? {} : { mcp: server }), credentials: [], pagination: {}, credentialArguments: {}, secretLooking };
}
