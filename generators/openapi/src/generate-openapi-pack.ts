import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { PackIR } from "@sluice/core";
import { writePack } from "@sluice/emit";
import { buildOpenAPIPackIR, type BuildOpenAPIOptions } from "./build-pack-ir.ts";
import { emitPackFiles } from "./emit-pack-sources.ts";
import { loadDocument } from "./load-document.ts";

export interface GenerateOpenAPIPackOptions extends BuildOpenAPIOptions {
  name: string;
  /** Pack root; files go to `<out>/src/*.gen.ts`. */
  out: string;
}

export interface GenerateOpenAPIPackResult {
  tools: number;
  skipped: number;
  files: string[];
}

/** Spec file -> pack sources on disk (`sluice generate openapi <spec> --name <n> --out <dir>`). */
export async function generateOpenAPIPack(specFile: string, options: GenerateOpenAPIPackOptions): Promise<GenerateOpenAPIPackResult> {
  const { name, out, ...buildOptions } = options;
  const pack = await packFromSpec(specFile, name, buildOptions);
  // Files are emitted and written one at a time, so at most one generated text is alive.
  const files = await writePack(out, emitPackFiles(pack));
  return { tools: pack.tools.length, skipped: pack.skipped.length, files };
}

/** Its own scope: the spec bytes and the parsed document are garbage once the IR exists, before emitting starts. */
async function packFromSpec(specFile: string, name: string, buildOptions: BuildOpenAPIOptions): Promise<PackIR> {
  const bytes = await readFile(specFile);
  const file = basename(specFile);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return buildOpenAPIPackIR(loadDocument(bytes, file), { name, file, sha256 }, buildOptions);
}
