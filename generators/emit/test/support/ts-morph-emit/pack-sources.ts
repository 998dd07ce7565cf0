// Test oracle: the ts-morph emitter that src/ replaced, kept as it was (only its imports of
// header.ts and identifiers.ts point at src/). string-emit.test.ts requires both to agree byte
// for byte. Do not "fix" it to match src/: it is the reference.
import type { PackIR } from "@sluice/core";
import { withinLimits } from "@sluice/schema";
import type { GeneratorInfo } from "../../../src/header.ts";
import { emitDefsSource } from "./defs-source.ts";
import { emitToolsSource } from "./tools-source.ts";
import { emitTypesSource } from "./types-source.ts";

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
}

export function emitPackSources(pack: PackIR, generator: GeneratorInfo, options: EmitOptions = {}): EmittedFile[] {
  return withinLimits(`emitting pack ${pack.name}`, () => [
    { path: "src/defs.gen.ts", text: emitDefsSource(pack, generator) },
    { path: "src/tools.gen.ts", text: emitToolsSource(pack, generator, options.runtimeModule) },
    { path: "src/types.gen.ts", text: emitTypesSource(pack, generator) },
  ]);
}
