import type { PackIR } from "@sluice/core";
import type { GeneratorInfo } from "./header.ts";
import { emitDefsSource } from "./defs-source.ts";
import { emitToolsSource } from "./tools-source.ts";
import { emitTypesSource } from "./types-source.ts";

export interface EmittedFile {
  /** Path relative to the pack root, e.g. `src/tools.gen.ts`. */
  path: string;
  text: string;
}

/** All generated files of a pack: a pure function of the IR. */
export function emitPackSources(pack: PackIR, generator: GeneratorInfo): EmittedFile[] {
  return [
    { path: "src/defs.gen.ts", text: emitDefsSource(pack, generator) },
    { path: "src/tools.gen.ts", text: emitToolsSource(pack, generator) },
    { path: "src/types.gen.ts", text: emitTypesSource(pack, generator) },
  ];
}
