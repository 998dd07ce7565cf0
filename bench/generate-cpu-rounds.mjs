// Whole `sluice generate <spec> --name bench --out <fresh dir>` processes from the compiled dist/
// of two or more built trees side by side, in interleaved rounds (the order rotates each round),
// timed by /usr/bin/time (wall, peak RSS) and by the process itself at its exit (user+system CPU,
// process.cpuUsage: microseconds, where /usr/bin/time counts 10 ms steps). For comparing two builds
// (a base commit against this one, bundled against one file per module) on a machine whose load
// moves between runs.
//   node bench/generate-cpu-rounds.mjs ROUNDS SPEC[,SPEC...] LABEL=DIR ...
// DIR is a built tree (`pnpm -r build` in a worktree, or bench/startup/built-copy.mjs). Each run
// starts its dist/ the way the installed bin does (the young generation kept small for generate,
// then dist/main.js), so a tree that still has src/ is not run from source.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

if (process.argv[2] === "--launch") {
  // `--launch DIR <sluice args>`: what packages/cli/bin/sluice.mjs does for generate when installed.
  const [dir, ...argv] = process.argv.slice(3);
  (await import(pathToFileURL(join(dir, "packages/cli/bin/generate-heap.mjs")).href)).keepYoungGenerationSmall();
  const { main } = await import(pathToFileURL(join(dir, "packages/cli/dist/main.js")).href);
  process.exitCode = await main(argv, { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
} else {

  const [rounds, specList, ...variantSpecs] = process.argv.slice(2);
  if (rounds === undefined || specList === undefined || variantSpecs.length < 1) throw new Error("usage: node bench/generate-cpu-rounds.mjs ROUNDS SPEC[,SPEC...] LABEL=DIR ...");
  const specs = specList.split(",");
  const variants = variantSpecs.map((spec) => ({ label: spec.split("=")[0], dir: spec.slice(spec.indexOf("=") + 1) }));
  const AT_EXIT = `data:text/javascript,${encodeURIComponent('process.on("exit", () => { const c = process.cpuUsage(); process.stderr.write("\\nCPU_MS " + (c.user + c.system) / 1000 + "\\n"); });')}`;
  const work = mkdtempSync(join(tmpdir(), "generate-cpu-rounds-"));
  const results = new Map(); // `${spec}\0${label}` -> [{ wall, cpu, rss }]
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };

  function run(variant, spec) {
    const out = join(work, "pack");
    rmSync(out, { recursive: true, force: true });
    const child = spawnSync("/usr/bin/time", ["-f", "TIME %e %U %S %M", process.execPath, "--import", AT_EXIT, fileURLToPath(import.meta.url), "--launch", variant.dir, "generate", spec, "--name", "bench", "--out", out], { cwd: work, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" } });
    const line = child.stderr.split("\n").find((text) => text.startsWith("TIME "));
    if (child.status !== 0 || line === undefined) throw new Error(`${variant.label} ${spec}: exit ${child.status}\n${child.stderr}`);
    const cpu = child.stderr.split("\n").find((text) => text.startsWith("CPU_MS "));
    if (cpu === undefined) throw new Error(`${variant.label} ${spec}: no CPU_MS line\n${child.stderr}`);
    const [wall, , , rss] = line.slice(5).split(" ").map(Number);
    return { wall: wall * 1000, cpu: Number(cpu.slice(7)), rss: rss / 1024 };
  }

  const loadStart = loadavg()[0];
  for (const spec of specs) for (const variant of variants) run(variant, spec); // warm the file cache, untimed
  for (let round = 0; round < Number(rounds); round++) {
    for (const spec of specs) {
      for (let i = 0; i < variants.length; i++) {
        const variant = variants[(i + round) % variants.length];
        const key = `${spec}\0${variant.label}`;
        results.set(key, [...(results.get(key) ?? []), run(variant, spec)]);
      }
    }
    process.stderr.write(`round ${round + 1}/${rounds}, load ${loadavg()[0].toFixed(1)}\n`);
  }
  rmSync(work, { recursive: true, force: true });

  const lines = [`${rounds} interleaved rounds, load average (1 min) ${loadStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end; medians, and the median of per-round ratios against ${variants[0].label}`, "", "| spec | variant | wall ms | CPU ms | peak RSS MiB | wall vs first | CPU vs first | CPU per round |", "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"];
  for (const spec of specs) {
    const base = results.get(`${spec}\0${variants[0].label}`);
    for (const variant of variants) {
      const rows = results.get(`${spec}\0${variant.label}`);
      const ratio = (field) => median(rows.map((row, i) => row[field] / base[i][field])).toFixed(2);
      lines.push(`| ${basename(spec)} | ${variant.label} | ${median(rows.map((r) => r.wall)).toFixed(0)} | ${median(rows.map((r) => r.cpu)).toFixed(0)} | ${median(rows.map((r) => r.rss)).toFixed(0)} | ${ratio("wall")}x | ${ratio("cpu")}x | ${rows.map((r) => r.cpu.toFixed(0)).join(" ")} |`);
    }
  }
  process.stdout.write(lines.join("\n") + "\n");
}
