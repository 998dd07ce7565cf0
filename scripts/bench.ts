/**
 * Benchmarks, compared side by side in one run; writes bench/RESULTS.md (overwritten).
 *   pnpm bench   (= node --import tsx scripts/bench.ts)
 * Not a test: nothing here asserts on wall-clock time. It exits 1 only when the two
 * tokenizers disagree on a count, since then the throughput comparison means nothing.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { clearMergeCache, encode as gptTokenizerEncode } from "gpt-tokenizer/encoding/o200k_base";
import { Tiktoken } from "js-tiktoken/lite";
import o200k_base from "js-tiktoken/ranks/o200k_base";
import { buildGraphQLPackIR, emitPackSources, loadGraphQLSchema } from "../generators/graphql/src/index.ts";
import { buildOpenAPIPackIR, loadDocument } from "../generators/openapi/src/index.ts";
import { definePack, fullNameOf, type HttpBinding, type PackIR, type Tool } from "../packages/core/src/index.ts";
import { schemaTokens, textTokens } from "../packages/core/src/tokens.ts";
import { allTools as githubRestPackTools } from "../packs/github-rest/src/index.ts";
import { allTools as stripePackTools } from "../packs/stripe/src/index.ts";
import { canonicalJson } from "../packages/schema/src/index.ts";

const COMMAND = "pnpm bench   (node --import tsx scripts/bench.ts)";
const repoRoot = fileURLToPath(new URL("../", import.meta.url));
// CI clones main with ../shared beside it; specs are vendored there, never fetched.
const specsDir = new URL("../../shared/specs/", import.meta.url);
const resultsFile = new URL("../bench/RESULTS.md", import.meta.url);

// ---------------------------------------------------------------- helpers

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds taken by `run`, and what it returned. */
async function timed<T>(run: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

async function timesOf(runs: number, run: () => unknown): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await timed(run)).ms);
  return times;
}

const ms = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(1)) + " ms";
const ratio = (value: number): string => value.toFixed(2) + "x";
const int = (value: number): string => value.toLocaleString("en-US");

function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Problems that make the run invalid (exit 1), collected so RESULTS.md still records them. */
const failures: string[] = [];

// ---------------------------------------------------------------- generation

const SPECS = [
  { pack: "linear", file: "linear/schema.graphql" },
  { pack: "github", file: "github-graphql/schema.graphql" },
] as const;
const GENERATION_RUNS = 5;

async function generation(): Promise<{ markdown: string; linearIR: PackIR }> {
  const rows: string[][] = [];
  const totals = new Map<string, number>();
  let linearIR: PackIR | undefined;
  for (const { pack, file } of SPECS) {
    const bytes = await readFile(new URL(file, specsDir));
    const phases = { load: [] as number[], ir: [] as number[], emit: [] as number[], total: [] as number[] };
    let tools = 0;
    let emittedBytes = 0;
    for (let i = 0; i < GENERATION_RUNS; i++) {
      const load = await timed(() => loadGraphQLSchema(bytes, { fileName: "schema.graphql" }));
      const ir = await timed(() => buildGraphQLPackIR(load.value, { name: pack, file: "schema.graphql", sha256: "bench" }));
      const emit = await timed(() => emitPackSources(ir.value));
      phases.load.push(load.ms);
      phases.ir.push(ir.ms);
      phases.emit.push(emit.ms);
      phases.total.push(load.ms + ir.ms + emit.ms);
      tools = ir.value.tools.length;
      emittedBytes = emit.value.reduce((sum, f) => sum + Buffer.byteLength(f.text), 0);
      if (pack === "linear") linearIR = ir.value;
    }
    totals.set(pack, median(phases.total));
    rows.push([
      pack,
      `${(bytes.length / 1024).toFixed(0)} KiB`,
      int(tools),
      `${(emittedBytes / 1024).toFixed(0)} KiB`,
      ms(median(phases.load)),
      ms(median(phases.ir)),
      ms(median(phases.emit)),
      ms(median(phases.total)),
      ms(phases.total[0]!),
    ]);
  }
  const markdown = [
    "## Generation (load SDL + build IR + emit sources, in memory)",
    "",
    `Median of ${GENERATION_RUNS} runs in one process; "first run" includes JIT warm-up.`,
    "",
    table(["spec", "SDL size", "tools", "emitted", "load", "build IR", "emit", "total (median)", "first run"], rows),
    "",
    `GitHub / Linear total: ${ratio(totals.get("github")! / totals.get("linear")!)}.`,
  ].join("\n");
  return { markdown, linearIR: linearIR! };
}

