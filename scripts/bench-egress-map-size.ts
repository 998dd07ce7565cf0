/**
 * What the limits after each visible path's type cost the egress map: bytes and lines of the
 * nine committed packs' maps before (the commit named by --base, default the branch's base)
 * and now, and of three large generated maps (GitHub REST, Stripe, Kubernetes from
 * ../shared/specs, every operation, as `sluice generate` maps them), whose "before" is the
 * same map with the limits taken off the lines (`  {...}`). That stripping is checked on the
 * nine packs: stripped now against the committed before, lines that differ counted (the
 * other changes of the branch: a nullable array's label, quoted enum values).
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-egress-map-size.ts [--base <commit>]
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { definePack, egressMap, formatEgressMap, type PackDefinition } from "@sluice/core";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { splitLimits } from "../packages/core/src/egress-map/compare-limits.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SPECS = join(ROOT, "../shared/specs");
const at = process.argv.indexOf("--base");
const BASE = at >= 0 ? process.argv[at + 1]! : "051cea8";
const PACKS = ["notion", "slack", "gdocs", "gsheets", "gmail", "github", "github-rest", "stripe", "linear"];
const LARGE: Array<[string, string]> = [
  ["GitHub REST (whole spec)", "github-rest/api.github.com.json"],
  ["Stripe (whole spec)", "stripe/spec3.json"],
  ["Kubernetes (whole spec)", "kubernetes/swagger.json"],
];

function withoutLimits(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      if (!/^ *\+ /.test(line)) return line;
      const colon = line.indexOf(": ");
      const split = colon < 0 ? undefined : splitLimits(line.slice(colon + 2));
      return split === undefined ? line : line.slice(0, colon + 2) + split.type;
    })
    .join("\n");
}

const lines = (text: string) => text.split("\n").length - 1;
const limited = (text: string) => text.split("\n").filter((line) => /^ *\+ /.test(line) && line !== withoutLimits(line)).length;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const pct = (after: number, before: number) => `+${(((after - before) / before) * 100).toFixed(1)}%`;

const rows: string[] = [];
let stripChecked = 0;
let stripDiffering = 0;
const totals = { before: 0, after: 0 };
for (const pack of PACKS) {
  const before = execFileSync("git", ["show", `${BASE}:packs/${pack}/egress_map.txt`], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 });
  const after = readFileSync(join(ROOT, "packs", pack, "egress_map.txt"), "utf8");
  const stripped = withoutLimits(after).split("\n");
  const old = before.split("\n");
  stripChecked += old.length;
  for (let i = 0; i < Math.max(old.length, stripped.length); i++) if (old[i] !== stripped[i]) stripDiffering++;
  totals.before += before.length;
  totals.after += after.length;
  rows.push(`| ${pack} | ${lines(after)} | ${limited(after)} | ${kb(before.length)} | ${kb(after.length)} | ${pct(after.length, before.length)} |`);
}
rows.push(`| **nine packs** | | | ${kb(totals.before)} | ${kb(totals.after)} | ${pct(totals.after, totals.before)} |`);
for (const [label, file] of LARGE) {
  const ir = buildOpenAPIPackIR(loadDocument(readFileSync(join(SPECS, file)), file), { name: "bench", file, sha256: "0".repeat(64) });
  const after = formatEgressMap(egressMap(definePack(ir as unknown as PackDefinition).tools));
  const before = withoutLimits(after);
  rows.push(`| ${label} | ${lines(after)} | ${limited(after)} | ${kb(before.length)} | ${kb(after.length)} | ${pct(after.length, before.length)} |`);
}
console.log("| map | lines | lines with limits | before | after | size |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
console.log(`\nStripping the limits from the nine packs' maps gives the committed maps of ${BASE} but ${stripDiffering} of ${stripChecked} lines.`);
