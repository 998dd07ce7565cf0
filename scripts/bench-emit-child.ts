/**
 * One measured process of scripts/bench-emit.ts: builds a spec's IR and runtime facts as the
 * CLI does, then emits the pack's sources once with the emit module at `<emitDir>/index.js`
 * (cold, as `sluice generate` runs it). Prints JSON: CPU and wall milliseconds of emit, CPU
 * milliseconds per file, the bytes emitted, and the sha256 of every emitted file.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as openapi from "@sluice/generator-openapi";

const [emitDir, spec] = process.argv.slice(2) as [string, string];
const emit = (await import(pathToFileURL(resolve(emitDir, "index.js")).href)) as typeof import("../generators/emit/src/index.ts");
const bytes = readFileSync(spec);
const file = basename(spec);
const document = openapi.loadDocument(bytes, file);
const sha256 = createHash("sha256").update(bytes).digest("hex");
const pack = openapi.buildOpenAPIPackIR(document, { name: "bench", file, sha256 }, {});
const facts = openapi.openapiRuntimeFacts(document, pack, {});
const options = { runtimeModule: "./runtime.ts", regenerate: "sluice generate bench" };

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
// The files as the CLI asks for them (emitPackSources, then runtime.gen.ts), each timed.
const perFile: Record<string, number> = {};
const files: { path: string; text: string }[] = [];
const cpu0 = cpu();
const wall0 = performance.now();
let at = cpu0;
for (const file of emit.emitPackFiles(pack, openapi.OPENAPI_GENERATOR, options)) {
  files.push(file);
  perFile[file.path] = cpu() - at;
  at = cpu();
}
files.push({ path: "src/runtime.gen.ts", text: emit.emitRuntimeFactsSource(facts, emit.generatedHeader(pack, openapi.OPENAPI_GENERATOR, options.regenerate)) });
perFile["src/runtime.gen.ts"] = cpu() - at;
const emitCpu = cpu() - cpu0;
const emitWall = performance.now() - wall0;
const digests: Record<string, string> = {};
for (const { path, text } of files) digests[path] = createHash("sha256").update(text).digest("hex");
const size = files.reduce((sum, file) => sum + Buffer.byteLength(file.text), 0);
process.stdout.write(JSON.stringify({ emitCpu, emitWall, perFile, size, digests }));
