/**
 * Spec patterns: which linear-time engine, and what it costs (issue 21, item 5).
 * Compile time over every pattern in ../shared/specs and test/fixtures/outside, match time
 * per call, the hostile `^(a+)+$` against 10 .. 100k characters with V8's backtracking
 * RegExp as the anchor (in a worker, capped), and where each engine reads ECMA syntax
 * differently. re2js is a dependency of @sluice/core; re2 (native) and re2-wasm are measured
 * when installed in RE2_BENCH_DIR (npm install re2 re2-wasm there; they are not dependencies).
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-patterns.ts [--out bench/PATTERNS.md]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { parse } from "yaml";
import { specPatternTest, translateSpecPattern } from "@sluice/core";

// re2js is @sluice/core's dependency, not the workspace root's.
const { RE2JS } = createRequire(new URL("../packages/core/package.json", import.meta.url))("re2js") as { RE2JS: { compile(p: string): { test(s: string): boolean } } };
const { values } = parseArgs({ options: { out: { type: "string" } } });
interface Engine { name: string; compile(p: string): { test(s: string): boolean } }
const engines: Engine[] = [{ name: "re2js (raw)", compile: (p) => RE2JS.compile(p) }];
const dir = process.env.RE2_BENCH_DIR;
if (dir !== undefined) {
  const req = createRequire(join(dir, "package.json"));
  try {
    const RE2 = req("re2") as new (p: string, f: string) => { test(s: string): boolean };
    engines.push({ name: "re2 (native)", compile: (p) => new RE2(p, "u") });
  } catch (error) { console.error(`re2: ${(error as Error).message}`); }
  try {
    const { RE2 } = req("re2-wasm") as { RE2: new (p: string, f: string) => { test(s: string): boolean } };
    engines.push({ name: "re2-wasm", compile: (p) => new RE2(p, "u") });
  } catch (error) { console.error(`re2-wasm: ${(error as Error).message}`); }
}

const patterns = new Set<string>();
const walk = (node: unknown): void => {
  if (Array.isArray(node)) return node.forEach(walk);
  if (node === null || typeof node !== "object") return;
  for (const [k, v] of Object.entries(node)) {
    if (k === "pattern" && typeof v === "string") patterns.add(v);
    if (k === "patternProperties" && v && typeof v === "object") Object.keys(v).forEach((p) => patterns.add(p));
    walk(v);
  }
};
const files = (d: string): string[] => readdirSync(d).flatMap((f) => { const p = join(d, f); return statSync(p).isDirectory() ? files(p) : /\.(ya?ml|json)$/.test(p) ? [p] : []; });
for (const root of ["../shared/specs", "test/fixtures/outside"]) for (const f of files(root)) { try { walk(parse(readFileSync(f, "utf8"), { maxAliasCount: -1 })); } catch { /* not a spec */ } }

const lines: string[] = [];
const say = (line = "") => { lines.push(line); console.log(line); };
const ms = (n: number) => (n < 0.01 ? n.toFixed(4) : n < 10 ? n.toFixed(3) : n.toFixed(0));

const verdicts = [...patterns].map((p) => [p, translateSpecPattern(p)] as const);
const runnable = verdicts.filter(([, v]) => v.ok).map(([p, v]) => [p, (v as { re2: string }).re2] as const);
const counts = new Map<string, number>();
for (const [, v] of verdicts) counts.set(v.ok ? "runnable" : v.code, (counts.get(v.ok ? "runnable" : v.code) ?? 0) + 1);
say(`## Corpus patterns`);
say();
say(`${patterns.size} distinct patterns (\`pattern\` and \`patternProperties\` keys) in ../shared/specs and test/fixtures/outside: ${[...counts].map(([k, n]) => `${k} ${n}`).join(", ")}.`);
for (const [p, v] of verdicts) if (!v.ok) say(`- ${v.code}: \`${p.length > 80 ? p.slice(0, 80) + "..." : p}\` (${v.reason.slice(0, 90)})`);
say();

