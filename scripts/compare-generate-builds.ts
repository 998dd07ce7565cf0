/**
 * `sluice generate openapi` of two built checkouts, head against base, in the same run: whole
 * processes in turns (the order flips every round), on GitHub REST (without its URL `$ref`s, as
 * in scripts/bench-generate-speed.ts), Stripe and Kubernetes, each as JSON and as YAML (js-yaml's
 * dump of the same data). Per row: medians of wall time, CPU time (user + system, GC threads
 * included) and peak RSS, and the median of the per-round ratios head / base. On a shared machine
 * the CPU ratio is the figure to read; wall times move with the load (bench/GENERATE-CORE-SPEED.md).
 *
 *   npx pnpm@10.34.8 -r build        (in both checkouts)
 *   node --import tsx scripts/compare-generate-builds.ts --base <checkout> [--head .] [--rounds 9] [--specs github.json,stripe.json,...] [--head-node-args=--flag=N,...]
 *
 * Each child runs as bench/spawn-measured.cjs runs benchmark children (a bare launcher, so the
 * peak RSS is the child's own), with a preload that also reports its CPU time; a launcher
 * does what bin/sluice.mjs does for generate (the heap setting of that checkout's
 * bin/generate-heap.mjs) before it loads that checkout's dist/main.js.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { median } from "./bench-stats.ts";

const { dump } = createRequire(import.meta.url)("js-yaml") as { dump(value: unknown, options: { noRefs: boolean; lineWidth: number }): string };
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values: options } = parseArgs({
  options: {
    base: { type: "string" },
    head: { type: "string", default: "." },
    rounds: { type: "string", default: "9" },
    specs: { type: "string", default: "github.json,github.yaml,stripe.json,stripe.yaml,kubernetes.json,kubernetes.yaml" },
    // Node flags for head's processes only (comma-separated), e.g. --min-semi-space-size=16 with --head equal to --base.
    "head-node-args": { type: "string", default: "" },
  },
});
if (options.base === undefined) throw new Error("--base <built checkout> is required");
const builds = [
  { name: "base", root: resolve(options.base), nodeArgs: [] as string[] },
  { name: "head", root: resolve(ROOT, options.head), nodeArgs: options["head-node-args"].split(",").filter((flag) => flag !== "") },
];
const work = mkdtempSync(join(tmpdir(), "sluice-compare-generate-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

// Inputs, written once for both builds.
const SPECS = join(ROOT, "../shared/specs");
function withoutUrlRefs(document: unknown): void {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    const record = node as Record<string, unknown>;
    if (typeof record["$ref"] === "string" && !(record["$ref"] as string).startsWith("#")) delete record["$ref"];
    for (const value of Object.values(record)) stack.push(value);
  }
}
const github = JSON.parse(readFileSync(join(SPECS, "github-rest/api.github.com.json"), "utf8")) as unknown;
withoutUrlRefs(github);
const sources: Record<string, unknown> = {
  github,
  stripe: JSON.parse(readFileSync(join(SPECS, "stripe/spec3.json"), "utf8")),
  kubernetes: JSON.parse(readFileSync(join(SPECS, "kubernetes/swagger.json"), "utf8")),
};
const specs = options.specs.split(",");
for (const spec of specs) {
  const [name, form] = spec.split(".") as [string, string];
  const data = sources[name];
  if (data === undefined || (form !== "json" && form !== "yaml")) throw new Error(`unknown spec ${spec}`);
  writeFileSync(join(work, spec), form === "json" ? JSON.stringify(data) : dump(data, { noRefs: true, lineWidth: -1 }));
}

const CPU_PRELOAD = join(work, "report-cpu.cjs");
writeFileSync(CPU_PRELOAD, `process.on("exit", () => { const u = process.resourceUsage(); require("node:fs").writeFileSync(process.env.COMPARE_CPU_FILE, String((u.userCPUTime + u.systemCPUTime) / 1000)); });\n`);
for (const build of builds) {
  const launcher = join(work, `${build.name}.mjs`);
  writeFileSync(
    launcher,
    `(await import(${JSON.stringify(pathToFileURL(join(build.root, "packages/cli/bin/generate-heap.mjs")).href)})).keepYoungGenerationSmall();\n` +
      `const { main } = await import(${JSON.stringify(pathToFileURL(join(build.root, "packages/cli/dist/main.js")).href)});\n` +
      "process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });\n",
  );
  Object.assign(build, { launcher });
}

interface Run {
  ms: number;
  cpuMs: number;
  maxRssKiB: number;
}
function run(launcher: string, nodeArgs: readonly string[], spec: string): Run {
  const result = join(work, "measured.json");
  const cpuFile = join(work, "cpu.txt");
  const out = join(work, "out");
  rmSync(out, { recursive: true, force: true });
  const child = spawnSync(process.execPath, [join(ROOT, "bench/spawn-measured.cjs"), result, ...nodeArgs, "--require", CPU_PRELOAD, launcher, "generate", "openapi", join(work, spec), "--name", "bench", "--out", out], {
    cwd: work,
    encoding: "utf8",
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", COMPARE_CPU_FILE: cpuFile },
  });
  const { ms, maxRssKiB, status } = JSON.parse(readFileSync(result, "utf8")) as { ms: number; maxRssKiB: number | null; status: number | null };
  if (status !== 0 || maxRssKiB === null) throw new Error(`generate ${spec} exited ${status}:\n${child.stdout}\n${child.stderr}`);
  return { ms, cpuMs: Number(readFileSync(cpuFile, "utf8")), maxRssKiB };
}

const runs = new Map<string, Record<string, Run[]>>(specs.map((spec) => [spec, { base: [], head: [] }]));
const rounds = Number(options.rounds);
for (let round = 0; round < rounds; round += 1) {
  for (const spec of specs) {
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      const measured = run((build as { launcher: string } & typeof build).launcher, build.nodeArgs, spec);
      runs.get(spec)![build.name]!.push(measured);
      console.error(`round ${round + 1} ${spec} ${build.name}: ${(measured.ms / 1000).toFixed(2)} s, CPU ${(measured.cpuMs / 1000).toFixed(2)} s, ${(measured.maxRssKiB / 1024).toFixed(0)} MiB`);
    }
  }
}

const load = spawnSync("uptime", { encoding: "utf8" }).stdout.trim();
console.log(`${rounds} rounds, ${new Date().toISOString()}, Node ${process.version}; at the end: ${load}`);
console.log("");
console.log("| spec | base wall | head wall | wall ratio | base CPU | head CPU | **CPU ratio** | base peak RSS | head peak RSS | RSS ratio |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const spec of specs) {
  const { base, head } = runs.get(spec)! as { base: Run[]; head: Run[] };
  const ratio = (what: keyof Run) => median(head.map((r, i) => r[what] / base[i]![what])).toFixed(3);
  const s = (list: Run[], what: "ms" | "cpuMs") => `${(median(list.map((r) => r[what])) / 1000).toFixed(2)} s`;
  const m = (list: Run[]) => `${(median(list.map((r) => r.maxRssKiB)) / 1024).toFixed(0)} MiB`;
  console.log(`| ${spec} | ${s(base, "ms")} | ${s(head, "ms")} | ${ratio("ms")} | ${s(base, "cpuMs")} | ${s(head, "cpuMs")} | **${ratio("cpuMs")}** | ${m(base)} | ${m(head)} | ${ratio("maxRssKiB")} |`);
}
