/**
 * Builds the large specs of bench/YAML-PARSE.md and bench/GENERATE-SPEED.md: N disjoint copies
 * of the Kubernetes spec (../shared/specs/kubernetes/swagger.json) in one Swagger 2.0 document,
 * as JSON and as YAML. Copy 1 is the spec unchanged (so 1x is the real spec); copy k > 1 has
 * every path under `/c<k>`, and every operationId, definition and shared parameter renamed with
 * a `C<k>` suffix (references rewritten to match), so no tool, type or path of two copies meet.
 *
 *   node --import tsx scripts/build-kubernetes-copies.ts --out DIR [--copies 1,2,4,8]
 *
 * Writes DIR/kubernetes-x<N>.json and DIR/kubernetes-x<N>.yaml (js-yaml's dump, no anchors, no
 * line folding) for each N, and prints one line per file with its bytes and operations.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createRequire } from "node:module";

/** js-yaml ships no types; its dump is all these benches use of it. */
const { dump } = createRequire(import.meta.url)("js-yaml") as { dump(value: unknown, options: { noRefs: boolean; lineWidth: number }): string };

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SOURCE = join(ROOT, "../shared/specs/kubernetes/swagger.json");
const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch"]);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Copy k of the spec's paths, definitions and parameters, renamed (k = 1: unchanged). */
function renamedCopy(spec: JsonObject, k: number): { paths: JsonObject; definitions: JsonObject; parameters: JsonObject } {
  const suffix = k === 1 ? "" : `C${k}`;
  const rename = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(rename);
    if (value === null || typeof value !== "object") return value;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === "$ref" && typeof child === "string") out[key] = renameRef(child);
      else if (key === "operationId" && typeof child === "string") out[key] = `${child}${suffix}`;
      else out[key] = rename(child);
    }
    return out;
  };
  const renameRef = (ref: string): string => {
    if (suffix === "") return ref;
    const match = /^#\/(definitions|parameters)\/(.+)$/.exec(ref);
    if (match === null) throw new Error(`unexpected $ref ${ref}`);
    return `#/${match[1]}/${match[2]}${match[1] === "definitions" ? `.${suffix}` : `-${suffix}`}`;
  };
  const paths: JsonObject = {};
  for (const [path, item] of Object.entries(spec["paths"] as JsonObject)) paths[k === 1 ? path : `/c${k}${path}`] = rename(item);
  const definitions: JsonObject = {};
  for (const [name, schema] of Object.entries(spec["definitions"] as JsonObject)) definitions[suffix === "" ? name : `${name}.${suffix}`] = rename(schema);
  const parameters: JsonObject = {};
  for (const [name, parameter] of Object.entries(spec["parameters"] as JsonObject)) parameters[suffix === "" ? name : `${name}-${suffix}`] = rename(parameter);
  return { paths, definitions, parameters };
}

/** The spec with `copies` disjoint copies of its operations and types. */
export function kubernetesCopies(copies: number): JsonObject {
  const spec = JSON.parse(readFileSync(SOURCE, "utf8")) as JsonObject;
  const out: JsonObject = { ...spec, paths: {}, definitions: {}, parameters: {} };
  for (let k = 1; k <= copies; k += 1) {
    const copy = renamedCopy(spec, k);
    Object.assign(out["paths"] as JsonObject, copy.paths);
    Object.assign(out["definitions"] as JsonObject, copy.definitions);
    Object.assign(out["parameters"] as JsonObject, copy.parameters);
  }
  return out;
}

function operations(spec: JsonObject): number {
  let count = 0;
  for (const item of Object.values(spec["paths"] as JsonObject)) for (const key of Object.keys(item as JsonObject)) if (METHODS.has(key)) count += 1;
  return count;
}

/** Writes the JSON and YAML files for each count; returns their paths. */
export function writeKubernetesCopies(outDir: string, counts: readonly number[]): { copies: number; json: string; yaml: string; operations: number }[] {
  mkdirSync(outDir, { recursive: true });
  return counts.map((copies) => {
    const spec = kubernetesCopies(copies);
    const json = join(outDir, `kubernetes-x${copies}.json`);
    const yaml = join(outDir, `kubernetes-x${copies}.yaml`);
    writeFileSync(json, `${JSON.stringify(spec, null, 2)}\n`);
    writeFileSync(yaml, dump(spec, { noRefs: true, lineWidth: -1 }));
    return { copies, json, yaml, operations: operations(spec) };
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string" }, copies: { type: "string", default: "1,2,4,8" } } });
  if (values.out === undefined) throw new Error("--out DIR is required");
  for (const file of writeKubernetesCopies(values.out, values.copies.split(",").map(Number))) {
    console.log(`x${file.copies}: ${file.operations} operations, ${statSync(file.json).size} bytes JSON (${file.json}), ${statSync(file.yaml).size} bytes YAML (${file.yaml})`);
  }
}
