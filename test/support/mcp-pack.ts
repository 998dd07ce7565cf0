/**
 * MCP packs for proxy tests, made in a temporary folder from a real server: its
 * `tools/list` snapshotted into `spec/tools.snapshot.json` (as `sluice generate` writes
 * it) and a module that builds the pack's tools from that snapshot with the MCP
 * generator's IR, then projects them as a curated file would.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatSnapshot, listMcpTools, type McpSnapshot, type McpSource } from "@sluice/mcp-client";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = join(ROOT, "packages/cli/bin/sluice.mjs");

/** The entry file of an npm-installed server package (its bin), run with this Node. */
export function serverBin(name: "server-filesystem" | "server-memory" | "server-everything"): string {
  const dist = { "server-filesystem": "dist/index.js", "server-memory": "dist/index.js", "server-everything": "dist/index.js" }[name];
  return join(ROOT, "node_modules/@modelcontextprotocol", name, dist);
}

/** Lists `source` and writes the snapshot; returns it. */
export async function snapshotInto(dir: string, source: McpSource): Promise<McpSnapshot> {
  const snapshot = await listMcpTools(source);
  writeSnapshotInto(dir, snapshot);
  return snapshot;
}

export function writeSnapshotInto(dir: string, snapshot: McpSnapshot): void {
  mkdirSync(join(dir, "spec"), { recursive: true });
  writeFileSync(join(dir, "spec/tools.snapshot.json"), formatSnapshot(snapshot));
}

/**
 * The pack module: `body` sees `tool(name)` (a generated tool by its wire name) and must
 * export `tools`. Imports go to this checkout's sources by path, the copies the CLI runs.
 */
export function writePackModule(dir: string, body: string): string {
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "mcp-test-pack", type: "module", exports: { ".": "./src/index.ts" } }));
  const file = join(dir, "src/index.ts");
  writeFileSync(
    file,
    [
      `import { readFileSync } from "node:fs";`,
      `import { definePack } from ${JSON.stringify(join(ROOT, "packages/core/src/index.ts"))};`,
      `import { parseSnapshot } from ${JSON.stringify(join(ROOT, "packages/mcp-client/src/snapshot.ts"))};`,
      `import { buildMcpPackIR } from ${JSON.stringify(join(ROOT, "generators/mcp/src/build-pack-ir.ts"))};`,
      `const snapshot = parseSnapshot(readFileSync(new URL("../spec/tools.snapshot.json", import.meta.url), "utf8"));`,
      `const pack = definePack(buildMcpPackIR(snapshot, { name: "mcptest", file: "tools.snapshot.json", sha256: "" }));`,
      `const tool = (name: string) => pack.tool(name);`,
      body,
      "",
    ].join("\n"),
  );
  return file;
}
