/**
 * One sluice OpenAPI generation in a fresh process, for scripts/bench.ts to time and to
 * measure peak memory beside openapi-mcp-generator:
 *   node --import tsx bench/openapi-generate-child.ts <spec> <pack name>
 * Load the document, build the IR, emit the pack sources in memory (nothing is written).
 * Prints {"tools", "skipped", "emittedBytes"} as JSON.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { buildOpenAPIPackIR, emitPackSources, loadDocument } from "../generators/openapi/src/index.ts";

const [specFile, name] = process.argv.slice(2);
if (specFile === undefined || name === undefined) throw new Error("usage: openapi-generate-child.ts <spec> <pack name>");

const bytes = await readFile(specFile);
const file = basename(specFile);
const document = loadDocument(bytes, file);
const sha256 = createHash("sha256").update(bytes).digest("hex");
const pack = buildOpenAPIPackIR(document, { name, file, sha256 });
const emitted = emitPackSources(pack);
const emittedBytes = emitted.reduce((sum, f) => sum + Buffer.byteLength(f.text), 0);
process.stdout.write(JSON.stringify({ tools: pack.tools.length, skipped: pack.skipped.length, emittedBytes }));
