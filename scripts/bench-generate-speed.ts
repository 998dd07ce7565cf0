/**
 * `sluice generate openapi` against openapi-mcp-generator (its anchor, measured in the same
 * run) on GitHub REST, Stripe and Kubernetes, each as JSON and as YAML, and the scaling of both
 * from one to eight disjoint copies of Kubernetes (scripts/build-kubernetes-copies.ts), JSON
 * and YAML, with a least-squares fit against operations (bench/GENERATE-SPEED.md).
 *
 * Whole processes, spawn to exit; peak RSS is the child's own maxRSS (bench/spawn-measured.cjs).
 * sluice runs from the CLI's compiled dist/ on plain node, as installed users run it (the
 * launcher does what bin/sluice.mjs does for generate before it loads main.js);
 * openapi-mcp-generator runs its CLI, writing its project to a fresh folder. Rounds are
 * interleaved (each round runs every spec and both generators once, in a rotating order), and a
 * ratio is the median of the per-round ratios sluice / openapi-mcp-generator: on a shared
 * machine the ratio within a round is what holds.
 *
 *   npx pnpm@10.34.8 -r build
 *   node --import tsx scripts/bench-generate-speed.ts [--rounds 5] [--scaling-rounds 1] [--copies 1,2,3,4,5,6,7,8] [--out bench/GENERATE-SPEED.md]
 *
 * GitHub REST is measured on a copy without its 6 URL `$ref`s (inside examples), which
 * openapi-mcp-generator would otherwise try to fetch; both read the same copy.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createRequire } from "node:module";
import { writeKubernetesCopies } from "./build-kubernetes-copies.ts";
import { median, fit } from "./bench-stats.ts";

/** js-yaml ships no types; its dump is all these benches use of it. */
const { dump } = createRequire(import.meta.url)("js-yaml") as { dump(value: unknown, options: { noRefs: boolean; lineWidth: number }): string };

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    "scaling-rounds": { type: "string", default: "1" },
    copies: { type: "string", default: "1,2,3,4,5,6,7,8" },
    out: { type: "string", default: "bench/GENERATE-SPEED.md" },
  },
});
const ROUNDS = Number(options.rounds);
const SCALING_ROUNDS = Number(options["scaling-rounds"]);
const COPIES = options.copies.split(",").map(Number);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SPECS = join(ROOT, "../shared/specs");
const SPAWN_MEASURED = join(ROOT, "bench/spawn-measured.cjs");
const CLI_DIST = join(ROOT, "packages/cli/dist/main.js");
const OMG_BIN = join(ROOT, "node_modules/openapi-mcp-generator/bin/openapi-mcp-generator.js");
const OMG_VERSION = (JSON.parse(readFileSync(join(ROOT, "node_modules/openapi-mcp-generator/package.json"), "utf8")) as { version: string }).version;
// Children run as in a user's project: no inherited loader, no source condition.
const ENV = { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "" };
for (const required of [CLI_DIST, OMG_BIN]) if (!existsSync(required)) throw new Error(`${required} is missing: run \`npx pnpm@10.34.8 -r build\` first`);

