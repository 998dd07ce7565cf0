import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@sluice/schema";
import { toAnthropic, toBedrock, toGemini, toMCP, toOpenAIChat, toOpenAIResponses } from "../src/adapters/index.ts";
import { fixtureTools, sluiceErrorOf } from "./adapters-fixtures.ts";
import { printAdapters } from "./adapters-print.ts";
import { LONG } from "../../../test/support/tier.ts";

const run = promisify(execFile);
const printScript = fileURLToPath(new URL("./adapters-print.ts", import.meta.url));

const adapters: [string, (tools: ReturnType<typeof fixtureTools>, order?: "as-given") => { name?: string; function?: { name: string }; toolSpec?: { name: string } }[]][] = [
  ["toOpenAIChat", (t, order) => toOpenAIChat(t, order ? { order } : {})],
  ["toOpenAIResponses", (t, order) => toOpenAIResponses(t, order ? { order } : {})],
  ["toAnthropic", (t, order) => toAnthropic(t, order ? { order } : {})],
  ["toGemini parameters", (t, order) => toGemini(t, order ? { form: "parameters", order } : { form: "parameters" })],
  ["toGemini parametersJsonSchema", (t, order) => toGemini(t, order ? { form: "parametersJsonSchema", order } : { form: "parametersJsonSchema" })],
  ["toBedrock", (t, order) => toBedrock(t, order ? { order } : {})],
  ["toMCP", (t, order) => toMCP(t, order ? { order } : {})],
];

const nameOf = (entry: { name?: string; function?: { name: string }; toolSpec?: { name: string } }): string | undefined =>
  entry.name ?? entry.function?.name ?? entry.toolSpec?.name;

describe("adapters are deterministic", () => {
  // The two processes are this worker (after whatever other files ran in it) and a child;
  // the long tier adds a second child.
  it("print byte-identical JSON.stringify output in two separate processes", async () => {
    const here = printAdapters();
    const children = await Promise.all(Array.from({ length: LONG ? 2 : 1 }, () => run(process.execPath, ["--import", "tsx", printScript], { maxBuffer: 64 * 1024 * 1024 })));
    expect(here.length).toBeGreaterThan(100_000);
    for (const child of children) expect(child.stdout).toBe(here);
  });

  it.each(adapters)("%s: sorts by name by default, whatever order the tools come in", (_name, adapt) => {
    const tools = fixtureTools();
    const forward = JSON.stringify(adapt(tools));
    expect(JSON.stringify(adapt([...tools].reverse()))).toBe(forward);
    expect(adapt(tools).map(nameOf)).toEqual(["chat_post_message", "issue_create", "issues_list", "post_search"]);
  });

  it.each(adapters)("%s: keeps the caller's order with order: as-given", (_name, adapt) => {
    const tools = fixtureTools();
    expect(adapt(tools, "as-given").map(nameOf)).toEqual(tools.map((t) => t.name));
  });

  it.each(adapters)("%s: refuses two tools with one name", (_name, adapt) => {
    const tools = fixtureTools();
    expect(sluiceErrorOf(() => adapt([...tools, tools[0]!])).code).toBe("INVALID_NAME");
  });

  it.each(adapters)("%s: neither changes the tools' schemas nor shares objects with them", (_name, adapt) => {
    const tools = fixtureTools();
    const before = tools.map((t) => canonicalJson(t.inputSchema));
    const output = adapt(tools);
    expect(tools.map((t) => canonicalJson(t.inputSchema))).toEqual(before);
    const inputObjects = new Set<object>();
    for (const tool of tools) collectObjects(tool.inputSchema, inputObjects);
    const outputObjects = new Set<object>();
    collectObjects(output, outputObjects);
    expect([...outputObjects].filter((o) => inputObjects.has(o))).toEqual([]);
    expect([...outputObjects].some((o) => Object.isFrozen(o))).toBe(false);
  });
});

function collectObjects(value: unknown, into: Set<object>): void {
  const stack = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== "object" || current === null || into.has(current)) continue;
    into.add(current);
    stack.push(...Object.values(current));
  }
}
