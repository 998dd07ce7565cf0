/**
 * What the OpenAPI generator allocates, by function: V8's sampling heap profiler (objects
 * later collected included, so it counts allocation, not what stays) around the IR build
 * (`ir`) or around runtime facts and every tool's response hints (`rest`), on dist.
 * Allocation drives the scavenges that are a large share of a `generate` run, and unlike
 * time it hardly moves with the machine's load (sampling: about +-1 MB between runs).
 *
 *   node scripts/bench-generate-ir-alloc.mjs <tree> <spec> [ir|rest] [top]
 */
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--semi-space-growth-factor=1");
const [tree, spec, which = "ir", top = "25"] = process.argv.slice(2);
if (tree === undefined || spec === undefined) throw new Error("usage: bench-generate-ir-alloc.mjs <tree> <spec> [ir|rest] [top]");
const generator = await import(pathToFileURL(`${resolve(tree)}/generators/openapi/dist/index.js`).href);
const session = new Session();
session.connect();
const start = () => session.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
const document = generator.loadDocument(readFileSync(spec), basename(spec));
if (which === "ir") await start();
const ir = generator.buildOpenAPIPackIR(document, { name: "bench", file: basename(spec), sha256: "0".repeat(64) }, { detectCredentialParameters: true });
if (which === "rest") {
  await start();
  const facts = generator.openapiRuntimeFacts(document, ir, {});
  for (const tool of ir.tools) generator.openapiResponseHints(document, tool, Object.hasOwn(facts.pagination, tool.name) ? { pagination: facts.pagination[tool.name] } : {});
}
const { profile } = await session.post("HeapProfiler.stopSampling");
const self = new Map();
const inclusive = new Map();
let total = 0;
const label = (node) => `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.replace(/.*\/(packages|generators)\//, "$1/")}:${node.callFrame.lineNumber + 1}`;
const stack = [[profile.head, []]];
while (stack.length > 0) {
  const [node, above] = stack.pop();
  const key = label(node);
  total += node.selfSize;
  self.set(key, (self.get(key) ?? 0) + node.selfSize);
  const path = above.includes(key) ? above : [...above, key];
  for (const entry of path) inclusive.set(entry, (inclusive.get(entry) ?? 0) + node.selfSize);
  for (const child of node.children) stack.push([child, path]);
}
const list = (map) => [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(top)).map(([key, bytes]) => `${(bytes / 1048576).toFixed(1).padStart(6)} MB  ${key}`).join("\n");
console.log(`${basename(spec)} ${which}: ${(total / 1048576).toFixed(1)} MB allocated\n-- self\n${list(self)}\n-- inclusive\n${list(inclusive)}`);
