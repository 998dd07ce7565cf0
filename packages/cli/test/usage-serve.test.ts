/**
 * The usage inventory end to end: a project generated from the Petstore spec by
 * `sluice generate`, served by real `sluice serve` processes (stdio, driven by the MCP SDK's
 * client) whose sessions are spread over days with the SLUICE_USAGE_NOW test hook, two of them
 * at once; then `sluice usage` reads what they recorded, suggests the tools no session called,
 * gives the same bytes in the worker and in a child process, and `--apply` writes the
 * exclusion into sluice.config.ts, which `sluice generate` then carries out.
 *
 * The quick tier runs two sessions at once, stamped day 0 and day 8 (asked for with
 * --min-sessions 2), each a `sluice serve --http` run by the CLI's main in the worker
 * (packages/mcp/test/support.ts startHttpInProcess: the serve code a child runs, its usage
 * store opened from the project, one record per MCP session, as for a stdio run), and reads
 * them in the worker; the long tier runs six stdio children over days 0 to 8, two of them at
 * once, and a seventh with --no-usage, uses the defaults (5 sessions, 7 days), compares the
 * report with a child process's, and regenerates after --apply. Recording in process over
 * one transport (stdio's shape) is packages/mcp/test/usage-recording.test.ts's.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LONG } from "../../../test/support/tier.ts";
import { startHttpInProcess, type HttpServed } from "../../mcp/test/support.ts";
import { runChild } from "./support/run-child.ts";
import { runInProcess, runSluice } from "./support/run-in-process.ts";

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SPEC = join(ROOT, "../shared/specs/petstore/petstore-expanded-3.0.json");
const SLOW = 240_000;
const SECRET = "sk_live_51HusageE2Esecret0123456789abcdef";

const CONFIG = `import { defineConfig } from "@sluice/cli/config";

export default defineConfig({
  packs: [
    { name: "pets", spec: "spec/pets.json", out: "packs/pets" },
  ],
});
`;

/** One session: the tools listed, then these calls (tool, arguments). */
type Calls = [string, Record<string, unknown>][];

interface Planned {
  day: number;
  calls: Calls;
  args?: string[];
}

// find_pets and find_pet_by_id are called; add_pet and delete_pet never are.
const QUICK: Planned[][] = [
  [
    { day: 0, calls: [["find_pets", { limit: 2 }]] },
    { day: 8, calls: [["find_pets", { tags: [SECRET] }], ["find_pet_by_id", { id: 7 }]] },
  ],
];
const FULL: Planned[][] = [
  [
    { day: 0, calls: [["find_pets", { limit: 2 }]] },
    { day: 2, calls: [["find_pets", {}], ["find_pets", { limit: 1 }]] },
    { day: 4, calls: [["find_pet_by_id", { id: 1 }]] },
  ],
  [
    { day: 6, calls: [] },
    { day: 8, calls: [["find_pets", { tags: [SECRET] }], ["find_pet_by_id", { id: 7 }]] },
    { day: 8.25, calls: [["find_pets", {}]] },
    { day: 9, calls: [["add_pet", { name: "x" }]], args: ["--no-usage"] },
  ],
];
const PLAN = LONG ? FULL : QUICK;
const RECORDED = PLAN.flat().filter((s) => !(s.args ?? []).includes("--no-usage"));
const MIN_SESSIONS = LONG ? [] : ["--min-sessions", "2"];

let project: string;
let api: Server;
let apiUrl: string;

function at(day: number): string {
  return new Date(Date.UTC(2026, 0, 5) + day * 86_400_000).toISOString();
}

/** A pet store that answers every request: the calls succeed, so what is recorded is a working session's. */
async function startApi(): Promise<void> {
  api = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      response.end(request.url?.startsWith("/pets/") ? `{"id":7,"name":"Rex"}` : `[{"id":7,"name":"Rex"}]`);
    });
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
}

/** The session's tools/list and calls, over a connected client. */
async function drive(client: Client, planned: Planned): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(["add_pet", "delete_pet", "find_pet_by_id", "find_pets"]);
  for (const [name, args] of planned.calls) {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  }
}

/** One session: a `sluice serve` child over stdio, with a clean environment (the long tier's form). */
async function session(planned: Planned): Promise<void> {
  const env: Record<string, string> = { SLUICE_USAGE_NOW: at(planned.day) };
  for (const name of ["PATH", "HOME", "TMPDIR", "NODE_OPTIONS"]) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "serve", "packs/pets", "--base-url", apiUrl, ...(planned.args ?? [])], cwd: project, env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "usage-test", version: "0" });
  try {
    await client.connect(transport);
    await drive(client, planned);
  } catch (error) {
    throw new Error(`session of day ${planned.day} failed: ${(error as Error).message}\n${stderr}`);
  } finally {
    await client.close();
  }
}

