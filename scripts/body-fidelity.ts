/**
 * Measures how request bodies come out of the OpenAPI generator, per spec: tools, bodies
 * kept whole, tools whose optional body carries `dependentRequired`, the tokens the
 * discriminator tags add, and how many of the spec's own JSON request-body examples the
 * tool's `check()` refuses (body arguments only; path and required parameters are filled).
 *
 *   node --conditions=@sluice/source --import tsx scripts/body-fidelity.ts <spec>...
 *
 * Prints one markdown table row per spec (bench/BODY-FIDELITY.md holds a run).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { definePack, type HttpBinding, type PackDefinition, type Tool } from "@sluice/core";
import { textTokens } from "@sluice/core/tokens";
import { canonicalJson } from "@sluice/schema";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The tool without the tags a discriminator added (`{ $ref, properties: { tag: { const } }, required: [tag] }`). */
function untagged(node: Json): Json {
  if (Array.isArray(node)) return node.map(untagged);
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = untagged(value);
  const keys = out.properties === undefined ? [] : Object.keys(out.properties);
  const tag = keys.length === 1 ? out.properties[keys[0]!] : undefined;
  if (typeof out.$ref === "string" && tag !== undefined && Object.keys(tag).length === 1 && ("const" in tag || "enum" in tag) && Array.isArray(out.required) && out.required.length === 1 && out.required[0] === keys[0]) {
    delete out.properties;
    delete out.required;
  }
  return out;
}

function examplesOf(document: Json, binding: HttpBinding): unknown[] {
  const deref = (value: Json): Json => {
    let current = value;
    for (let hops = 0; hops < 16 && typeof current?.$ref === "string" && current.$ref.startsWith("#/"); hops++) {
      current = current.$ref.slice(2).split("/").reduce((at: Json, part: string) => at?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], document);
    }
    return current;
  };
  const media = deref(document.paths?.[binding.path]?.[binding.method.toLowerCase()]?.requestBody)?.content?.[binding.body?.mediaType ?? ""];
  const out: unknown[] = [];
  if (media?.example !== undefined) out.push(media.example);
  for (const example of Object.values(media?.examples ?? {})) {
    const value = deref(example)?.value;
    if (value !== undefined) out.push(value);
  }
  return out;
}

console.log("| spec | tools | bodies | whole body | dependentRequired | its tokens | tagged tools | tag tokens | examples | refused |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const file of process.argv.slice(2)) {
  const document = loadDocument(readFileSync(file), basename(file)) as Json;
  const ir = buildOpenAPIPackIR(document, { name: "bench", file: basename(file), sha256: "0".repeat(64) });
  const pack = definePack(ir as unknown as PackDefinition);
  let bodies = 0, whole = 0, dependent = 0, dependentTokens = 0, tagged = 0, tagTokens = 0, examples = 0, refused = 0;
  for (const entry of ir.tools) {
    if (entry.binding.kind !== "http" || entry.binding.body === undefined) continue;
    const binding = entry.binding;
    const body = binding.body!;
    const tool = pack.tool(entry.name) as Tool<object>;
    bodies++;
    if (body.wholeBodyArg !== undefined) whole++;
    const full = canonicalJson(tool.toJSON());
    if (entry.parameters.dependentRequired !== undefined) {
      dependent++;
      const { dependentRequired: _rule, ...schema } = tool.toJSON().inputSchema;
      dependentTokens += textTokens(full) - textTokens(canonicalJson({ ...tool.toJSON(), inputSchema: schema }));
    }
    const bare = canonicalJson(untagged(tool.toJSON()));
    if (full !== bare) {
      tagged++;
      tagTokens += textTokens(full) - textTokens(bare);
    }
    if (body.encoding !== "json") continue;
    const argOf = new Map(Object.entries(body.fields ?? {}).map(([arg, member]) => [member, arg]));
    const bodyArgs = new Set([...(body.wholeBodyArg === undefined ? [] : [body.wholeBodyArg]), ...argOf.values()]);
    for (const example of examplesOf(document, binding)) {
      examples++;
      const args: Record<string, unknown> = {};
      if (body.wholeBodyArg !== undefined) args[body.wholeBodyArg] = example;
      else if (example !== null && typeof example === "object") for (const [key, value] of Object.entries(example)) args[argOf.get(key) ?? key] = value;
      for (const parameter of binding.parameters) if (entry.parameters.required.includes(parameter.arg)) args[parameter.arg] ??= "x";
      const issues = tool.check(args).filter((issue) => {
        const top = issue.path.split("/")[1] ?? "";
        return bodyArgs.has(top) || !Object.hasOwn(entry.parameters.properties, top);
      });
      if (issues.length > 0) refused++;
    }
  }
  console.log(`| ${basename(file)} | ${ir.tools.length} | ${bodies} | ${whole} | ${dependent} | ${dependentTokens} | ${tagged} | ${tagTokens} | ${examples} | ${refused} |`);
}
