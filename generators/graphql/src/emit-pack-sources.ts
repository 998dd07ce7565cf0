import type { PackIR } from "@sluice/core";
import { emitPackFiles as emitEachWith, emitPackSources as emitWith, type EmitOptions, type EmittedFile } from "@sluice/emit";
import { GRAPHQL_GENERATOR } from "./generator-info.ts";

/** All generated files of a GraphQL pack, headed with this generator's name and version. */
export function emitPackSources(pack: PackIR, options: EmitOptions = {}): EmittedFile[] {
  return emitWith(pack, GRAPHQL_GENERATOR, options);
}

/** The same files built one at a time, for a writer that releases each before the next. */
export function emitPackFiles(pack: PackIR, options: EmitOptions = {}): Iterable<EmittedFile> {
  return emitEachWith(pack, GRAPHQL_GENERATOR, options);
}
