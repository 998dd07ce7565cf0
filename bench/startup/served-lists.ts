// Every tools/list definition of the nine packs, as `sluice serve` lists them (ServedCatalog,
// default served set and with the *_full twins), in one JSON file: run it on two checkouts
// (from source) and compare the files byte for byte to show a change lists the same tools.
//   node --conditions=@sluice/source --import tsx bench/startup/served-lists.ts OUT.json
import { writeFileSync } from "node:fs";
import { ServedCatalog } from "@sluice/mcp/serve";

const PACKS = ["linear", "github", "stripe", "github-rest", "slack", "gmail", "gdocs", "gsheets", "notion"];
const out: Record<string, unknown> = {};
for (const name of PACKS) {
  const pack = (await import(`@sluice/pack-${name}`)) as ConstructorParameters<typeof ServedCatalog>[0];
  for (const includeFull of [false, true]) {
    const catalog = new ServedCatalog(pack, { includeFull });
    out[`${name}${includeFull ? "+full" : ""}`] = catalog.tools.map((tool) => catalog.definition(tool));
  }
}
const file = process.argv[2];
if (file === undefined) throw new Error("usage: node --conditions=@sluice/source --import tsx bench/startup/served-lists.ts OUT.json");
writeFileSync(file, JSON.stringify(out));
