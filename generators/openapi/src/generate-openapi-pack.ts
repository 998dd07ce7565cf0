import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { writePack } from "@sluice/emit";
import { buildOpenAPIPackIR, type BuildOpenAPIOptions } from "./build-pack-ir.ts";
import { emitPackSources } from "./emit-pack-sources.ts";
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
  const bytes = await readFile(specFile);
  const file = basename(specFile);
  const document = loadDocument(bytes, file);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const { name, out, ...buildOptions } = options;
  const pack = buildOpenAPIPackIR(document, { name, file, sha256 }, buildOptions);
  const files = await writePack(out, emitPackSources(pack));
  return { tools: pack.tools.length, skipped: pack.skipped.length, files };
}
