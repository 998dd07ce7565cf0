/**
 * What the MCP generator's own work costs, in-process, for two checkouts side by side: the
 * snapshot to the tool IR (buildMcpPackIR) and the response hints of its tools
 * (mcpResponseHints), the two steps that differ between a generator that goes through an
 * OpenAPI document and one that does not. Rounds alternate between the checkouts; median ms.
 * Startup, parsing the snapshot, emitting and writing are the same code in both and left out.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-mcp-ir.ts <checkout A> <checkout B> [--rounds 21]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

const args = process.argv.slice(2);
const at = args.indexOf("--rounds");
const rounds = at === -1 ? 21 : Number(args[at + 1]);
const trees = args.filter((arg, i) => arg !== "--rounds" && i !== at + 1);
const SNAPSHOTS = ["notion", "circleci", "github", "playwright", "server-everything", "server-filesystem"];

interface Generator {
  buildMcpPackIR(snapshot: unknown, source: { name: string; file: string; sha256: string }): { tools: unknown[] };
  mcpResponseHints(snapshot: unknown, tools: unknown[]): unknown;
}
const loaded = await Promise.all(
  trees.map(async (tree) => ({
    generator: (await import(pathToFileURL(join(tree, "generators/mcp/src/index.ts")).href)) as Generator,
    parse: ((await import(pathToFileURL(join(tree, "packages/mcp-client/src/snapshot.ts")).href)) as { parseSnapshot(text: string): unknown }).parseSnapshot,
  })),
);
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const rows: string[] = [];
for (const name of SNAPSHOTS) {
  const text = readFileSync(join(trees[0]!, `test/fixtures/mcp/${name}.snapshot.json`), "utf8");
  const times = trees.map(() => [] as number[]);
  const outputs = new Set<string>();
  for (let round = 0; round < rounds; round++) {
    loaded.forEach(({ generator, parse }, t) => {
      const snapshot = parse(text);
      const started = performance.now();
      const ir = generator.buildMcpPackIR(snapshot, { name, file: "tools.snapshot.json", sha256: "0" });
      const hints = generator.mcpResponseHints(snapshot, ir.tools);
      times[t]!.push(performance.now() - started);
      if (round === 0) outputs.add(JSON.stringify([ir, hints]));
    });
  }
  rows.push(`| ${name} | ${times.map((list) => median(list).toFixed(1)).join(" | ")} | ${outputs.size === 1 ? "yes" : "NO"} |`);
}
process.stdout.write([`| snapshot | ${trees.map((tree) => `${tree} (ms)`).join(" | ")} | same IR and hints |`, `| --- | ${trees.map(() => "---:").join(" | ")} | --- |`, ...rows, ""].join("\n"));
