/**
 * A pack made from an MCP server, served whole (no projection), is never larger than the
 * server's own tools/list, for every real server whose listing is committed under
 * test/fixtures/mcp (see its SOURCE.md): sluice adds nothing the server did not declare
 * (title, outputSchema and annotations as listed; none invented), and its conversion to
 * 2020-12 may not grow a definition.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { definePack, type Tool } from "@sluice/core";
import { textTokens } from "@sluice/core/tokens";
import { parseSnapshot } from "@sluice/mcp-client";
import { ServedCatalog } from "@sluice/mcp";
import { buildMcpPackIR } from "../generators/mcp/src/build-pack-ir.ts";
import { ROOT } from "./support/mcp-pack.ts";

const DIR = join(ROOT, "test/fixtures/mcp");
const FILES = readdirSync(DIR).filter((file) => file.endsWith(".snapshot.json")).sort();

describe("served whole, never larger than the server's tools/list", () => {
  it("covers at least eight real servers", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(8);
  });

  it.each(FILES)("%s", (file) => {
    const snapshot = parseSnapshot(readFileSync(join(DIR, file), "utf8"));
    const ir = buildMcpPackIR(snapshot, { name: "served", file, sha256: "" });
    const catalog = new ServedCatalog(definePack(ir).tools as Tool<object>[]);
    const served = catalog.tools.map((tool) => catalog.definition(tool));
    expect(textTokens(JSON.stringify(served))).toBeLessThanOrEqual(textTokens(JSON.stringify(snapshot.tools)));
    // Annotations, title and output schema exactly as declared, per tool.
    for (const upstream of snapshot.tools) {
      const mine = served.find((entry) => entry.name === upstream.name.replace(/[^a-zA-Z0-9_-]/g, "_"));
      if (mine === undefined) continue; // a tool the converter refused is not served at all
      expect({ title: mine.title, annotations: mine.annotations, outputSchema: mine.outputSchema }).toEqual({ title: upstream.title, annotations: upstream.annotations, outputSchema: upstream.outputSchema });
    }
  });
});
