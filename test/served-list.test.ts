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
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { formatServedList, packCoreVersion, packSourceDigest, packSourceFiles, parseServedList, servedListDigest } from "@sluice/catalog/served-list";
import { ServedCatalog } from "@sluice/mcp";
import { createServedListServer, createServer, serveStdio } from "@sluice/mcp/serve";
import { PassThrough } from "node:stream";
import { currentServedList } from "../packages/cli/src/stored-list.ts";
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

/**
 * Every tools/list page a server writes on stdio (serve's transport), as the raw lines: a
 * client of newline-delimited JSON-RPC that initializes and follows the cursors.
 */
async function rawListing(server: Parameters<typeof serveStdio>[0]): Promise<string[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  let buffered = "";
  const waiting: Array<(line: string) => void> = [];
  const lines: string[] = [];
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end + 1);
      buffered = buffered.slice(end + 1);
      const next = waiting.shift();
      if (next === undefined) lines.push(line);
      else next(line);
    }
  });
  const ask = (message: object) => {
    const answer = new Promise<string>((resolve) => (lines.length > 0 ? resolve(lines.shift()!) : waiting.push(resolve)));
    input.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    return answer;
  };
  const handle = await serveStdio(server, { input, output });
  try {
    await ask({ id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const line = await ask({ id: pages.length + 1, method: "tools/list", params: cursor === undefined ? {} : { cursor } });
      pages.push(line);
      cursor = (JSON.parse(line) as { result: { nextCursor?: string } }).result.nextCursor;
    } while (cursor !== undefined);
    return pages;
  } finally {
    await handle.close();
  }
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
    const listed = catalogList(module);
    expect(JSON.stringify(list.definitions())).toBe(JSON.stringify(listed));
    expect(list.names()).toEqual(listed.map((definition) => (definition as { name: string }).name));
    // Every page serve copies from the file's bytes is JSON.stringify's text of those definitions, byte for byte.
    for (const size of [1, 7, 19, 40]) {
      for (let from = 0; from < 19; from += size) expect(list.listedJson(from, from + size).toString("utf8"), `${from}+${size}`).toBe(JSON.stringify(listed.slice(from, from + size)));
    }
    expect(list.digest).toBe(servedListDigest(packSourceFiles(join(dir, "src")), packCoreVersion(dir)));
    // Read back and written again, the same bytes: the shared $defs go back where they stood.
    expect(formatServedList(parseServedList(read(LIST))!.definitions(), list.digest, undefined, list.twins)).toBe(read(LIST));
  });

  it("on stdio, every tools/list line serve writes from the list's bytes is the line the loaded pack's server writes", async () => {
    const module = (await import(pathToFileURL(join(dir, "src/index.ts")).href)) as PackToolSets;
    const stored = currentServedList(dir, project)!;
    expect(stored.count).toBe(19);
    const fromList = await rawListing(createServedListServer({ count: stored.count, listedJson: stored.listedJson, lentJson: stored.lentJson, load: async () => new ServedCatalog(module) }, { pageSize: 7 }));
    const loaded = await rawListing(createServer(new ServedCatalog(module), { pageSize: 7 }));
    expect(fromList.length).toBe(3);
    expect(fromList).toEqual(loaded);
  });

  it("pages a reader has not yet taken stay as written: the list's memory is reused only for bytes that have left", async () => {
    const module = (await import(pathToFileURL(join(dir, "src/index.ts")).href)) as PackToolSets;
    const stored = currentServedList(dir, project)!;
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 1 << 24 });
    const server = createServedListServer({ count: stored.count, listedJson: stored.listedJson, lentJson: stored.lentJson, load: async () => new ServedCatalog(module) }, { pageSize: 7 });
    const handle = await serveStdio(server, { input, output });
    // Three pages asked one after the other (the cursors are offsets), nothing read until all three are out.
    const cursor = (offset: number) => Buffer.from(JSON.stringify({ offset }), "utf8").toString("base64url");
    for (const [id, params] of [[1, {}], [2, { cursor: cursor(7) }], [3, { cursor: cursor(14) }]] as const) {
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params })}\n`);
      await new Promise((done) => setTimeout(done, 20));
    }
    let text = "";
    for (let waited = 0; text.split("\n").length < 4 && waited < 200; waited++) {
      await new Promise((done) => setTimeout(done, 10));
      if (waited > 20) text += (output.read() as Buffer | null)?.toString("utf8") ?? "";
    }
    await handle.close();
    const listed = catalogList(module);
    const lines = text.split("\n").slice(0, 3).map((line) => JSON.parse(line) as { id: number; result: { tools: unknown[] } });
    expect(lines.map((line) => line.id)).toEqual([1, 2, 3]);
    for (const line of lines) expect(JSON.stringify(line.result.tools)).toBe(JSON.stringify(listed.slice((line.id - 1) * 7, line.id * 7)));
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
  const definitions = [
    { name: "dash", description: "a \u2014 b, caf\u00e9, \u{1F600}", inputSchema: { type: "object", $defs: { "N\u00e4me": { const: "\u2028" }, "7": { type: "string" } }, properties: { a: { $ref: "#/$defs/7" } } }, annotations: { readOnlyHint: true } },
    { name: "plain", description: "no shared types", inputSchema: { type: "object" } },
    { name: "none", description: "empty", inputSchema: { $defs: {}, type: "object" } },
    { name: "again", description: "the same entry again", inputSchema: { type: "object", properties: { b: { $ref: "#/$defs/7" } }, $defs: { "7": { type: "string" } } } },
  ];
  /** The list with its body edited as `edit` says and its body digest made to match again: only the reader's own checks stand. */
  const rewritten = (text: string, edit: (body: string) => string) => {
    const headEnd = text.indexOf("\n") + 1;
    const body = edit(text.slice(headEnd));
    const head = text.slice(0, headEnd).replace(/"body":"[0-9a-f]{64}"/, `"body":"${createHash("sha256").update(body, "utf8").digest("hex")}"`);
    return head + body;
  };

  it("is UTF-8 as JSON.stringify writes it, reads back (bytes or text) to the same definitions, and every range of them is JSON.stringify's bytes", () => {
    const text = formatServedList(definitions, null);
    expect(text).toContain("a \u2014 b, caf\u00e9");
    // One shared entry, written once.
    expect(text.split('{"7":{"type":"string"}}').length).toBe(2);
    for (const list of [parseServedList(Buffer.from(text, "utf8")), parseServedList(text)]) {
      expect(JSON.stringify(list!.definitions())).toBe(JSON.stringify(definitions));
      expect(list!.names()).toEqual(["dash", "plain", "none", "again"]);
      for (let from = 0; from <= 4; from++) for (let to = from; to <= 5; to++) expect(list!.listedJson(from, to).toString("utf8"), `${from}..${to}`).toBe(JSON.stringify(definitions.slice(from, to)));
    }
  });

  it("is not read when a byte of it changed (its body digest), when a splice offset is off by one, or in an older format", () => {
    const text = formatServedList(definitions, null);
    expect(rewritten(text, (body) => body)).toBe(text);
    // A description edited by hand, the digest left as it was.
    expect(parseServedList(text.replace("no shared types", "no shared typos"))).toBeUndefined();
    // Each offset one byte either way (the digest made to match): the entries would land beside the empty $defs.
    for (const shift of [-1, 1]) {
      const shifted = rewritten(text, (body) => body.replace(/"at":(\d+)/, (_, at: string) => `"at":${Number(at) + shift}`));
      expect(shifted).not.toBe(text);
      expect(parseServedList(shifted), `shift ${shift}`).toBeUndefined();
    }
    // An entry index past the table.
    expect(parseServedList(rewritten(text, (body) => body.replace('{"defs":[0,1]', '{"defs":[0,2]')))).toBeUndefined();
    expect(parseServedList(text.replace('"format":3', '"format":2'))).toBeUndefined();
    // A list of the format before (each tool's $defs as indices, no body digest) is not read: serve loads the pack.
    const older = '{"generated":"x","format":2,"digest":null,"count":1,"twins":0,\n"defs": [\n["A",{}]\n],\n"tools": [\n{"name":"a","inputSchema":{"$defs":[0]}}\n]}\n';
    expect(parseServedList(older)).toBeUndefined();
  });
});
