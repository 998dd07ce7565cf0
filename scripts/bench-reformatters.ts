/**
 * bench/REFORMATTERS.md: o200k tokens of real answers straight, after the response handler,
 * and after each lossless reformatter (TOON turned on, to measure it), on
 *  - the 2xx JSON response examples the corpus specs (../shared/specs) give, under the default
 *    response handler a generated pack has;
 *  - text results of real MCP servers (devDependencies, over stdio, in a temporary copy of
 *    files from this checkout), called through a generated pack's tools (`invoke`: handler,
 *    redaction, reformatters, as `sluice serve` runs them).
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-reformatters.ts --out bench/REFORMATTERS.md
 *
 * The functions are exported for test/reformatters-real.test.ts, which runs a sample of both.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { parse as parseYaml } from "yaml";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { defaultResponseHandler, definePack, enabledReformatters, generatedRuntime, outputText, reformatText, REFORMATTER_NAMES, type McpToolResult, type ReformatStage, type Tool } from "@sluice/core";
import { textTokens } from "@sluice/core/tokens";
import { buildMcpPackIR, mcpResponseHints, mcpRuntimeFacts } from "@sluice/generator-mcp";
import { makeSnapshot } from "@sluice/mcp-client";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SPECS = join(ROOT, "../shared/specs");
const ALL = enabledReformatters({ toon: true });
const DEFAULTS = enabledReformatters();

/** One real answer: where it comes from, its text as sent, and the handler's output. */
export interface Answer {
  source: string;
  straight: string;
  handled: unknown;
}