// ---------------------------------------------------------------- token counting

const TOKEN_RUNS = 10;

/** One-time cost in a fresh process: load the o200k_base ranks, build the encoder, encode one string. */
const CONSTRUCTION_SCRIPTS = {
  "js-tiktoken": `
    const t0 = performance.now();
    const { Tiktoken } = await import("js-tiktoken/lite");
    const { default: ranks } = await import("js-tiktoken/ranks/o200k_base");
    new Tiktoken(ranks).encode("warm up", [], []);
    process.stdout.write(String(performance.now() - t0));`,
  "gpt-tokenizer": `
    const t0 = performance.now();
    const { encode } = await import("gpt-tokenizer/encoding/o200k_base");
    encode("warm up", { disallowedSpecial: new Set() });
    process.stdout.write(String(performance.now() - t0));`,
} as const;
const CONSTRUCTION_RUNS = 5;

function constructionMs(script: string): number {
  const times: number[] = [];
  for (let i = 0; i < CONSTRUCTION_RUNS; i++) {
    times.push(Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8" })));
  }
  return median(times);
}

async function tokenCounting(linearIR: PackIR): Promise<string> {
  const texts = definePack(linearIR).tools.map((tool) => ({ name: tool.name, text: canonicalJson(tool.toJSON()) }));
  const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t.text), 0);

  // Both count special-token markers found in specs as plain text, as sluice does.
  const tiktoken = new Tiktoken(o200k_base);
  const counters = {
    "js-tiktoken": (text: string) => tiktoken.encode(text, [], []).length,
    "gpt-tokenizer": (text: string) => gptTokenizerEncode(text, { disallowedSpecial: new Set() }).length,
  } as const;
  type Counter = keyof typeof counters;
  const countAll = (counter: Counter) => texts.map(({ text }) => counters[counter](text));

  // The first pass is also the one whose counts are compared.
  const first = { "js-tiktoken": await timed(() => countAll("js-tiktoken")), "gpt-tokenizer": await timed(() => countAll("gpt-tokenizer")) };
  const perTool = { "js-tiktoken": first["js-tiktoken"].value, "gpt-tokenizer": first["gpt-tokenizer"].value };
  const total = (counter: Counter) => perTool[counter].reduce((a, b) => a + b, 0);
  const mismatches = texts.filter((_t, i) => perTool["js-tiktoken"][i] !== perTool["gpt-tokenizer"][i]);
  if (total("js-tiktoken") !== total("gpt-tokenizer") || mismatches.length > 0) {
    failures.push(
      `token counts differ: totals ${total("js-tiktoken")} (js-tiktoken) vs ${total("gpt-tokenizer")} (gpt-tokenizer); ` +
        `${mismatches.length} tools differ, first: ${mismatches[0]?.name ?? "none"}`,
    );
  }

  // Interleaved so drift (thermal, GC) hits both alike. gpt-tokenizer keeps an LRU merge
  // cache across calls and js-tiktoken has none, so it is also measured with the cache cleared.
  const warm: Record<Counter | "gpt-tokenizer (cache cleared)", number[]> = { "js-tiktoken": [], "gpt-tokenizer": [], "gpt-tokenizer (cache cleared)": [] };
  for (let i = 0; i < TOKEN_RUNS; i++) {
    warm["js-tiktoken"].push((await timed(() => countAll("js-tiktoken"))).ms);
    warm["gpt-tokenizer"].push((await timed(() => countAll("gpt-tokenizer"))).ms);
    clearMergeCache();
    warm["gpt-tokenizer (cache cleared)"].push((await timed(() => countAll("gpt-tokenizer"))).ms);
  }

  const tokens = total("js-tiktoken");
  const construction = { "js-tiktoken": constructionMs(CONSTRUCTION_SCRIPTS["js-tiktoken"]), "gpt-tokenizer": constructionMs(CONSTRUCTION_SCRIPTS["gpt-tokenizer"]) };
  const throughput = (timeMs: number) => [`${(bytes / 1e6 / (timeMs / 1000)).toFixed(2)} MB/s`, `${int(Math.round(tokens / (timeMs / 1000)))} tok/s`];
  const rows = (Object.keys(warm) as Array<keyof typeof warm>).map((name) => {
    const counter: Counter = name === "js-tiktoken" ? "js-tiktoken" : "gpt-tokenizer";
    const medianMs = median(warm[name]);
    return [
      name,
      int(total(counter)),
      name === "gpt-tokenizer (cache cleared)" ? "(same)" : ms(first[counter].ms),
      ms(medianMs),
      `${ms(Math.min(...warm[name]))} – ${ms(Math.max(...warm[name]))}`,
      ...throughput(medianMs),
      name === "gpt-tokenizer (cache cleared)" ? "" : ms(construction[counter]),
    ];
  });
  const jt = median(warm["js-tiktoken"]);
  const describeRatio = (label: string, other: number) =>
    other < jt ? `${label} is ${ratio(jt / other)} faster than js-tiktoken` : `js-tiktoken is ${ratio(other / jt)} faster than ${label}`;
  return [
    "## Token counting (o200k_base, offline)",
    "",
    `Input: canonical JSON of every Linear tool definition (\`{name, description, inputSchema}\`): ${int(texts.length)} tools, ` +
      `${(bytes / 1e6).toFixed(2)} MB, ${int(tokens)} tokens. Per-tool and total counts: ` +
      (mismatches.length === 0 && total("js-tiktoken") === total("gpt-tokenizer") ? "**identical** for both." : `**DIFFER** (${mismatches.length} tools).`),
    "",
    `Median of ${TOKEN_RUNS} interleaved passes over all tools; "first pass" right after construction. ` +
      `Construction = fresh process: import ranks + build encoder + encode one string (median of ${CONSTRUCTION_RUNS} processes).`,
    "",
    table(["counter", "total tokens", "first pass", "median pass", "min – max", "MB/s", "tokens/s", "construction"], rows),
    "",
    `Warm: ${describeRatio("gpt-tokenizer", median(warm["gpt-tokenizer"]))}. ` +
      `Merge cache cleared each pass: ${describeRatio("gpt-tokenizer", median(warm["gpt-tokenizer (cache cleared)"]))}. ` +
      `Construction: ${construction["gpt-tokenizer"] < construction["js-tiktoken"] ? `gpt-tokenizer ${ratio(construction["js-tiktoken"] / construction["gpt-tokenizer"])} faster` : `js-tiktoken ${ratio(construction["gpt-tokenizer"] / construction["js-tiktoken"])} faster`}.`,
  ].join("\n");
}

