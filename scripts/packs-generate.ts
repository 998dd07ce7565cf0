/**
 * Regenerate committed packs from their vendored specs, or (`--check`) fail on drift.
 *   node --import tsx scripts/packs-generate.ts [--check] [pack...]
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { buildGraphQLPackIR, emitPackSources as emitGraphQLPackSources, loadGraphQLSchema, writePack, type EmittedFile } from "../generators/graphql/src/index.ts";
import { buildOpenAPIPackIR, emitPackSources as emitOpenAPIPackSources, loadDocument } from "../generators/openapi/src/index.ts";

interface PackEntry {
  name: string;
  kind: "graphql" | "openapi";
  /** Spec file inside `packs/<name>/spec/`. */
  spec: string;
  /** OpenAPI: parameters that carry a credential (name -> security scheme). */
  credentialParameters?: Record<string, string>;
}

const PACKS: readonly PackEntry[] = [
  { name: "github", kind: "graphql", spec: "schema.graphql" },
  { name: "linear", kind: "graphql", spec: "schema.graphql" },
  { name: "stripe", kind: "openapi", spec: "spec3.json" },
  { name: "github-rest", kind: "openapi", spec: "api.github.com.json" },
  // Slack declares the OAuth token as a `token` header or query parameter on most methods.
  { name: "slack", kind: "openapi", spec: "slack_web_openapi_v2_without_examples.json", credentialParameters: { token: "slackAuth" } },
  { name: "gmail", kind: "openapi", spec: "gmail-v1.yaml" },
  { name: "gdocs", kind: "openapi", spec: "docs-v1.yaml" },
  { name: "gsheets", kind: "openapi", spec: "sheets-v4.yaml" },
  { name: "notion", kind: "openapi", spec: "notion-openapi.json" },
];

const packsDir = fileURLToPath(new URL("../packs/", import.meta.url));

async function generate(entry: PackEntry): Promise<EmittedFile[]> {
  const bytes = await readFile(`${packsDir}${entry.name}/spec/${entry.spec}`);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const source = { name: entry.name, file: entry.spec, sha256 };
  // Every committed pack declares its call behaviour in a hand-written src/runtime.ts.
  const emit = { runtimeModule: "./runtime.ts" };
  if (entry.kind === "openapi") {
    const options = entry.credentialParameters === undefined ? {} : { credentialParameters: entry.credentialParameters };
    return emitOpenAPIPackSources(buildOpenAPIPackIR(loadDocument(bytes, entry.spec), source, options), emit);
  }
  return emitGraphQLPackSources(buildGraphQLPackIR(loadGraphQLSchema(bytes, { fileName: entry.spec }), source), emit);
}

async function differing(entry: PackEntry, files: readonly EmittedFile[]): Promise<string[]> {
  const stale: string[] = [];
  for (const file of files) {
    const path = `packs/${entry.name}/${file.path}`;
    const current = await readFile(`${packsDir}${entry.name}/${file.path}`, "utf8").catch(() => undefined);
    if (current === undefined) stale.push(`${path} (missing)`);
    else if (current !== file.text) stale.push(`${path} (differs)`);
  }
  return stale;
}

async function main(argv: readonly string[]): Promise<number> {
  const check = argv.includes("--check");
  const wanted = argv.filter((arg) => !arg.startsWith("--"));
  const unknown = wanted.filter((name) => !PACKS.some((entry) => entry.name === name));
  if (unknown.length > 0) {
    console.error(`unknown pack(s): ${unknown.join(", ")}; known: ${PACKS.map((entry) => entry.name).join(", ")}`);
    return 2;
  }
  const selected = wanted.length === 0 ? PACKS : PACKS.filter((entry) => wanted.includes(entry.name));
  const stale: string[] = [];
  for (const entry of selected) {
    const started = performance.now();
    const files = await generate(entry);
    if (check) stale.push(...(await differing(entry, files)));
    else await writePack(`${packsDir}${entry.name}`, files);
    console.log(`${entry.name}: ${files.length} files ${check ? "checked" : "written"} in ${Math.round(performance.now() - started)} ms`);
  }
  if (stale.length > 0) {
    console.error(`generated files are out of date (run pnpm packs:generate):\n${stale.map((line) => `  ${line}`).join("\n")}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
