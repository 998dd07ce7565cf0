import type { PackIR } from "@sluice/core";
import { withinLimits } from "@sluice/schema";
import { generatedHeader, type GeneratorInfo } from "./header.ts";
import { emitDefsSource } from "./defs-source.ts";
import { emitPackDataSource } from "./pack-data-source.ts";
import { emitToolsSource } from "./tools-source.ts";
import { emitTypesSource } from "./types-source.ts";
import { toolIdentifiers, typeNamesForDefs } from "./identifiers.ts";

export interface EmittedFile {
  /** Path relative to the pack root, e.g. `src/tools.gen.ts`. */
  path: string;
  text: string;
}

/** All generated files of a pack: a pure function of the IR. */
export interface EmitOptions {
  /**
   * A hand-written module beside the generated ones (e.g. `./runtime.ts`) exporting
   * `runtime`, the pack's call behaviour (endpoint, failure envelope, response handlers,
   * pagination); the generated pack passes it to `definePack`. It must not import the
   * generated modules.
   */
  runtimeModule?: string;
  /** The command that regenerates the pack, named in every file's header (default `sluice generate <name>`). */
  regenerate?: string;
}

export function emitPackSources(pack: PackIR, generator: GeneratorInfo, options: EmitOptions = {}): EmittedFile[] {
  return [...emitPackFiles(pack, generator, options)];
}

/**
 * The same files, each built when it is asked for: a writer that writes and drops each
 * one before taking the next holds one file's text at a time, not all four.
 */
export function* emitPackFiles(pack: PackIR, generator: GeneratorInfo, options: EmitOptions = {}): Generator<EmittedFile, void, undefined> {
  const operation = `emitting pack ${pack.name}`;
  const header = generatedHeader(pack, generator, options.regenerate);
  yield withinLimits(operation, () => ({ path: "src/pack-data.gen.ts", text: emitPackDataSource(pack, generator, header) }));
  yield withinLimits(operation, () => ({ path: "src/defs.gen.ts", text: emitDefsSource(pack, generator, header) }));
  // The names of the pack's types and tools, which tools.gen.ts and types.gen.ts share, computed once.
  const names = withinLimits(operation, () => {
    const defTypes = typeNamesForDefs(Object.keys(pack.defs));
    return { defTypes, tools: toolIdentifiers(pack, defTypes) };
  });
  yield withinLimits(operation, () => ({ path: "src/tools.gen.ts", text: emitToolsSource(pack, generator, options.runtimeModule, header, names.tools) }));
  yield withinLimits(operation, () => ({ path: "src/types.gen.ts", text: emitTypesSource(pack, generator, header, names.defTypes, names.tools) }));
}
