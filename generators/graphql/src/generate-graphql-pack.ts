import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { buildGraphQLPackIR } from "./build-pack-ir.ts";
import { writePack } from "@sluice/emit";
import { emitPackSources } from "./emit-pack-sources.ts";
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
  const bytes = await readFile(schemaFile);
  const file = basename(schemaFile);
  const schema = loadGraphQLSchema(bytes, { fileName: file });
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const pack = buildGraphQLPackIR(schema, { name: options.name, file, sha256 });
  const files = await writePack(options.out, emitPackSources(pack));
  return { tools: pack.tools.length, skipped: pack.skipped.length, files };
}
