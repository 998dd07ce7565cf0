/**
 * Tokens of a pack's tool definitions (o200k, as sent) with and without `readOnly: true`,
 * on real specs, built in memory as `sluice generate` builds them.
 *   node --conditions=@sluice/source --import tsx scripts/bench-config-choices.ts
 */
import { fileURLToPath } from "node:url";
import { definePack } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { buildPack } from "@sluice/pipeline";

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const specs: Array<[string, string]> = [
  ["Petstore 3.0", at("../../shared/specs/petstore/swagger-petstore-3.0.yaml")],
  ["Spotify", at("../test/fixtures/outside/spotify.yaml")],
  ["Box", at("../test/fixtures/outside/box.yaml")],
  ["LaunchDarkly", at("../test/fixtures/outside/launchdarkly.yaml")],
];
console.log("| spec | tools | tokens | readOnly tools | readOnly tokens | share |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const [label, spec] of specs) {
  const row: number[] = [];
  for (const readOnly of [false, true]) {
    const { ir } = await buildPack({ name: "bench", spec, out: "/nonexistent", regenerate: "", ...(readOnly ? { readOnly } : {}) }, "0.0.0");
    const tools = definePack({ name: ir.name, defs: ir.defs, ...(ir.withheldMembers === undefined ? {} : { withheldMembers: ir.withheldMembers }), tools: ir.tools }).tools;
    row.push(tools.length, schemaTokens(tools));
  }
  console.log(`| ${label} | ${row[0]} | ${row[1]!.toLocaleString("en")} | ${row[2]} | ${row[3]!.toLocaleString("en")} | ${((100 * row[3]!) / row[1]!).toFixed(1)}% |`);
}
