/**
 * A pack's served list (src/served-tools.gen.json): what `sluice serve` answers tools/list
 * from before it loads the pack. On a pack a user generates: the list is exactly what the
 * loaded pack serves (held against ServedCatalog, the server's own listing, and against a
 * serve that loads the pack); an edit of the pack's hand-written sources that generate has
 * not seen (a projection added to curated.ts) is never answered from the old list, and
 * generate --check names the list; a call through the stored list loads the pack and is
 * screened by it; a source whose imports the key cannot see gets a keyless list. The quick
 * tier spawns serve once (after the edit: the worker holds the pack's modules as they were)
 * and runs the first serve by main in the worker over HTTP (packages/mcp/test/support.ts
 * startHttpInProcess: the same serve code, listing from the same file); regenerating after
 * the edit and `sluice narrow` run in the long tier, and the first serve is a child there too.
 */
import { isAscii } from "node:buffer";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { formatServedList, packCoreVersion, packSourceDigest, packSourceFiles, parseServedList, servedListDigest } from "@sluice/catalog/served-list";
import { ServedCatalog } from "@sluice/mcp";
import type { PackToolSets } from "@sluice/core";
import { runSluice } from "../packages/cli/test/support/run-in-process.ts";
import { LONG } from "./support/tier.ts";
import { connectHttp, startHttpInProcess } from "../packages/mcp/test/support.ts";
import { listToolPages } from "./support/list-tool-pages.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "packages/cli/bin/sluice.mjs");
const SPEC = join(ROOT, "../shared/specs/petstore/swagger-petstore-3.0.yaml");
const SLOW = 300_000;
const LIST = "src/served-tools.gen.json";

const project = mkdtempSync(join(tmpdir(), "sluice-served-list-"));
const dir = join(project, "packs/petstore");
const read = (path: string) => readFileSync(join(dir, path), "utf8");

function sluice(args: string[]) {
  return runSluice(args, { cwd: project, timeout: SLOW });
}

/** Every page of tools/list, then one call. */
async function listAndCall(client: Client, call?: { name: string; arguments: Record<string, unknown> }): Promise<{ tools: unknown[]; called: unknown }> {
  const tools: unknown[] = (await listToolPages(client)).flatMap((page) => page.tools);
  return { tools, called: call === undefined ? undefined : await client.callTool(call) };
}

/** `sluice serve <pack>` over stdio: every page of tools/list, one call, and what serve said on stderr. */
async function served(pack: string, call?: { name: string; arguments: Record<string, unknown> }): Promise<{ tools: unknown[]; called: unknown; stderr: string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "serve", pack, "--page-size", "7"], cwd: project, env: { ...process.env } as Record<string, string>, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "served-list-test", version: "0" });
  try {
    await client.connect(transport);
    return { ...(await listAndCall(client, call)), stderr };
  } finally {
    await client.close();
  }
}