// ---------------------------------------------------------------- paths --by-cost

const PATHS_RUNS = 5;

async function pathsByCost(linearIR: PackIR): Promise<string> {
  const tool = definePack(linearIR).tool("issues_list");
  const topLevel = await timesOf(PATHS_RUNS, () => tool.paths({ byCost: true }));
  const topPaths = await tool.paths({ byCost: true });
  const underFilter = await timed(() => tool.paths("filter", { byCost: true }));
  const top = (costs: ReadonlyArray<{ path: string; tokens?: number }>) =>
    costs.slice(0, 3).map((c) => `\`${c.path}\` ${int(c.tokens ?? 0)}`).join(", ");
  const negative = underFilter.value.filter((c) => (c.tokens ?? 0) < 0).length;
  return [
    "## paths --by-cost (Linear `issues_list`)",
    "",
    table(
      ["call", "paths measured", "time", "most expensive"],
      [
        [`\`tool.paths({ byCost: true })\` (median of ${PATHS_RUNS}; first ${ms(topLevel[0]!)})`, int(topPaths.length), ms(median(topLevel)), top(topPaths)],
        ['`tool.paths("filter", { byCost: true })` (once)', int(underFilter.value.length), ms(underFilter.ms), top(underFilter.value)],
      ],
    ),
    "",
    `Costs are tokens saved by dropping the path. ${negative} of ${underFilter.value.length} paths under \`filter\` cost a negative amount: ` +
      "dropping one splits the shared recursive filter definition copy-on-write, so the tool grows (as DESIGN.md specifies).",
  ].join("\n");
}

// ---------------------------------------------------------------- OpenAPI beside openapi-mcp-generator

const OMG_BIN = fileURLToPath(new URL("../node_modules/openapi-mcp-generator/bin/openapi-mcp-generator.js", import.meta.url));
const SLUICE_OPENAPI_CHILD = fileURLToPath(new URL("../bench/openapi-generate-child.ts", import.meta.url));
const SPAWN_MEASURED = fileURLToPath(new URL("../bench/spawn-measured.cjs", import.meta.url));
const OPENAPI_SPECS = [
  { pack: "github-rest", file: "github-rest/api.github.com.json", shipped: githubRestPackTools },
  { pack: "stripe", file: "stripe/spec3.json", shipped: stripePackTools },
] as const;
const OPENAPI_RUNS = 5;

