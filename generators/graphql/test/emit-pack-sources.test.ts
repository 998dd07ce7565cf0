import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { buildGraphQLPackIR, emitPackSources, loadGraphQLSchema } from "../src/index.ts";
import { LONG } from "../../../test/support/tier.ts";

const fixture = fileURLToPath(new URL("./fixtures/small.graphql", import.meta.url));
const generatorEntry = fileURLToPath(new URL("../src/index.ts", import.meta.url));

function generate() {
  const schema = loadGraphQLSchema(readFileSync(fixture), { fileName: "small.graphql" });
  const pack = buildGraphQLPackIR(schema, { name: "small", file: "small.graphql", sha256: "0".repeat(64) });
  return { schema, pack, files: emitPackSources(pack) };
}

describe("emitPackSources on a small hand-written schema", () => {
  const { schema, pack, files } = generate();

  it.each(files.map((file) => [file.path, file.text]))("%s matches its snapshot", async (path, text) => {
    await expect(text).toMatchFileSnapshot(`./__snapshots__/small/${path}`);
  });

  it("makes one tool per query and mutation field, skipping subscriptions", () => {
    expect(pack.tools.map((tool) => tool.name)).toEqual(["delete", "issue", "issue_create", "issue_delete", "issues_list", "search"]);
    expect(pack.skipped).toEqual([{ operation: "Subscription.issueChanged", code: "SUBSCRIPTION", reason: "SUBSCRIPTION: subscriptions are not callable as tools" }]);
  });

  it("emits only valid operation documents with the expected selection shapes", () => {
    for (const tool of pack.tools) {
      if (tool.binding.kind !== "graphql") throw new Error("expected graphql binding");
      expect(validate(schema, parse(tool.binding.document))).toEqual([]);
    }
    const doc = (name: string) => (pack.tools.find((tool) => tool.name === name)!.binding as { document: string }).document;
    expect(doc("issues_list")).toContain("pageInfo {\n      hasNextPage\n      endCursor\n    }");
    expect(doc("issues_list")).not.toContain("labels");
    expect(doc("issue_create")).toContain("success\n    lastSyncId\n    issue {\n      id\n      title\n      state\n      assignee {\n        id\n      }\n      meta {\n        createdAt\n      }");
    expect(doc("search")).toContain("... on Issue {\n      id\n    }");
    expect(doc("issue")).not.toContain("legacyScore");
  });

  it("keeps a __proto__ key as data: JSON text, which JSON.parse reads as an own property", () => {
    const withProto = { ...pack, defs: { X: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') } };
    const dataText = emitPackSources(withProto).find((file) => file.path === "src/pack-data.gen.ts")!.text;
    // The data module is plain JavaScript: its exports, run, as defs.gen.ts builds `defs` from them.
    const exports: Record<string, string[]> = {};
    new Function("exports", dataText.replace(/^export const (\w+) = /gm, "exports.$1 = "))(exports);
    const defs = Object.fromEntries(exports["defTexts"]!.map((text) => JSON.parse(text) as [string, unknown])) as { X: { properties: object } };
    const properties = defs.X.properties;
    expect(Object.hasOwn(properties, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
  });

  it("is byte-identical when generated twice in one process", () => {
    expect(generate().files).toEqual(files);
  });

  it("is byte-identical across processes", () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-gql-"));
    try {
      const script = join(dir, "gen.ts");
      writeFileSync(
        script,
        [
          `import { readFileSync } from "node:fs";`,
          `import { buildGraphQLPackIR, emitPackSources, loadGraphQLSchema } from ${JSON.stringify(generatorEntry)};`,
          `const schema = loadGraphQLSchema(readFileSync(${JSON.stringify(fixture)}), { fileName: "small.graphql" });`,
          `const pack = buildGraphQLPackIR(schema, { name: "small", file: "small.graphql", sha256: "${"0".repeat(64)}" });`,
          `process.stdout.write(JSON.stringify(emitPackSources(pack)));`,
        ].join("\n"),
      );
      const run = () => execFileSync(process.execPath, ["--import", "tsx", script], { cwd: fileURLToPath(new URL("../../..", import.meta.url)), encoding: "utf8" });
      // The two processes are this worker and a child (the long tier runs a second child).
      const first = run();
      expect(first).toBe(JSON.stringify(files));
      if (LONG) expect(run()).toBe(first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