/** The same, by main in this worker over HTTP: only while the worker holds the pack's modules as they are on disk. */
async function servedInWorker(pack: string, call?: { name: string; arguments: Record<string, unknown> }): Promise<{ tools: unknown[]; called: unknown; stderr: string }> {
  const server = await startHttpInProcess([pack, "--page-size", "7"], { SLUICE_MCP_TOKEN: undefined }, project);
  try {
    const client = await connectHttp(server);
    const answers = await listAndCall(client, call);
    await client.close();
    return { ...answers, stderr: server.stderr() };
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

/** The definitions ServedCatalog lists for a pack module: what serve lists once the pack is loaded. */
function catalogList(module: PackToolSets): unknown[] {
  const catalog = new ServedCatalog(module);
  return catalog.tools.map((tool) => catalog.definition(tool));
}

beforeAll(async () => {
  // As a user's project: the pack imports @sluice/core from its own node_modules.
  mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
  symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
  const generated = await sluice(["generate", SPEC, "--name", "petstore", "--out", "packs/petstore"]);
  expect(generated.code, generated.stderr).toBe(0);
}, SLOW);
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("a generated pack's served list", () => {
  it("holds exactly what ServedCatalog lists for the pack as loaded, keyed by its sources as written", async () => {
    const module = (await import(pathToFileURL(join(dir, "src/index.ts")).href)) as PackToolSets;
    const list = parseServedList(read(LIST))!;
    expect(list.count).toBe(19);
    expect(JSON.stringify(list.definitions())).toBe(JSON.stringify(catalogList(module)));
    expect(list.digest).toBe(servedListDigest(packSourceFiles(join(dir, "src")), packCoreVersion(dir)));
    // Read back and written again, the same bytes: the shared $defs go back where they stood.
    expect(formatServedList(parseServedList(read(LIST))!.definitions(), list.digest, undefined, list.twins)).toBe(read(LIST));
  });

  it(
    "serve answers tools/list from it, page by page, the same bytes as a serve that loads the pack; a call loads the pack and is screened",
    async () => {
      const fast = await (LONG ? served : servedInWorker)(dir, { name: "get_pet_by_id", arguments: { petId: "not a number" } });
      expect(fast.stderr).toContain(`listed from its packs/petstore/${LIST}`);
      const module = (await import(pathToFileURL(join(dir, "src/index.ts")).href)) as PackToolSets;
      expect(JSON.stringify(fast.tools)).toBe(JSON.stringify(catalogList(module)));
      expect(fast.called).toMatchObject({ isError: true, _meta: { "sluice/error": { code: "INVALID_ARGUMENTS" } } });
      expect(fast.stderr).toContain(`sluice serve: loaded ${dir}\n`);
    },
    SLOW,
  );

  it(
    "an edit generate has not seen (a projection in curated.ts) is never served from the old list, and generate --check names the list",
    async () => {
      const stale = read(LIST);
      const curated = read("src/curated.ts").replace(
        "export const curated: readonly Tool<object>[] = [];",
        'export const curated: readonly Tool<object>[] = [curate(generated.updatePet, { drop: ["tags"] })];',
      );
      expect(curated).not.toBe(read("src/curated.ts"));
      writeFileSync(join(dir, "src/curated.ts"), curated);
      const edited = await served(dir);
      expect(edited.stderr).not.toContain("listed from");
      const updatePet = edited.tools.find((tool) => (tool as { name: string }).name === "update_pet") as { inputSchema: { properties: Record<string, unknown> } };
      expect(Object.keys(updatePet.inputSchema.properties)).not.toContain("tags");
      expect(read(LIST)).toBe(stale);
      expect(stale).toContain('"tags"');

      const check = await sluice(["generate", "--check", SPEC, "--name", "petstore", "--out", "packs/petstore"]);
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(/OUT OF DATE: .*src\/served-tools\.gen\.json/);
      if (!LONG) return;
      // Regenerated, the list is the narrowed pack's and keyed by the edit; serve answers from it again.
      expect((await sluice(["generate", SPEC, "--name", "petstore", "--out", "packs/petstore"])).code).toBe(0);
      const again = await served(dir);
      expect(again.stderr).toContain("listed from");
      expect(JSON.stringify(again.tools)).toBe(JSON.stringify(edited.tools));
    },
    SLOW,
  );

  it.runIf(LONG)(
    "sluice narrow rewrites the list with curated.ts, so the pack stays listed from it and generate --check stays green",
    async () => {
      const narrowed = await sluice(["narrow", "./packs/petstore", "find_pets_by_status", "--name", "pets_by_status", "--drop", "status"]);
      expect(narrowed.code, narrowed.stderr).toBe(0);
      const list = parseServedList(read(LIST))!;
      expect(list.digest).toBe(servedListDigest(packSourceFiles(join(dir, "src")), packCoreVersion(dir)));
      const listed = list.definitions().find((definition) => definition.name === "pets_by_status")!;
      expect(Object.keys(listed.inputSchema["properties"] as object)).not.toContain("status");
      const check = await sluice(["generate", "--check", SPEC, "--name", "petstore", "--out", "packs/petstore"]);
      expect(check.stdout, check.stderr).toContain("up to date");
      expect(check.code).toBe(0);
    },
    SLOW,
  );

  it("a source that imports beyond src/ (or names outputSchemas) gets no key: its list is never served", () => {
    const files = packSourceFiles(join(dir, "src"));
    const version = packCoreVersion(dir);
    expect(servedListDigest(files, version)).toMatch(/^[0-9a-f]{64}$/);
    const withImport = (line: string) => new Map([...files, ["index.ts", Buffer.from(`${line}\n${read("src/index.ts")}`)]]);
    expect(servedListDigest(withImport('import { extra } from "../../shared/extra.ts";'), version)).toBeUndefined();
    expect(servedListDigest(withImport('import { extra } from "@acme/tools";'), version)).toBeUndefined();
    expect(servedListDigest(withImport("export const outputSchemas = {};"), version)).toBeUndefined();
    expect(servedListDigest(withImport('import { readFileSync } from "node:fs";'), version)).toMatch(/^[0-9a-f]{64}$/);
    // Another @sluice/core, another key.
    expect(servedListDigest(files, "9.9.9")).not.toBe(servedListDigest(files, version));
  });
});

describe("the key as serve computes it (streamed from disk)", () => {
  // A generated file past the 1 MiB read buffer: edits on either side of a chunk's edge.
  const src = mkdtempSync(join(tmpdir(), "sluice-served-key-"));
  afterAll(() => rmSync(src, { recursive: true, force: true }));
  const header = "// @generated by test\n// Regenerate: sluice generate spec.json --name x --out .\n";
  const body = Buffer.alloc(3 * 1024 * 1024 + 17, "abcdefgh");
  const write = (generated: Buffer) => {
    writeFileSync(join(src, "tools.gen.ts"), generated);
    writeFileSync(join(src, "index.ts"), 'import { tools } from "./tools.gen.ts";\nexport { tools };\n');
    mkdirSync(join(src, "sub"), { recursive: true });
    writeFileSync(join(src, "sub/notes.json"), "{}\n");
  };
  const keys = () => ({ streamed: packSourceDigest(src, "1.0.0"), held: servedListDigest(packSourceFiles(src), "1.0.0") });

  it("is the key generate writes, and every same-size edit of a generated file changes it", () => {
    const original = Buffer.concat([Buffer.from(header), body]);
    write(original);
    const first = keys();
    expect(first.streamed).toMatch(/^[0-9a-f]{64}$/);
    expect(first.streamed).toBe(first.held);
    const seen = new Set([first.streamed]);
    for (const at of [header.length + 3, 1024 * 1024 - 1, 1024 * 1024, 2 * 1024 * 1024 + 5, original.length - 1]) {
      const edited = Buffer.from(original);
      edited[at] = edited[at] === 0x7a ? 0x79 : 0x7a;
      write(edited);
      const key = keys();
      expect(key.streamed, `byte ${at}`).toBe(key.held);
      expect(seen.has(key.streamed!), `byte ${at}`).toBe(false);
      seen.add(key.streamed!);
    }
    // The Regenerate line alone is no change (generate --check lets it differ), in both.
    write(Buffer.concat([Buffer.from(header.replace("--out .", "--out packs/x")), body]));
    expect(keys()).toEqual(first);
  });

  it("is none when a hand-written source imports beyond src/, streamed or held", () => {
    write(Buffer.concat([Buffer.from(header), body]));
    writeFileSync(join(src, "index.ts"), 'import { extra } from "../../shared/extra.ts";\n');
    expect(keys()).toEqual({ streamed: undefined, held: undefined });
  });
});

describe("the stored list's text", () => {
  it("is ASCII whatever the definitions say, and reads back (bytes or text) to the same definitions", () => {
    const definitions = [{ name: "dash", description: "a \u2014 b, caf\u00e9, \u{1F600}", inputSchema: { type: "object", $defs: { "N\u00e4me": { const: "\u2028" } } } }];
    const text = formatServedList(definitions, null);
    expect(isAscii(Buffer.from(text, "utf8"))).toBe(true);
    for (const read of [parseServedList(Buffer.from(text, "latin1")), parseServedList(text)]) expect(JSON.stringify(read!.definitions())).toBe(JSON.stringify(definitions));
    // A list written before (raw UTF-8) still reads, as UTF-8.
    const raw = text.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    expect(isAscii(Buffer.from(raw, "utf8"))).toBe(false);
    expect(JSON.stringify(parseServedList(Buffer.from(raw, "utf8"))!.definitions())).toBe(JSON.stringify(definitions));
  });
});