interface ChildRun {
  ms: number;
  maxRssKiB: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `node --require bench/report-max-rss.cjs <args>`, started by bench/spawn-measured.cjs (a bare
 * node process, so the child's maxRSS does not start at this process's RSS): wall time of
 * the child and its peak RSS, both as the launcher measured them.
 */
function measuredChild(args: readonly string[], resultFile: string): ChildRun {
  const run = spawnSync(process.execPath, [SPAWN_MEASURED, resultFile, ...args], { cwd: repoRoot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const measured = existsSync(resultFile) ? (JSON.parse(readFileSync(resultFile, "utf8")) as { ms: number; maxRssKiB: number | null }) : undefined;
  return {
    ms: measured?.ms ?? Number.NaN,
    maxRssKiB: measured?.maxRssKiB ?? Number.NaN,
    status: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
  };
}

function childFailure(run: ChildRun): string {
  const message = /message: '([^'\n]*)'/.exec(run.stderr)?.[1] ?? run.stderr.split("\n").find((l) => l.trim() !== "") ?? "";
  return `exit ${String(run.status)}: ${message}`;
}

const mib = (kib: number): string => `${(kib / 1024).toFixed(0)} MiB`;

interface GeneratedToolDefinition {
  name: string;
  description: string;
  inputSchema: unknown;
  /** `GET /repos/{owner}/{repo}`: the operation, to match tools across generators. */
  operation: string;
}

/**
 * The tool definitions in openapi-mcp-generator's generated `src/index.ts`, read without
 * evaluating it. Each entry of its `toolDefinitionMap` is written (dist/utils/code-gen.js) as
 *   ["<name>", {
 *     name: "<name>",
 *     description: `<description, with \ ` and ${ escaped>`,
 *     inputSchema: <JSON.stringify(schema)>,
 *     method: "<method>",
 *     pathTemplate: "<path>", ...
 */
function omgToolDefinitions(source: string): GeneratedToolDefinition[] {
  const head = /\n {2}\["([^"\n]*)", \{\n {4}name: "([^"\n]*)",\n {4}description: `/g;
  const tail = /,\n {4}method: "([^"\n]*)",\n {4}pathTemplate: "([^"\n]*)",/y;
  const tools: GeneratedToolDefinition[] = [];
  head.lastIndex = source.indexOf("const toolDefinitionMap");
  for (let match = head.exec(source); match !== null; match = head.exec(source)) {
    const description = readTemplateLiteral(source, head.lastIndex);
    if (!source.startsWith(",\n    inputSchema: ", description.end)) throw new Error(`openapi-mcp-generator output: no inputSchema after ${match[2]}`);
    const inputSchema = readJsonValue(source, description.end + ",\n    inputSchema: ".length);
    tail.lastIndex = inputSchema.end;
    const rest = tail.exec(source);
    if (rest === null) throw new Error(`openapi-mcp-generator output: no method and pathTemplate after ${match[2]}`);
    tools.push({ name: match[2]!, description: description.text, inputSchema: inputSchema.value, operation: `${rest[1]!.toUpperCase()} ${rest[2]!}` });
    head.lastIndex = tail.lastIndex;
  }
  // Cross-check: every `inputSchema: {` line of the map was read.
  const schemaLines = source.match(/^ {4}inputSchema: \{/gm)?.length ?? 0;
  if (schemaLines !== tools.length) throw new Error(`openapi-mcp-generator output: read ${tools.length} tools but found ${schemaLines} inputSchema lines`);
  return tools;
}

/** The cooked text of a template literal that starts at `at` (just after the backtick) and has no `${}`. */
function readTemplateLiteral(source: string, at: number): { text: string; end: number } {
  let text = "";
  for (let i = at; i < source.length; i++) {
    const c = source[i]!;
    if (c === "`") return { text, end: i + 1 };
    if (c === "\\") {
      const escaped = source[i + 1];
      // The generator escapes exactly these three; anything else would need JS escape rules.
      if (escaped !== "\\" && escaped !== "`" && escaped !== "$") throw new Error(`unexpected escape \\${String(escaped)} in a description`);
      text += escaped;
      i++;
    } else if (c === "$" && source[i + 1] === "{") {
      throw new Error("unexpected ${ expression in a description");
    } else if (c === "\r") {
      text += "\n"; // template literals normalise CR LF and CR to LF
      if (source[i + 1] === "\n") i++;
    } else {
      text += c;
    }
  }
  throw new Error("unterminated template literal");
}

/** The JSON object or array starting at `at`, found by matching brackets outside strings, then JSON.parse'd. */
function readJsonValue(source: string, at: number): { value: unknown; end: number } {
  if (source[at] !== "{" && source[at] !== "[") throw new Error(`expected a JSON object at ${at}`);
  let depth = 0;
  let inString = false;
  for (let i = at; i < source.length; i++) {
    const c = source[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === "{" || c === "[") {
      depth++;
    } else if ((c === "}" || c === "]") && --depth === 0) {
      return { value: JSON.parse(source.slice(at, i + 1)) as unknown, end: i + 1 };
    }
  }
  throw new Error("unterminated JSON value");
}

/** Tokens of one tool definition as sent, counted as `schemaTokens` counts a sluice tool. */
const definitionTokens = (tool: { name: string; description: string; inputSchema: unknown }): number =>
  textTokens(canonicalJson({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));

/**
 * The document with every `$ref` member whose value is an http(s) URL removed from example
 * data (`example`, `examples`, `default`). Such members are data (GitHub's SCIM examples carry
 * a `$ref` URL field), but openapi-mcp-generator's dereferencer treats them as references and,
 * with external refs disallowed, stops. Real references are left alone.
 */
function withoutUrlRefsInExamples(document: unknown): { document: unknown; removed: number } {
  let removed = 0;
  const walk = (node: unknown, inExample: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, inExample));
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (inExample && key === "$ref" && typeof value === "string" && /^https?:\/\//i.test(value)) {
        removed++;
        continue;
      }
      out[key] = walk(value, inExample || key === "example" || key === "examples" || key === "default");
    }
    return out;
  };
  return { document: walk(document, false), removed };
}

