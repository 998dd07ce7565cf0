// A large spec made of N disjoint copies of the Kubernetes API (../shared/specs/kubernetes/
// swagger.json): copy k has its paths under /c<k>, its operationIds prefixed c<k>_ and its
// definitions renamed c<k>.<name> (every $ref rewritten), so no two copies share a path, a
// tool name or a type, and the pack grows with N as a pack of N times the operations would.
//   node scripts/kubernetes-copies.mjs <copies> <out.json>     (8 copies: 8,984 operations)
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [copiesText, out] = process.argv.slice(2);
const copies = Number(copiesText);
if (!Number.isInteger(copies) || copies < 1 || out === undefined) {
  process.stderr.write("usage: node scripts/kubernetes-copies.mjs <copies> <out.json>\n");
  process.exit(2);
}
const source = fileURLToPath(new URL("../../shared/specs/kubernetes/swagger.json", import.meta.url));
const text = readFileSync(source, "utf8");
const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch"]);

/** One copy: the spec's text with every definition reference renamed, then its paths and ids prefixed. */
function copyOf(k) {
  const spec = JSON.parse(text.replaceAll('"#/definitions/', `"#/definitions/c${k}.`));
  const definitions = Object.fromEntries(Object.entries(spec.definitions).map(([name, schema]) => [`c${k}.${name}`, schema]));
  const paths = {};
  let operations = 0;
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      if (typeof operation.operationId === "string") operation.operationId = `c${k}_${operation.operationId}`;
      operations += 1;
    }
    paths[`/c${k}${path}`] = item;
  }
  return { spec, definitions, paths, operations };
}

const first = copyOf(1);
const merged = { ...first.spec, definitions: { ...first.definitions }, paths: { ...first.paths } };
let operations = first.operations;
for (let k = 2; k <= copies; k += 1) {
  const copy = copyOf(k);
  Object.assign(merged.definitions, copy.definitions);
  Object.assign(merged.paths, copy.paths);
  operations += copy.operations;
}
merged.info = { ...merged.info, title: `${merged.info?.title ?? "Kubernetes"} x${copies}` };
writeFileSync(out, JSON.stringify(merged));
process.stdout.write(`${out}: ${copies} copies, ${operations} operations, ${Object.keys(merged.definitions).length} definitions\n`);
