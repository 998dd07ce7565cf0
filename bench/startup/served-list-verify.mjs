// The key check of a pack's stored list on its own, in fresh processes, interleaved: CPU and wall
// ms of verifiedServedList (what serve and survey run before answering) trusted from the stat
// cache, against the full verification (the cache removed first: every source hashed, the list's
// body hashed; the cache written again). Run from a checkout with a built dist/.
//   node bench/startup/served-list-verify.mjs <pack dir> [rounds]
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";

const entry = new URL("../../packages/catalog/dist/served-list-entry.js", import.meta.url).href;
if (process.argv[2] === "--child") {
  const { verifiedServedList, statCacheDir, packCoreVersion } = await import(entry);
  const pack = process.argv[3];
  const cacheDir = statCacheDir(pack);
  if (process.argv[4] === "full") rmSync(cacheDir, { recursive: true, force: true });
  const start = performance.now();
  const cpu = process.cpuUsage();
  const list = verifiedServedList(join(pack, "src"), packCoreVersion(pack), { pageBytes: 4 << 20, cacheDir });
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ wall: performance.now() - start, cpu: (used.user + used.system) / 1000, count: list?.count }));
} else {
  const pack = resolve(process.argv[2]);
  const rounds = Number(process.argv[3] ?? 7);
  const runs = { cached: [], full: [] };
  console.log(`load ${loadavg().map((n) => n.toFixed(1)).join(" ")}`);
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? ["full", "cached"] : ["cached", "full"]) {
      const done = spawnSync(process.execPath, [new URL(import.meta.url).pathname, "--child", pack, mode], { encoding: "utf8" });
      runs[mode].push(JSON.parse(done.stdout));
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const mode of ["cached", "full"]) console.log(`${mode}: ${median(runs[mode].map((r) => r.cpu)).toFixed(0)} ms CPU, ${median(runs[mode].map((r) => r.wall)).toFixed(0)} ms wall (median of ${rounds}; ${runs[mode][0].count} tools)`);
  console.log(`per round, cached / full CPU: ${median(runs.cached.map((r, i) => r.cpu / runs.full[i].cpu)).toFixed(2)}x; load ${loadavg().map((n) => n.toFixed(1)).join(" ")}`);
}