export interface Row {
  source: string;
  straight: number;
  handler: number;
  /** Tokens after each reformatter, cumulative, all four on. */
  stages: ReformatStage[];
  /** Tokens with the default set (TOON off). */
  defaults: number;
  text: string;
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** A local `$ref` of the document, followed (examples are often under components/examples). */
function deref(document: Node, value: unknown): unknown {
  let current = value;
  for (let hops = 0; hops < 8 && isNode(current) && typeof current["$ref"] === "string"; hops++) {
    const ref = current["$ref"];
    if (!ref.startsWith("#/")) return undefined;
    current = ref
      .slice(2)
      .split("/")
      .reduce<unknown>((node, part) => (isNode(node) ? node[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined), document);
  }
  return current;
}

function readDocument(file: string): Node | undefined {
  const bytes = readFileSync(file);
  const text = (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
  try {
    const value = file.endsWith(".json") || file.endsWith(".gz") ? JSON.parse(text) : parseYaml(text, { maxAliasCount: -1 });
    return isNode(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The 2xx JSON response examples an OpenAPI document gives (media `example`, each of
 * `examples`), in document order, at most `perSpec`. A string example that holds JSON is that
 * JSON as the API sends it (Jira writes its examples so). "Straight" is the body as such an
 * API sends it: the spec's text for a string example, else JSON indented by two spaces (how
 * GitHub, Stripe and Jira answer).
 */
export function specResponseExamples(perSpec = 10, accept: (spec: string) => boolean = () => true): Answer[] {
  const answers: Answer[] = [];
  for (const folder of readdirSync(SPECS, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    for (const file of readdirSync(join(SPECS, folder)).sort()) {
      if (!/\.(json|ya?ml)$/.test(file) || !accept(`${folder}/${file}`)) continue;
      const document = readDocument(join(SPECS, folder, file));
      if (document === undefined || !isNode(document["paths"])) continue;
      const servers = Array.isArray(document["servers"]) ? document["servers"].flatMap((s) => (isNode(s) && typeof s["url"] === "string" ? [s["url"]] : [])) : [];
      const handler = defaultResponseHandler({ api: servers });
      let taken = 0;
      for (const [path, item] of Object.entries(document["paths"])) {
        if (!isNode(item) || taken >= perSpec) continue;
        for (const method of ["get", "post", "put", "patch", "delete"]) {
          const operation = item[method];
          if (!isNode(operation) || !isNode(operation["responses"]) || taken >= perSpec) continue;
          for (const [status, response] of Object.entries(operation["responses"])) {
            if (!/^2/.test(status) || taken >= perSpec) continue;
            const content = deref(document, response);
            const media = isNode(content) && isNode(content["content"]) ? content["content"]["application/json"] : undefined;
            if (!isNode(media)) continue;
            const examples: unknown[] = [];
            if (media["example"] !== undefined) examples.push(media["example"]);
            if (isNode(media["examples"])) for (const example of Object.values(media["examples"])) examples.push(deref(document, isNode(example) && "$ref" in example ? example : example));
            for (const example of examples) {
              const value = isNode(example) && "value" in example && media["example"] !== example ? example["value"] : example;
              if (value === undefined || value === null || taken >= perSpec) continue;
              let straight: string;
              let body: unknown;
              if (typeof value === "string") {
                try {
                  body = JSON.parse(value);
                } catch {
                  continue;
                }
                straight = value;
              } else {
                body = value;
                straight = JSON.stringify(value, null, 2);
              }
              if (straight.length < 120) continue; // `{}` and one-liners say nothing about a pass
              answers.push({ source: `${folder}/${file} ${method.toUpperCase()} ${path} ${status}`, straight, handled: handler(body, { tool: "example", status: Number(status) || 200, headers: {}, args: {} }) });
              taken++;
            }
          }
        }
      }
    }
  }
  return answers;
}

/** What `invoke` made of one MCP call: the upstream's text, the handler's output, and the model's blocks with each stage. */
export interface McpRow extends Row {
  /** Non-text blocks of the upstream's answer, and whether each reached the model byte for byte. */
  otherBlocksKept: boolean;
}

/** The calls made on each server: reads only, over a temporary copy of files from this checkout. */
export function mcpCalls(dir: string): Array<{ server: "server-filesystem" | "server-memory" | "server-everything"; tool: string; args: Record<string, unknown> }> {
  return [
    { server: "server-filesystem", tool: "search_files", args: { path: dir, pattern: "**/*.d.ts" } },
    { server: "server-filesystem", tool: "search_files", args: { path: dir, pattern: "**/*client*" } },
    { server: "server-filesystem", tool: "list_directory", args: { path: join(dir, "sdk/dist/esm/client") } },
    { server: "server-filesystem", tool: "list_directory_with_sizes", args: { path: join(dir, "sdk/dist/esm/shared") } },
    { server: "server-filesystem", tool: "directory_tree", args: { path: join(dir, "sdk/dist/esm/server") } },
    { server: "server-filesystem", tool: "read_text_file", args: { path: join(dir, "sdk/package.json") } },
    { server: "server-filesystem", tool: "read_text_file", args: { path: join(dir, "snapshot.json") } },
    { server: "server-filesystem", tool: "get_file_info", args: { path: join(dir, "sdk/package.json") } },
    { server: "server-filesystem", tool: "read_multiple_files", args: { paths: [join(dir, "sdk/package.json"), join(dir, "sdk/LICENSE")] } },
    { server: "server-filesystem", tool: "list_allowed_directories", args: {} },
    { server: "server-memory", tool: "read_graph", args: {} },
    { server: "server-memory", tool: "search_nodes", args: { query: "sluice" } },
    { server: "server-everything", tool: "get-tiny-image", args: {} },
    { server: "server-everything", tool: "echo", args: { message: "\u001b[32mpassed\u001b[39m 3 tests\r100%" } },
  ];
}

function serverBin(name: string): string {
  return join(ROOT, "node_modules/@modelcontextprotocol", name, "dist/index.js");
}

/** A scratch folder with real files to read: the MCP SDK's package and a tools snapshot of this checkout. */
export function scratchFiles(): string {
  const dir = mkdtempSync(join(tmpdir(), "sluice-reformat-"));
  cpSync(join(ROOT, "node_modules/@modelcontextprotocol/sdk"), join(dir, "sdk"), { recursive: true, dereference: true });
  cpSync(join(ROOT, "test/fixtures/mcp/server-filesystem.snapshot.json"), join(dir, "snapshot.json"));
  return dir;
}

/** Calls each tool through a generated pack (its default handlers) against the real server; one row per call. */
export async function mcpRows(dir: string, calls = mcpCalls(dir)): Promise<McpRow[]> {
  const rows: McpRow[] = [];
  const servers = [...new Set(calls.map((c) => c.server))];
  for (const server of servers) {
    const memoryFile = join(dir, "memory.jsonl");
    if (server === "server-memory") {
      // A small graph, written as the server stores it, so read_graph and search_nodes have something real to answer.
      const lines = ["sluice", "pack", "egress map", "projection", "response handler", "reformatter"].map((name, i) => JSON.stringify({ type: "entity", name, entityType: i === 0 ? "project" : "concept", observations: [`${name} is part of the toolkit`, `added in step ${i}`] }));
      lines.push(...["pack", "egress map", "projection"].map((to) => JSON.stringify({ type: "relation", from: "sluice", to, relationType: "has" })));
      writeFileSync(memoryFile, lines.join("\n"));
    }
    const args = server === "server-filesystem" ? [serverBin(server), dir] : server === "server-everything" ? [serverBin(server), "stdio"] : [serverBin(server)];
    const client = new Client({ name: "bench-reformatters", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore", env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: memoryFile } }));
    try {
      const info = client.getServerVersion()!;
      const listed = (await client.listTools()).tools;
      const snapshot = makeSnapshot({ name: info.name, version: info.version }, LATEST_PROTOCOL_VERSION, listed);
      const ir = buildMcpPackIR(snapshot, { name: "upstream", file: "tools.snapshot.json", sha256: "" });
      const runtime = generatedRuntime({ ...mcpRuntimeFacts(ir), responses: { shared: {}, tools: mcpResponseHints(snapshot, ir.tools) } });
      const pack = definePack({ name: ir.name, defs: ir.defs, tools: ir.tools, runtime });
      const upstream = { callTool: async (request: { name: string; arguments: Record<string, unknown> }) => (await client.callTool(request)) as unknown as McpToolResult };
      for (const call of calls.filter((c) => c.server === server)) {
        const tool = pack.tools.find((t) => t.binding.kind === "mcp" && t.binding.tool === call.tool) as Tool<object> | undefined;
        if (tool === undefined) throw new Error(`${server} has no tool ${call.tool}`);
        const all = await tool.derived({ reformatters: { toon: true } }).invoke(call.args, { mcp: upstream, timeoutMs: 30_000, reformatTokens: true });
        const defaults = await tool.invoke(call.args, { mcp: upstream, timeoutMs: 30_000 });
        const upstreamBlocks = all.mcpResult!.content;
        const texts = (blocks: readonly { type: string; [k: string]: unknown }[]) => blocks.filter((b) => b.type === "text").map((b) => b["text"] as string);
        const straight = texts(upstreamBlocks).join("\n");
        const others = upstreamBlocks.filter((b) => b.type !== "text");
        const shownOthers = (all.content ?? []).filter((b) => b.type !== "text");
        rows.push({
          source: `${server} ${call.tool}`,
          straight: textTokens(straight),
          handler: all.reformat[0]?.tokensBefore ?? textTokens(straight),
          stages: [...all.reformat],
          defaults: textTokens(texts(defaults.content ?? []).join("\n")),
          text: texts(all.content ?? []).join("\n"),
          otherBlocksKept: JSON.stringify(others) === JSON.stringify(shownOthers),
        });
      }
    } finally {
      await client.close();
    }
  }
  return rows;
}

/** One row per spec example: the handler's output as the model reads it, through every stage. */
export function exampleRows(answers: readonly Answer[]): Row[] {
  return answers.map((answer) => {
    const handled = outputText(answer.handled);
    const all = reformatText(handled, ALL);
    return { source: answer.source, straight: textTokens(answer.straight), handler: textTokens(handled), stages: all.stages, defaults: textTokens(reformatText(handled, DEFAULTS).text), text: all.text };
  });
}

/** The captured command outputs of the reformatter tests (their commands: packages/core/test/fixtures/reformat/README.md), as a tool runner would return them. */
export function capturedRows(): Row[] {
  const dir = join(ROOT, "packages/core/test/fixtures/reformat");
  return readdirSync(dir)
    .filter((name) => /\.(txt|log)$/.test(name))
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), "utf8");
      const all = reformatText(text, ALL);
      const tokens = textTokens(text);
      return { source: name, straight: tokens, handler: tokens, stages: all.stages, defaults: textTokens(reformatText(text, DEFAULTS).text), text: all.text };
    });
}

function table(rows: readonly Row[]): string[] {
  const head = `| answer | straight | after handler | ${REFORMATTER_NAMES.join(" | ")} | default set |`;
  const lines = [head, `|${" --- |".repeat(4 + REFORMATTER_NAMES.length)}`];
  const cell = (row: Row, name: string) => {
    const stage = row.stages.find((s) => s.reformatter === name);
    if (stage === undefined) return "";
    return stage.adopted ? `**${stage.tokensAfter}**` : `${stage.tokensAfter} (${stage.reason})`;
  };
  for (const row of rows) lines.push(`| ${row.source.replace(/\|/g, "\\|")} | ${row.straight} | ${row.handler} | ${REFORMATTER_NAMES.map((n) => cell(row, n)).join(" | ")} | ${row.defaults} |`);
  const sum = (f: (r: Row) => number) => rows.reduce((s, r) => s + f(r), 0);
  const after = (name: string) => sum((r) => r.stages.find((s) => s.reformatter === name)?.tokensAfter ?? r.handler);
  lines.push(`| **total (${rows.length})** | ${sum((r) => r.straight)} | ${sum((r) => r.handler)} | ${REFORMATTER_NAMES.map((n) => after(n)).join(" | ")} | ${sum((r) => r.defaults)} |`);
  return lines;
}

function adoption(rows: readonly Row[]): string[] {
  const lines = ["| reformatter | adopted | declined | tokens in (adopted) | tokens out (adopted) | saving where adopted |", "| --- | --- | --- | --- | --- | --- |"];
  for (const name of REFORMATTER_NAMES) {
    const stages = rows.flatMap((r) => r.stages.filter((s) => s.reformatter === name));
    const adopted = stages.filter((s) => s.adopted);
    const before = adopted.reduce((s, x) => s + (x.tokensBefore ?? 0), 0);
    const after = adopted.reduce((s, x) => s + (x.tokensAfter ?? 0), 0);
    lines.push(`| ${name} | ${adopted.length} | ${stages.length - adopted.length} | ${before} | ${after} | ${before === 0 ? "-" : `${(((before - after) / before) * 100).toFixed(1)}%`} |`);
  }
  return lines;
}

async function main(): Promise<void> {
  const out = process.argv.includes("--out") ? process.argv[process.argv.indexOf("--out") + 1] : undefined;
  const examples = exampleRows(specResponseExamples());
  const dir = scratchFiles();
  let mcp: McpRow[];
  try {
    mcp = await mcpRows(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const captured = capturedRows();
  const scrub = (row: McpRow): McpRow => ({ ...row, source: row.source.split(dir).join("<dir>") });
  const text = [
    "# Lossless reformatters: tokens per stage",
    "",
    "Generated by `node --conditions=@sluice/source --import tsx scripts/bench-reformatters.ts --out bench/REFORMATTERS.md`.",
    "Tokens are o200k_base, counted with the real tokenizer (`@sluice/core/tokens`, the counter `schemaTokens` uses).",
    "Each stage column is the tokens after that reformatter, with all four on and run in order (text-clean, compact-json, path-fold, toon);",
    "**bold** means adopted, otherwise the reason it declined. \"default set\" is the tokens with the defaults (TOON off).",
    "",
    `## ${examples.length} response examples of the corpus specs (../shared/specs), default response handler`,
    "",
    "Straight: the example as the API sends it (a string example as written; an object indented by two spaces).",
    "After handler: the default handler's output as compact JSON, which is what sluice sent before reformatters.",
    "",
    ...adoption(examples),
    "",
    ...table(examples),
    "",
    "Nothing here holds JSON in a string, colour codes or a path list, so only TOON has anything to do (a handler's output is compact JSON already).",
    "",
    `## ${captured.length} captured command outputs (grep -rn, find, a coloured test-runner log with redraws, a progress bar)`,
    "",
    "The fixtures of packages/core/test/reformat.test.ts, captured on this machine (commands in packages/core/test/fixtures/reformat/README.md),",
    "as a tool that runs commands returns them (no handler).",
    "",
    ...adoption(captured),
    "",
    ...table(captured),
    "",
    `## ${mcp.length} results of real MCP servers through a generated pack (invoke: handler, redaction, reformatters)`,
    "",
    "server-filesystem over a temporary copy of `node_modules/@modelcontextprotocol/sdk` (`<dir>`), server-memory over a",
    "small graph written for the run, server-everything's image and echo (the echo carries colour codes and a redraw).",
    "Straight: the upstream's text blocks as sent. After handler: the generated pack's default handler's output.",
    `Non-text blocks reached the model as the upstream sent them in ${mcp.filter((r) => r.otherBlocksKept).length} of ${mcp.length} calls.`,
    "",
    ...adoption(mcp),
    "",
    ...table(mcp.map(scrub)),
    "",
  ].join("\n");
  if (out === undefined) process.stdout.write(text);
  else writeFileSync(out, text);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