say(`## Compile and match, per pattern (the ${runnable.length} runnable corpus patterns, translated)`);
say();
say(`| engine | compile, all ${runnable.length} (ms) | test, per call on a 40-char string (µs) |`);
say(`| --- | ---: | ---: |`);
const sample = "abc-DEF_123.example@host:8080/path?q=1 x";
const all: Engine[] = [{ name: "V8 RegExp (backtracking)", compile: (p) => new RegExp(p, "u") }, ...engines];
for (const engine of all) {
  const source = (p: string, re2: string) => (engine.name.startsWith("V8") || engine.name !== "re2js (raw)" ? (engine.name.startsWith("V8") ? p : re2) : re2);
  let t = performance.now();
  const compiled = runnable.map(([p, re2]) => engine.compile(source(p, re2)));
  const compileMs = performance.now() - t;
  const rounds = 200;
  t = performance.now();
  for (let r = 0; r < rounds; r++) for (const c of compiled) c.test(sample);
  const perCall = ((performance.now() - t) * 1000) / (rounds * compiled.length);
  say(`| ${engine.name} | ${ms(compileMs)} | ${perCall.toFixed(2)} |`);
}
let t0 = performance.now();
for (const [p] of runnable) translateSpecPattern(p);
say(`| sluice translation (ECMA -> RE2 syntax, incl. RE2JS compile) | ${ms(performance.now() - t0)} | |`);
say();

/** V8's RegExp in a worker, stopped after `capMs`. */
function backtracking(pattern: string, text: string, capMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const worker = new Worker(`const { parentPort, workerData } = require("node:worker_threads"); const t = performance.now(); new RegExp(workerData.pattern, "u").test(workerData.text); parentPort.postMessage(performance.now() - t);`, { eval: true, workerData: { pattern, text } });
    const timer = setTimeout(() => { void worker.terminate(); resolve(undefined); }, capMs);
    worker.once("message", (elapsed: number) => { clearTimeout(timer); void worker.terminate(); resolve(elapsed); });
  });
}

const CAP_MS = 5_000;
say(`## \`^(a+)+$\` against n \`a\`s then \`b\` (one check, ms)`);
say();
say(`| n | V8 RegExp (cap ${CAP_MS / 1000} s) | sluice specPatternTest (re2js) | ${engines.slice(1).map((e) => e.name).join(" | ")} |`);
say(`| ---: | ---: | ---: |${engines.slice(1).map(() => " ---: |").join("")}`);
for (const n of [10, 20, 25, 100, 1_000, 10_000, 100_000]) {
  const text = "a".repeat(n) + "b";
  const native = n <= 100 ? await backtracking("^(a+)+$", text, CAP_MS) : undefined;
  const nativeText = native === undefined ? (n <= 100 ? `> ${CAP_MS} (stopped)` : "not run (> cap at n = 100)") : ms(native);
  specPatternTest("^(a+)+$", "warm");
  let t = performance.now();
  specPatternTest("^(a+)+$", text);
  const ours = performance.now() - t;
  const others = engines.slice(1).map((e) => { const c = e.compile("^(a+)+$"); const s = performance.now(); c.test(text); return ms(performance.now() - s); });
  say(`| ${n} | ${nativeText} | ${ms(ours)} | ${others.join(" | ")} |`);
}
say();

say(`## ECMA-262 meaning (what V8 says) vs each engine given the pattern as written, and sluice's translation`);
say();
const cases: Array<[string, string]> = [["^\\s$", "\v"], ["^\\s$", "\u00a0"], ["^.$", "\r"], ["^.$", "\u2028"], ["^.$", "😀"], ["^a$", "a\n"], ["^[^]$", "x"], ["^\\uD83D\\uDE00$", "😀"], ["^\\p{Letter}$", "a"], ["^\\p{sc=Greek}$", "α"], ["^[[:a]+$", ":a["], ["^\\d$", "٣"], ["^\\w$", "é"]];
say(`| pattern | input | V8 (u) | ${engines.map((e) => e.name).join(" | ")} | sluice |`);
say(`| --- | --- | --- |${engines.map(() => " --- |").join("")} --- |`);
for (const [p, s] of cases) {
  const raw = engines.map((e) => { try { return String(e.compile(p).test(s)); } catch { return "error"; } });
  say(`| \`${p}\` | ${JSON.stringify(s)} | ${new RegExp(p, "u").test(s)} | ${raw.join(" | ")} | ${specPatternTest(p, s)} |`);
}
say();
say(`Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`);
if (values.out !== undefined) await writeFile(values.out, lines.join("\n") + "\n");
