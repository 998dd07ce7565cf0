/**
 * One measurement of scripts/bench-generate-ir.ts: the generator at `<entry>` (an index.ts
 * of generators/openapi/src, this tree's or a baseline's) on one spec, phase by phase, as
 * `sluice generate` calls it. Prints one JSON line: per phase the wall time and the
 * process's CPU time (user + system) in ms, the peak RSS, and with `digest` a sha256 of
 * everything built (IR, runtime facts, response hints), to compare versions by.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-generate-ir-child.ts <entry> <spec> [digest]
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { ResponseHints } from "@sluice/core";

type Generator = typeof import("../generators/openapi/src/index.ts");
const [entry, spec, digest] = process.argv.slice(2);
if (entry === undefined || spec === undefined) throw new Error("usage: bench-generate-ir-child.ts <entry> <spec> [digest]");
const generator = (await import(pathToFileURL(entry).href)) as Generator;

const measured: Record<string, number> = {};
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
let wallAt = performance.now();
let cpuAt = cpuMs();
const phase = (name: string) => {
  const wall = performance.now();
  const cpu = cpuMs();
  measured[name] = wall - wallAt;
  measured[`${name} cpu`] = cpu - cpuAt;
  wallAt = wall;
  cpuAt = cpu;
};

const bytes = readFileSync(spec);
const sha256 = createHash("sha256").update(bytes).digest("hex");
phase("read+sha256");
const document = generator.loadDocument(bytes, basename(spec));
phase("parse");
const ir = generator.buildOpenAPIPackIR(document, { name: "bench", file: basename(spec), sha256 }, { detectCredentialParameters: true });
phase("ir");
const facts = generator.openapiRuntimeFacts(document, ir, {});
phase("facts");
// As generators/pipeline/src/build-pack.ts asks for them.
const tools: Record<string, ResponseHints> = {};
for (const tool of ir.tools) {
  const pagination = Object.prototype.hasOwnProperty.call(facts.pagination, tool.name) ? facts.pagination[tool.name] : undefined;
  const hints = generator.openapiResponseHints(document, tool, pagination === undefined ? {} : { pagination });
  if (Object.keys(hints).length > 0) Object.defineProperty(tools, tool.name, { value: hints, enumerable: true });
}
const shared = generator.openapiPackResponseHints(document);
phase("hints");

const out: Record<string, number | string> = { ...measured, rssMiB: process.resourceUsage().maxRSS / 1024 };
if (digest !== undefined) out["digest"] = createHash("sha256").update(JSON.stringify({ ir, facts, tools, shared })).digest("hex");
console.log(JSON.stringify(out));
