/**
 * The output check of scripts/bench-generate-ir.ts `--corpus`: for every OpenAPI/Swagger
 * spec of the corpus (../shared/specs), the vendored outside specs and the packs, a sha256
 * of what the generator at `<entry>` builds from it: the IR (with
 * `detectCredentialParameters`), runtime facts in both pagination modes, and the response
 * hints of every tool with and without its pagination. One line per spec, in path order;
 * a spec the generator refuses gets its error code instead.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-generate-ir-digests.ts <entry>
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ResponseHints } from "@sluice/core";

type Generator = typeof import("../generators/openapi/src/index.ts");
const [entry] = process.argv.slice(2);
if (entry === undefined) throw new Error("usage: bench-generate-ir-digests.ts <entry>");
const generator = (await import(pathToFileURL(entry).href)) as Generator;
const ROOT = fileURLToPath(new URL("../", import.meta.url));

const specs: string[] = [];
const collect = (dir: string): void => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path);
    else if (/\.(json|ya?ml)$/.test(name)) specs.push(path);
  }
};
collect(join(ROOT, "../shared/specs"));
collect(join(ROOT, "test/fixtures/outside"));
for (const pack of readdirSync(join(ROOT, "packs")).sort()) collect(join(ROOT, "packs", pack, "spec"));

for (const spec of specs) {
  let digest: string;
  try {
    const document = generator.loadDocument(readFileSync(spec), basename(spec));
    const ir = generator.buildOpenAPIPackIR(document, { name: "bench", file: basename(spec), sha256: "0".repeat(64) }, { detectCredentialParameters: true });
    const facts = generator.openapiRuntimeFacts(document, ir, {});
    const byConvention = generator.openapiRuntimeFacts(document, ir, { paginationByConvention: true });
    const hints: [string, ResponseHints, ResponseHints][] = ir.tools.map((tool) => {
      const pagination = Object.prototype.hasOwnProperty.call(facts.pagination, tool.name) ? facts.pagination[tool.name] : undefined;
      return [tool.name, generator.openapiResponseHints(document, tool, pagination === undefined ? {} : { pagination }), generator.openapiResponseHints(document, tool)];
    });
    digest = createHash("sha256").update(JSON.stringify({ ir, facts, byConvention, hints, shared: generator.openapiPackResponseHints(document) })).digest("hex");
  } catch (error) {
    digest = `refused ${(error as { code?: string }).code ?? String(error)}`;
  }
  console.log(`${digest} ${relative(ROOT, spec)}`);
}
