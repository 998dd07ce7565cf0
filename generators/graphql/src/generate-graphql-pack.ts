import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { PackIR } from "@sluice/core";
import { writePack } from "@sluice/emit";
import { buildGraphQLPackIR } from "./build-pack-ir.ts";
import { emitPackFiles } from "./emit-pack-sources.ts";
import { loadGraphQLSchema } from "./load-schema.ts";

export interface GenerateGraphQLPackOptions {
  name: string;
  /** Pack root; files go to `<out>/src/*.gen.ts`. */
  out: string;
}

export interface GenerateGraphQLPackResult {
  tools: number;
  skipped: number;
  files: string[];
}

/** Schema file -> pack sources on disk (`sluice generate graphql <file> --name <n> --out <dir>`). */
export async function generateGraphQLPack(schemaFile: string, options: GenerateGraphQLPackOptions): Promise<GenerateGraphQLPackResult> {
  const pack = await packFromSchema(schemaFile, options.name);
  // Files are emitted and written one at a time, so at most one generated text is alive.
  const files = await writePack(options.out, emitPackFiles(pack));
  return { tools: pack.tools.length, skipped: pack.skipped.length, files };
}

/** Its own scope: the schema bytes and the parsed schema are garbage once the IR exists, before emitting starts. */
async function packFromSchema(schemaFile: string, name: string): Promise<PackIR> {
  const bytes = await readFile(schemaFile);
  const file = basename(schemaFile);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return buildGraphQLPackIR(loadGraphQLSchema(bytes, { fileName: file }), { name, file, sha256 });
}
