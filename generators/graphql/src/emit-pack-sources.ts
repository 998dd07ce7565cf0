import type { PackIR } from "@sluice/core";
import { emitPackSources as emitWith, type EmitOptions, type EmittedFile } from "@sluice/emit";
import { GRAPHQL_GENERATOR } from "./generator-info.ts";

/** All generated files of a GraphQL pack, headed with this generator's name and version. */
export function emitPackSources(pack: PackIR, options: EmitOptions = {}): EmittedFile[] {
  return emitWith(pack, GRAPHQL_GENERATOR, options);
}