/**
 * A batch of sessions, each its own `sluice serve --http` run by main in the worker. They start
 * one after the other (what serve reads at start, SLUICE_USAGE_NOW, is set for each alone, and
 * the developer's SLUICE_USAGE* for none), then all run at once against the one store, and
 * stop (SIGTERM to the stand-in) once their clients have left.
 */
async function batchInWorker(batch: Planned[]): Promise<void> {
  const servers: HttpServed[] = [];
  try {
    for (const planned of batch) {
      const env = { SLUICE_USAGE_NOW: at(planned.day), SLUICE_USAGE: undefined, SLUICE_USAGE_DIR: undefined };
      servers.push(await startHttpInProcess(["packs/pets", "--base-url", apiUrl, ...(planned.args ?? [])], env, project));
    }
    await Promise.all(
      batch.map(async (planned, i) => {
        const served = servers[i]!;
        const client = new Client({ name: "usage-test", version: "0" });
        try {
          await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${served.generatedToken!}` } } }));
          await drive(client, planned);
        } catch (error) {
          throw new Error(`session of day ${planned.day} failed: ${(error as Error).message}\n${served.stderr()}`);
        } finally {
          await client.close();
        }
      }),
    );
  } finally {
    for (const served of servers) expect(await served.stop(), served.stderr()).toBe(0);
  }
}

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "sluice-usage-e2e-"));
  mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
  symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
  symlinkSync(join(ROOT, "packages/cli"), join(project, "node_modules/@sluice/cli"), "dir");
  mkdirSync(join(project, "spec"));
  cpSync(SPEC, join(project, "spec/pets.json"));
  writeFileSync(join(project, "sluice.config.ts"), CONFIG);
  writeFileSync(join(project, "prompt.md"), "You keep a pet store. Use the Find Pets tool to look animals up.\n");
  await startApi();
  const generated = await runSluice(["generate"], { cwd: project, timeout: SLOW });
  expect(generated.code, generated.stderr).toBe(0);
  // Batches in turn, the sessions of a batch at once: several servers writing one store.
  for (const batch of PLAN) await (LONG ? Promise.all(batch.map(session)) : batchInWorker(batch));
}, SLOW);

afterAll(async () => {
  await new Promise((resolve) => api?.close(resolve));
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

interface Report {
  store: string;
  packs: { pack: string; sessions: number; tools: { name: string; sessionsDeclared: number; sessionsInvoked: number; calls: number }[]; suggestions: { tool: string; config: { entry: string } | null }[]; kept: { tool: string; reason: string }[] }[];
}

describe("sluice usage over sessions sluice serve recorded", () => {
  it("records one file per session (none with --no-usage), with names and counts only", () => {
    const sessions = join(project, ".sluice/usage/sessions");
    const files = readdirSync(sessions);
    expect(files).toHaveLength(RECORDED.length);
    const all = files.map((file) => readFileSync(join(sessions, file), "utf8")).join("\n");
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain("Rex");
    expect(files.filter((file) => file.startsWith("20260113T"))).toHaveLength(LONG ? 2 : 1); // day 8
  });

  it("counts per tool and suggests removing the two tools no session called, with their config entry", async () => {
    const result = await runSluice(["usage", "packs/pets", "--json", ...MIN_SESSIONS], { cwd: project, timeout: SLOW });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.store).toBe(".sluice/usage");
    const [pack] = report.packs;
    expect(pack!.sessions).toBe(RECORDED.length);
    const calls = (name: string) => RECORDED.flatMap((s) => s.calls).filter(([tool]) => tool === name).length;
    const invokedIn = (name: string) => RECORDED.filter((s) => s.calls.some(([tool]) => tool === name)).length;
    expect(pack!.tools.map((t) => [t.name, t.sessionsDeclared, t.sessionsInvoked, t.calls])).toEqual(
      ["add_pet", "delete_pet", "find_pet_by_id", "find_pets"].map((name) => [name, RECORDED.length, invokedIn(name), calls(name)]),
    );
    expect(pack!.suggestions.map((s) => [s.tool, s.config?.entry])).toEqual(
      expect.arrayContaining([
        ["add_pet", 'exclude: { tools: ["add_pet"] }'],
        ["delete_pet", 'exclude: { tools: ["delete_pet"] }'],
      ]),
    );
    expect(pack!.suggestions).toHaveLength(2);
  });

  it("keeps a tool the prompt names (in prose, spaces for underscores) and prints the same bytes in another process", async () => {
    const args = ["usage", "sluice.config.ts", "--min-sessions", "2", "--prompt", "prompt.md"];
    const here = await runSluice(args, { cwd: project, timeout: SLOW });
    expect(here.code, here.stderr).toBe(0);
    const again = await runSluice(args, { cwd: project, timeout: SLOW });
    expect(again.stdout).toBe(here.stdout);
    if (LONG) {
      const child = await runChild([BIN, ...args], { cwd: project, timeout: SLOW });
      expect(child).toMatchObject({ code: 0, stdout: here.stdout });
    }
    expect(here.stdout).toContain("add_pet: ");
    expect(here.stdout).toContain('sluice.config.ts packs[0] (pets): exclude: { tools: ["delete_pet"] }');
    expect(here.stdout).not.toMatch(/kept find_pets/); // it is called, so never a candidate
    // Named in prose by the prompt, delete_pet stays.
    writeFileSync(join(project, "prompt2.md"), "Never call Delete-Pet without asking.\n");
    const protectedRun = await runSluice(["usage", "packs/pets", "--json", ...MIN_SESSIONS, "--prompt", "prompt2.md"], { cwd: project, timeout: SLOW });
    const report = JSON.parse(protectedRun.stdout) as Report;
    expect(report.packs[0]!.suggestions.map((s) => s.tool)).toEqual(["add_pet"]);
    expect(report.packs[0]!.kept).toEqual([{ tool: "delete_pet", reason: "named in prompt2.md" }]);
  });

  it("--apply writes the exclusion into sluice.config.ts and says so (the long tier regenerates: the tools are left out)", async () => {
    const applied = await runSluice(["usage", "packs/pets", ...MIN_SESSIONS, "--apply"], { cwd: project, timeout: SLOW });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('--apply changed sluice.config.ts:\n  pack pets: exclude.tools += "add_pet"\n  pack pets: exclude.tools += "delete_pet"\n');
    const config = readFileSync(join(project, "sluice.config.ts"), "utf8");
    expect(config).toBe(CONFIG.replace(`out: "packs/pets" }`, `out: "packs/pets", exclude: { tools: ["add_pet", "delete_pet"] } }`));
    const again = await runSluice(["usage", "packs/pets", ...MIN_SESSIONS, "--apply"], { cwd: project, timeout: SLOW });
    expect(again.stdout).toContain("--apply: nothing to change");
    if (!LONG) return;
    const generated = await runSluice(["generate"], { cwd: project, timeout: SLOW });
    expect(generated.code, generated.stderr).toBe(0);
    const map = readFileSync(join(project, "packs/pets/egress_map.txt"), "utf8");
    expect(map).not.toMatch(/^tool (add_pet|delete_pet)$/m);
    expect(map).toMatch(/^tool find_pets$/m);
  });
});

describe("sluice serve's usage store", () => {
  it("refuses to start when .sluice leads out of the project, with USAGE_DIR_UNSAFE, and writes nothing there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-usage-link-"));
    const outside = mkdtempSync(join(tmpdir(), "sluice-usage-outside-"));
    try {
      mkdirSync(join(dir, "node_modules/@sluice"), { recursive: true });
      symlinkSync(join(ROOT, "packages/core"), join(dir, "node_modules/@sluice/core"), "dir");
      writeFileSync(
        join(dir, "tools.mjs"),
        `import { Tool } from "@sluice/core";\nexport const tools = [Tool.create({ name: "ping", description: "Ping.", inputSchema: { type: "object", properties: {} }, binding: { kind: "http", method: "GET", path: "/ping", parameters: [] } })];\n`,
      );
      symlinkSync(outside, join(dir, ".sluice"), "dir");
      // The store is checked before anything is served, so this returns without reading stdin.
      const refused = await runInProcess(["serve", "tools.mjs"], { cwd: dir, env: { SLUICE_USAGE: undefined, SLUICE_USAGE_DIR: undefined } });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^sluice: USAGE_DIR_UNSAFE: the usage store .*\.sluice is a symbolic link to .*, outside /m);
      expect(readdirSync(outside)).toEqual([]);
      const badClock = await runInProcess(["serve", "tools.mjs", "--usage-dir", "elsewhere"], { cwd: dir, env: { SLUICE_USAGE_NOW: "last tuesday" } });
      expect(badClock.stderr).toMatch(/^sluice: INVALID_OPTION: SLUICE_USAGE_NOW must be an ISO 8601 time/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