interface GeneratorRuns {
  runs: ChildRun[];
  failure?: string;
}

function summary(label: string, spec: string, runs: GeneratorRuns, tools: string, output: string): string[] {
  if (runs.failure !== undefined) return [spec, label, "—", "—", "—", "—", `failed: ${runs.failure}`];
  const times = runs.runs.map((r) => r.ms);
  return [spec, label, tools, ms(median(times)), `${ms(Math.min(...times))} – ${ms(Math.max(...times))}`, mib(median(runs.runs.map((r) => r.maxRssKiB))), output];
}

async function openapiBesideGenerator(): Promise<string> {
  const heading = "## OpenAPI generation beside openapi-mcp-generator";
  if (!existsSync(OMG_BIN)) return [heading, "", "skipped: openapi-mcp-generator not installed (pnpm install)"].join("\n");
  const work = await mkdtemp(join(tmpdir(), "sluice-bench-"));
  try {
    const timeRows: string[][] = [];
    const tokenRows: string[][] = [];
    const bodyRows: string[][] = [];
    const ratios: string[] = [];
    const notes: string[] = [];
    let childIndex = 0;
    const resultFile = () => join(work, `child-${childIndex++}.json`);
    const runOmg = (spec: string, pack: string) => {
      const out = join(work, `${pack}-omg-${childIndex}`);
      return { run: measuredChild([OMG_BIN, "-i", spec, "-o", out], resultFile()), out };
    };
    const runSluice = (spec: string, pack: string) => measuredChild(["--import", "tsx", SLUICE_OPENAPI_CHILD, spec, pack], resultFile());

    // Startup cost alone, for scale: the sluice child pays for the tsx loader, the other runs plain JS.
    await writeFile(join(work, "empty.mjs"), "");
    await writeFile(join(work, "empty.ts"), "export {};\n");
    const baselines = [
      ["node (empty script)", [join(work, "empty.mjs")]],
      ["node --import tsx (empty script)", ["--import", "tsx", join(work, "empty.ts")]],
    ] as const;
    for (const [label, args] of baselines) {
      const runs: ChildRun[] = [];
      for (let i = 0; i < OPENAPI_RUNS; i++) runs.push(measuredChild(args, resultFile()));
      timeRows.push(summary(label, "(baseline)", { runs }, "", ""));
    }

    for (const { pack, file, shipped } of OPENAPI_SPECS) {
      const original = fileURLToPath(new URL(file, specsDir));
      const bytes = await readFile(original);
      const document = loadDocument(bytes, file);

      // The input both generators get: the vendored file, unless openapi-mcp-generator cannot read it.
      let input = original;
      let inputNote = "";
      const probe = runOmg(original, pack);
      if (probe.run.status !== 0) {
        const cleaned = withoutUrlRefsInExamples(document);
        notes.push(`openapi-mcp-generator fails on the vendored ${pack} document (${childFailure(probe.run)}).`);
        if (cleaned.removed > 0) {
          input = join(work, `${pack}-example-refs-removed.json`);
          await writeFile(input, JSON.stringify(cleaned.document));
          inputNote = " †";
          notes.push(
            `† ${pack}: both generators read a copy with the ${cleaned.removed} \`$ref\` URL members removed from example data ` +
              "(they are example payload fields, not references; no request is made either way).",
          );
        }
      }

      // One untimed warm-up of each, then interleaved runs, alternating which goes first.
      runSluice(input, pack);
      if (input !== original) runOmg(input, pack);
      const omg: GeneratorRuns = { runs: [] };
      const sluice: GeneratorRuns = { runs: [] };
      let omgOut = "";
      for (let i = 0; i < OPENAPI_RUNS && omg.failure === undefined && sluice.failure === undefined; i++) {
        const order = i % 2 === 0 ? (["omg", "sluice"] as const) : (["sluice", "omg"] as const);
        for (const which of order) {
          if (which === "omg") {
            const { run, out } = runOmg(input, pack);
            if (run.status !== 0) omg.failure = childFailure(run);
            omg.runs.push(run);
            omgOut = out;
          } else {
            const run = runSluice(input, pack);
            if (run.status !== 0) sluice.failure = childFailure(run);
            sluice.runs.push(run);
          }
        }
      }
      if (sluice.failure !== undefined) failures.push(`sluice generation failed on ${pack}: ${sluice.failure}`);

      // Tool definitions and their tokens.
      const inputDocument = input === original ? document : loadDocument(await readFile(input), file);
      const ir = buildOpenAPIPackIR(inputDocument, { name: pack, file, sha256: "bench" });
      const generated = definePack(ir).tools;
      const irTokens = (tools: readonly Tool<object>[]) => tools.reduce((sum, t) => sum + schemaTokens(t), 0);
      const generatedTokens = irTokens(generated);
      if (input !== original) {
        const originalTokens = irTokens(definePack(buildOpenAPIPackIR(document, { name: pack, file, sha256: "bench" })).tools);
        notes.push(
          `† sluice's generated ${pack} tools total ${int(originalTokens)} tokens from the vendored document and ${int(generatedTokens)} from the copy` +
            (originalTokens === generatedTokens ? " (identical)." : "."),
        );
      }
      const twins = new Set(shipped.map((t) => fullNameOf(t.name)));
      const asShipped = shipped.filter((t) => !twins.has(t.name));
      const curatedCount = shipped.length - asShipped.length;
      const sluiceChild = sluice.runs.length > 0 && sluice.failure === undefined ? (JSON.parse(sluice.runs[0]!.stdout) as { tools: number; skipped: number; emittedBytes: number }) : undefined;

      const spec = pack + inputNote;
      timeRows.push(
        summary("sluice", spec, sluice, sluiceChild === undefined ? "" : `${int(sluiceChild.tools)} (${sluiceChild.skipped} skipped)`, sluiceChild === undefined ? "" : `${int(Math.round(sluiceChild.emittedBytes / 1024))} KiB, in memory`),
      );
      let omgTools: GeneratedToolDefinition[] = [];
      if (omg.failure === undefined) {
        const source = await readFile(join(omgOut, "src", "index.ts"), "utf8");
        omgTools = omgToolDefinitions(source);
        const otherFiles = (await readdir(omgOut, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).length - 1;
        timeRows.push(summary("openapi-mcp-generator", spec, omg, int(omgTools.length), `${int(Math.round(Buffer.byteLength(source) / 1024))} KiB src/index.ts + ${otherFiles} small files, on disk`));
      } else {
        timeRows.push(summary("openapi-mcp-generator", spec, omg, "", ""));
      }

      const omgTokens = omgTools.map(definitionTokens);
      const omgTotal = omgTokens.reduce((a, b) => a + b, 0);
      const tokenRow = (label: string, count: number, tokens: number) => [
        spec,
        label,
        int(count),
        int(tokens),
        count === 0 ? "—" : int(Math.round(tokens / count)),
        omgTotal === 0 ? "—" : ratio(tokens / omgTotal),
      ];
      tokenRows.push(tokenRow("sluice, generated", generated.length, generatedTokens));
      tokenRows.push(tokenRow(`sluice pack as shipped, without the ${curatedCount} \`_full\` twins`, asShipped.length, irTokens(asShipped)));
      tokenRows.push(tokenRow("openapi-mcp-generator", omgTools.length, omgTotal));

      if (omg.failure === undefined && sluice.failure === undefined) {
        const timeRatio = median(sluice.runs.map((r) => r.ms)) / median(omg.runs.map((r) => r.ms));
        const rssRatio = median(sluice.runs.map((r) => r.maxRssKiB)) / median(omg.runs.map((r) => r.maxRssKiB));
        ratios.push(
          `${pack}: time ${ratio(timeRatio)}, peak RSS ${ratio(rssRatio)}, schema tokens ${ratio(generatedTokens / omgTotal)} (generated) / ` +
            `${ratio(irTokens(asShipped) / omgTotal)} (shipped pack)`,
        );
        const groups = bodyKinds(ir, generated, omgTools, omgTokens);
        for (const [key, g] of groups) bodyRows.push([spec, key, int(g.count), int(g.sluice), int(g.omg), ratio(g.sluice / g.omg)]);
        const note = formBodyNote(pack, groups, omgTools.length);
        if (note !== undefined) notes.push(note);
      }
    }

    return [
      heading,
      "",
      "Each generator runs as a child process (`node --require bench/report-max-rss.cjs …`, started by `bench/spawn-measured.cjs` so that " +
        "Linux does not carry this process's RSS into the child's maxRSS), on the same document: " +
        "openapi-mcp-generator@4.0.1's CLI (`-i <file> -o <tmp dir>`, external refs off, so nothing is fetched) writes a server project; " +
        "sluice's child (`node --import tsx bench/openapi-generate-child.ts`) loads the document, builds the IR and emits the pack sources in memory. " +
        `Wall time and peak RSS (\`process.resourceUsage().maxRSS\`, written at exit) are medians of ${OPENAPI_RUNS} interleaved runs after one untimed warm-up each. ` +
        "The baselines are startup alone: the sluice child runs its TypeScript through the tsx loader, openapi-mcp-generator is plain JavaScript.",
      "",
      table(["spec", "generator", "tools", "median wall time", "min – max", "peak RSS (median)", "output"], timeRows),
      "",
      "sluice / openapi-mcp-generator (lower means sluice is faster, lighter or smaller):",
      "",
      ...ratios.map((r) => `- ${r}`),
      "",
      "### Total schema tokens",
      "",
      "Canonical JSON of `{name, description, inputSchema}` per tool, o200k_base (`schemaTokens` for sluice tools; " +
        "the same `textTokens(canonicalJson(…))` for openapi-mcp-generator's definitions, read from its generated `src/index.ts` without evaluating it).",
      "",
      table(["spec", "tool set", "tools", "schema tokens", "tokens / tool", "vs openapi-mcp-generator"], tokenRows),
      "",
      "By request body, on the operations both generated (matched by method and path):",
      "",
      table(["spec", "operations", "count", "sluice tokens", "openapi-mcp-generator tokens", "sluice / omg"], bodyRows),
      "",
      ...notes.map((n) => `- ${n}`),
    ].join("\n");
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

interface BodyKindGroup {
  count: number;
  sluice: number;
  omg: number;
}

/**
 * Tokens of the operations both generated (matched by method and path), grouped by the
 * request body as sluice's binding has it, and whether openapi-mcp-generator took that body
 * as one `requestBody` string (what it does with form-encoded bodies).
 */
function bodyKinds(ir: PackIR, generated: readonly Tool<object>[], omgTools: readonly GeneratedToolDefinition[], omgTokens: readonly number[]): Map<string, BodyKindGroup> {
  const tokensByName = new Map(generated.map((t) => [t.name, schemaTokens(t)]));
  const sluiceByOperation = new Map<string, { tokens: number; binding: HttpBinding }>();
  for (const tool of ir.tools) {
    const binding = tool.binding as HttpBinding;
    sluiceByOperation.set(`${binding.method.toUpperCase()} ${binding.path}`, { tokens: tokensByName.get(tool.name)!, binding });
  }
  const groups = new Map<string, BodyKindGroup>();
  omgTools.forEach((tool, i) => {
    const sluice = sluiceByOperation.get(tool.operation);
    if (sluice === undefined) return;
    const body = sluice.binding.body;
    const omgBody = (tool.inputSchema as { properties?: Record<string, { type?: unknown; description?: unknown }> }).properties?.requestBody;
    const omgString = omgBody?.type === "string" && String(omgBody.description).includes("x-www-form-urlencoded");
    const kind =
      body === undefined
        ? "no request body"
        : `${body.encoding} body, ${Object.keys(body.fields ?? {}).length > 0 || body.wholeBodyArg !== undefined ? "with properties" : "empty schema"}`;
    const key = kind + (omgString ? "; omg: one `requestBody` string" : "");
    const group = groups.get(key) ?? { count: 0, sluice: 0, omg: 0 };
    group.count++;
    group.sluice += sluice.tokens;
    group.omg += omgTokens[i]!;
    groups.set(key, group);
  });
  return groups;
}

/** What the body-kind groups show about form-encoded bodies, in one sentence (or nothing). */
function formBodyNote(pack: string, groups: ReadonlyMap<string, BodyKindGroup>, omgToolCount: number): string | undefined {
  const collapsed = [...groups].filter(([key]) => key.endsWith("one `requestBody` string"));
  if (collapsed.length === 0) return undefined;
  const count = collapsed.reduce((sum, [, g]) => sum + g.count, 0);
  const parts = collapsed.map(([key, g]) => `${key.split(";")[0]}: ${int(g.count)} tools, sluice/omg ${ratio(g.sluice / g.omg)}`);
  return (
    `${pack}: openapi-mcp-generator turns every form-encoded body into a single \`requestBody\` string (${int(count)} of ${int(omgToolCount)} tools, ` +
    "also on operations whose body schema is empty), so the agent is not told the body's fields and its token count is not like-for-like. " +
    `By group: ${parts.join("; ")}. The empty-schema group (the same parameters on both sides, plus that string) is the closest to like-for-like.`
  );
}

// ---------------------------------------------------------------- end to end

const CLI = fileURLToPath(new URL("../packages/cli/bin/sluice.mjs", import.meta.url));
const CLI_RUNS = 5;

async function endToEnd(): Promise<string> {
  const heading = "## End to end (`node packages/cli/bin/sluice.mjs survey linear`, child process)";
  if (!existsSync(CLI)) return [heading, "", "skipped: CLI not present"].join("\n");
  const times: number[] = [];
  let outputBytes = 0;
  for (let i = 0; i < CLI_RUNS; i++) {
    const run = await timed(() => spawnSync(process.execPath, [CLI, "survey", "linear"], { cwd: repoRoot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }));
    if (run.value.status !== 0) {
      const reason = run.value.error?.message ?? run.value.stderr.split("\n").find((l) => l.trim() !== "") ?? "";
      return [heading, "", `failed: exit ${String(run.value.status)}: ${reason}`].join("\n");
    }
    times.push(run.ms);
    outputBytes = Buffer.byteLength(run.value.stdout);
  }
  return [
    heading,
    "",
    table(["runs", "median wall time", "min", "max", "stdout"], [[String(CLI_RUNS), ms(median(times)), ms(Math.min(...times)), ms(Math.max(...times)), `${int(outputBytes)} bytes`]]),
  ].join("\n");
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const sections: string[] = [];
  const { markdown, linearIR } = await generation();
  sections.push(markdown);
  console.log(markdown + "\n");
  for (const section of [() => tokenCounting(linearIR), () => pathsByCost(linearIR), openapiBesideGenerator, endToEnd]) {
    const text = await section();
    sections.push(text);
    console.log(text + "\n");
  }
  const header = [
    "# sluice benchmarks",
    "",
    `- command: \`${COMMAND}\``,
    `- date: ${new Date().toISOString()}`,
    `- node: ${process.version}`,
    `- CPU: ${cpus()[0]?.model ?? "unknown"} (${cpus().length} logical cores)`,
    ...(failures.length > 0 ? ["", "**INVALID RUN:**", ...failures.map((f) => `- ${f}`)] : []),
    "",
    "The speed goals of the compiled CLI (what users install) are measured by their own scripts, each",
    "side by side with its reference in one run, whole processes on plain node:",
    "",
    "- bench/GENERATE.md: `sluice generate` beside openapi-mcp-generator on GitHub REST, Stripe and Kubernetes,",
    "  with the floor (node, read, parse, write the same bytes), where the time goes, and the scaling over the",
    "  corpus (`npx pnpm -r build && node --import tsx scripts/bench-generate.ts`);",
    "- bench/STARTUP.md: `sluice --help` / `--version` beside `node -e 0`, `sluice serve` of 500 tools beside a",
    "  bare MCP SDK server (`pnpm bench:startup`);",
    "- bench/PATHS.md: `paths --by-cost` beside one `schemaTokens` (`node --conditions=@sluice/source --import tsx",
    "  scripts/bench-paths.ts`).",
    "",
    "The OpenAPI section below runs the generator from its TypeScript sources (through tsx) and is kept for",
    "its schema-token comparison with openapi-mcp-generator; its times include tsx and are not the CLI's.",
  ].join("\n");
  await mkdir(new URL("./", resultsFile), { recursive: true });
  await writeFile(resultsFile, [header, ...sections].join("\n\n") + "\n");
  console.log(`wrote ${fileURLToPath(resultsFile)}`);
  for (const failure of failures) console.error(`bench: ${failure}`);
  return failures.length > 0 ? 1 : 0;
}

process.exitCode = await main();
