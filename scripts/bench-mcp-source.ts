/**
 * What generating from an MCP server costs and gives, on the vendored snapshots of
 * server-filesystem, server-memory and server-everything (test/fixtures/mcp): o200k tokens
 * of the server's own tools/list definitions (name, description, inputSchema as listed,
 * canonical compact JSON) beside the generated pack's tools as sluice sends them (schemaTokens), and
 * the time to build the IR and emit the pack from a snapshot (median of 5).
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-mcp-source.ts
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { definePack } from "@sluice/core";
import { schemaTokens, textTokens } from "@sluice/core/tokens";
import { canonicalJson } from "@sluice/schema";
import { buildMcpPackIR, emitPackSources } from "@sluice/generator-mcp";
import { parseSnapshot } from "@sluice/mcp-client";

const rows: string[] = [];
for (const name of ["filesystem", "memory", "everything"]) {
  const text = readFileSync(new URL(`../test/fixtures/mcp/server-${name}.snapshot.json`, import.meta.url), "utf8");
  const snapshot = parseSnapshot(text);
  // Counted as schemaTokens counts a tool array: one canonical JSON array of { name, description, inputSchema }.
  const listed = textTokens(canonicalJson(snapshot.tools.map((tool) => ({ name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema }))));
  const times: number[] = [];
  let tools = 0;
  let generated = 0;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    const ir = buildMcpPackIR(snapshot, { name, file: "tools.snapshot.json", sha256: "0" });
    emitPackSources(ir, { runtimeModule: "./runtime.ts" });
    times.push(performance.now() - started);
    const pack = definePack({ name, defs: ir.defs, tools: ir.tools });
    tools = pack.tools.length;
    generated = schemaTokens(pack.tools);
  }
  times.sort((a, b) => a - b);
  rows.push(`| server-${name} | ${tools} | ${listed} | ${generated} | ${times[2]!.toFixed(1)} |`);
}
process.stdout.write(["| server | tools | tokens as listed | tokens as generated | build + emit ms (median of 5) |", "| --- | ---: | ---: | ---: | ---: |", ...rows, ""].join("\n"));