const uptime = () => spawnSync("uptime", { encoding: "utf8" }).stdout.trim();
const uptimeAtStart = uptime();
const work = mkdtempSync(join(tmpdir(), "sluice-bench-generate-speed-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

const SLUICE_LAUNCHER = join(work, "sluice-dist.mjs");
writeFileSync(
  SLUICE_LAUNCHER,
  `(await import(${JSON.stringify(pathToFileURL(join(ROOT, "packages/cli/bin/generate-heap.mjs")).href)})).keepYoungGenerationSmall();\n` +
    `const { main } = await import(${JSON.stringify(pathToFileURL(CLI_DIST).href)});\n` +
    "process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });\n",
);

interface Measured {
  ms: number;
  maxRssKiB: number;
  stdout: string;
}
let runs = 0;
function measure(args: readonly string[]): Measured {
  const result = join(work, "measured.json");
  const run = spawnSync(process.execPath, [SPAWN_MEASURED, result, ...args], { env: ENV, cwd: work, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const { ms, maxRssKiB, status } = JSON.parse(readFileSync(result, "utf8")) as { ms: number; maxRssKiB: number | null; status: number | null };
  if (status !== 0 || maxRssKiB === null) throw new Error(`node ${args.join(" ")} exited ${status}:\n${run.stdout}\n${run.stderr}`);
  return { ms, maxRssKiB, stdout: run.stdout };
}
type Generator = "sluice" | "openapi-mcp-generator";
const GENERATORS: readonly Generator[] = ["sluice", "openapi-mcp-generator"];
function generate(generator: Generator, spec: string): Measured {
  runs += 1;
  const out = join(work, `out-${runs}`);
  try {
    return generator === "sluice"
      ? measure([SLUICE_LAUNCHER, "generate", "openapi", spec, "--name", "bench", "--out", out])
      : // A base URL is given so that specs with several servers do not stop it.
        measure([OMG_BIN, "--input", spec, "--output", out, "--base-url", "https://api.example.invalid"]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------
// Inputs: each spec as JSON and as YAML (js-yaml's dump of the same data).

/** GitHub REST without its URL `$ref`s (they sit in examples; openapi-mcp-generator would fetch them). */
function withoutUrlRefs(document: unknown): number {
  let removed = 0;
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    const record = node as Record<string, unknown>;
    if (typeof record["$ref"] === "string" && !(record["$ref"] as string).startsWith("#")) {
      delete record["$ref"];
      removed += 1;
    }
    for (const value of Object.values(record)) stack.push(value);
  }
  return removed;
}
const specsDir = join(work, "specs");
mkdirSync(specsDir);
function bothForms(name: string, file: string, document: unknown): { name: string; spec: string }[] {
  const json = join(specsDir, `${file}.json`);
  const yaml = join(specsDir, `${file}.yaml`);
  writeFileSync(json, JSON.stringify(document));
  writeFileSync(yaml, dump(document, { noRefs: true, lineWidth: -1 }));
  return [
    { name: `${name}, JSON`, spec: json },
    { name: `${name}, YAML`, spec: yaml },
  ];
}
const github = JSON.parse(readFileSync(join(SPECS, "github-rest/api.github.com.json"), "utf8")) as unknown;
const removedRefs = withoutUrlRefs(github);
const SIDE_BY_SIDE = [
  ...bothForms(`GitHub REST (without its ${removedRefs} URL refs)`, "github", github),
  ...bothForms("Stripe", "stripe", JSON.parse(readFileSync(join(SPECS, "stripe/spec3.json"), "utf8"))),
  ...bothForms("Kubernetes", "kubernetes", JSON.parse(readFileSync(join(SPECS, "kubernetes/swagger.json"), "utf8"))),
];

/** `<name>: N tools (openapi)` and `skipped K:` from sluice's output. */
function operationsOf(stdout: string): number {
  const match = /: (\d+) tools \(openapi\)/.exec(stdout);
  if (match === null) throw new Error(`unexpected output: ${stdout}`);
  const skipped = /^ {2}skipped (\d+):/m.exec(stdout);
  return Number(match[1]) + (skipped === null ? 0 : Number(skipped[1]));
}

interface Row {
  name: string;
  spec: string;
  operations?: number;
  measured: Record<Generator, Measured[]>;
}
function runRounds(rows: Row[], rounds: number, label: string): void {
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < rows.length; i += 1) {
      const row = rows[(i + round) % rows.length]!;
      const order = round % 2 === 0 ? GENERATORS : [...GENERATORS].reverse();
      for (const generator of order) {
        const measured = generate(generator, row.spec);
        if (generator === "sluice") row.operations ??= operationsOf(measured.stdout);
        row.measured[generator].push(measured);
      }
      const [s, o] = [row.measured.sluice.at(-1)!, row.measured["openapi-mcp-generator"].at(-1)!];
      console.log(`${label} round ${round + 1} ${row.name}: sluice ${(s.ms / 1000).toFixed(2)} s ${(s.maxRssKiB / 1024).toFixed(0)} MiB, omg ${(o.ms / 1000).toFixed(2)} s ${(o.maxRssKiB / 1024).toFixed(0)} MiB`);
    }
  }
}
const newRow = (name: string, spec: string): Row => ({ name, spec, measured: { sluice: [], "openapi-mcp-generator": [] } });

const sideBySide = SIDE_BY_SIDE.map(({ name, spec }) => newRow(name, spec));
runRounds(sideBySide, ROUNDS, "side by side");

const copies = writeKubernetesCopies(join(work, "copies"), COPIES);
const scaling = copies.flatMap((c) => [newRow(`x${c.copies} JSON`, c.json), newRow(`x${c.copies} YAML`, c.yaml)]);
runRounds(scaling, SCALING_ROUNDS, "scaling");

// ---------------------------------------------------------------------------------------
const uptimeAtEnd = uptime();
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const m = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
const ratios = (row: Row, what: "ms" | "maxRssKiB") => row.measured.sluice.map((run, i) => run[what] / row.measured["openapi-mcp-generator"][i]![what]);
const cells = (row: Row) => {
  const [sl, omg] = [row.measured.sluice, row.measured["openapi-mcp-generator"]];
  return `${s(median(sl.map((r) => r.ms)))} | ${s(median(omg.map((r) => r.ms)))} | **${median(ratios(row, "ms")).toFixed(2)}x** | ${m(median(sl.map((r) => r.maxRssKiB)))} | ${m(median(omg.map((r) => r.maxRssKiB)))} | **${median(ratios(row, "maxRssKiB")).toFixed(2)}x**`;
};
const lines = [
  "# Generate speed: sluice vs openapi-mcp-generator, JSON and YAML",
  "",
  `Measured ${new Date().toISOString()} on ${cpus().length} x ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}.`,
  `Load: \`${uptimeAtStart}\` at the start, \`${uptimeAtEnd}\` at the end (2 cores shared with other sessions: read the ratios, taken within each round).`,
  "",
  "```",
  "npx pnpm@10.34.8 -r build",
  `node --import tsx scripts/bench-generate-speed.ts --rounds ${ROUNDS} --scaling-rounds ${SCALING_ROUNDS} --copies ${COPIES.join(",")}`,
  "```",
  "",
  `Whole processes, spawn to exit, peak RSS the child's own (bench/spawn-measured.cjs). sluice: \`sluice generate openapi <spec> --name bench --out <dir>\` from packages/cli/dist on plain node; ` +
    `openapi-mcp-generator ${OMG_VERSION} (the anchor): its CLI, \`--input <spec> --output <dir> --base-url https://api.example.invalid\`. ` +
    `Medians of ${ROUNDS} interleaved rounds; a ratio is the median of the per-round ratios sluice / openapi-mcp-generator. YAML inputs are js-yaml's dump of the same data.`,
  "",
  "| spec | operations | sluice wall | omg wall | wall ratio | sluice peak RSS | omg peak RSS | RSS ratio |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...sideBySide.map((row) => `| ${row.name} | ${row.operations} | ${cells(row)} |`),
  "",
  "Per-round ratios (wall / RSS):",
  "",
  ...sideBySide.map((row) => `- ${row.name}: ${ratios(row, "ms").map((r, i) => `${r.toFixed(2)}x / ${ratios(row, "maxRssKiB")[i]!.toFixed(2)}x`).join(", ")}`),
  "",
  "## Scaling: 1 to 8 disjoint copies of Kubernetes",
  "",
  `\`scripts/build-kubernetes-copies.ts\` (copy 1 is the spec itself). Medians of ${SCALING_ROUNDS} interleaved round(s).`,
  "",
  "| spec | operations | sluice wall | omg wall | wall ratio | sluice peak RSS | omg peak RSS | RSS ratio |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...scaling.map((row) => `| Kubernetes ${row.name} | ${row.operations} | ${cells(row)} |`),
  "",
  "Least-squares fits against operations:",
  "",
];
for (const form of ["JSON", "YAML"]) {
  const rows = scaling.filter((row) => row.name.endsWith(form));
  const xs = rows.map((row) => row.operations!);
  for (const generator of GENERATORS) {
    const wall = fit(xs, rows.map((row) => median(row.measured[generator].map((r) => r.ms))));
    const rss = fit(xs, rows.map((row) => median(row.measured[generator].map((r) => r.maxRssKiB / 1024))));
    lines.push(
      `- ${form}, ${generator}: wall = ${wall.a.toFixed(0)} ms + ${wall.b.toFixed(3)} ms x operations (R² = ${wall.r2.toFixed(3)}); ` +
        `peak RSS = ${rss.a.toFixed(0)} MiB + ${(rss.b * 1024).toFixed(1)} KiB x operations (R² = ${rss.r2.toFixed(3)})`,
    );
  }
}
lines.push("");
const outFile = join(ROOT, options.out);
// The hand-written notes below the generated part are kept.
const MARK = "## Notes (hand-written; the script keeps this section)";
const notes = existsSync(outFile) ? readFileSync(outFile, "utf8").split(MARK)[1] : undefined;
writeFileSync(outFile, `${lines.join("\n")}\n${notes === undefined ? "" : `${MARK}${notes}`}`);
console.log(`wrote ${options.out}`);
