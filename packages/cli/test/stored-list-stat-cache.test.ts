/**
 * The stat cache behind a pack's stored list (verifiedServedList, through currentServedList:
 * serve and survey). After one full verification, a start that finds every file of src/ and
 * the list with the stamp recorded (device, inode, size, mtime, ctime) reads no source; any
 * change a stamp can show, and any doubt about the cache, is a full verification, so an edit
 * is never answered from the old list. Each adversarial case is also run with the guard off
 * (a naive cache: the named files' size and mtime), where the stale list IS trusted: the
 * guard is what catches it. The racy case (an edit in the tick the stamp was taken, which
 * leaves every stamp as it was) cannot be made on a file system with fine timestamps; it is
 * made by stamping the file inside the verification's window (utimes into the future), which
 * is what such an edit leaves.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { parseServedList } from "@sluice/catalog/served-list";
import { currentServedList, recordServedListKey } from "../src/stored-list.ts";
import { loadTools } from "../src/load-tools.ts";
import { connectHttp, startHttpInProcess } from "../../mcp/test/support.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SLOW = 120_000;
const project = mkdtempSync(join(tmpdir(), "sluice-stat-cache-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));
mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
const CACHE = join(project, "node_modules/.cache/sluice");

/** A committed pack (Google Docs' unless named) copied into the project (its list is current there: the same sources, the same core). */
async function pack(name: string, from = "gdocs"): Promise<string> {
  cpSync(join(ROOT, `packs/${from}/src`), join(project, name, "src"), { recursive: true, preserveTimestamps: true });
  cpSync(join(ROOT, `packs/${from}/package.json`), join(project, name, "package.json"));
  // Past the racy window of files just written: the verification below then records every stamp.
  await sleep(30);
  return name;
}

/** The cache file that vouches for `name`'s src/. */
function cacheOf(name: string): string | undefined {
  const src = join(project, name, "src");
  let files: string[] = [];
  try {
    files = readdirSync(CACHE).filter((file) => file.endsWith(".json"));
  } catch {
    return undefined;
  }
  return files.map((file) => join(CACHE, file)).find((file) => readFileSync(file, "latin1").includes(JSON.stringify(src)));
}

/** A same-size edit (`from` and `to` of one length) with the file's mtime put back, as a careful tool could leave it. */
function sameSizeEdit(file: string, from: string, to: string): void {
  expect(to.length).toBe(from.length);
  const before = statSync(file);
  const text = readFileSync(file, "utf8");
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
  utimesSync(file, before.atime, before.mtime);
  expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
  expect(statSync(file).size).toBe(before.size);
}

/** The cache's record, and the cache rewritten with `edit` applied to it, its checksum made whole (as only a deliberate forgery would). */
function recordOf(cache: string): Record<string, unknown> & { at: string; src: string; core: string; files: string[][] } {
  const text = readFileSync(cache, "latin1");
  return JSON.parse(text.slice(text.indexOf("\n") + 1)) as ReturnType<typeof recordOf>;
}
function forge(target: string, record: object): void {
  const content = JSON.stringify(record);
  writeFileSync(target, `${createHash("sha256").update(content).digest("hex")}\n${content}`);
}

const listed = (name: string) => currentServedList(name, project);
const description = (name: string, tool: string) => (listed(name)?.definitions as Array<{ name: string; description: string }> | undefined)?.find((d) => d.name === tool)?.description;

/** A pack verified once (so its cache vouches for it), then changed by `change`: the stored list must not be answered. */
async function changedAfterVerifying(name: string, change: (dir: string) => void | Promise<void>): Promise<void> {
  await pack(name);
  expect(listed(name)).toBeDefined();
  expect(cacheOf(name)).toBeDefined();
  await change(join(project, name));
  expect(listed(name)).toBeUndefined();
  // The guard off: a naive cache takes the stale list as current. The guard is what refuses it.
  expect(await withoutGuard("servedListStatCache", () => listed(name))).toBeDefined();
}

describe("a pack's stat cache", () => {
  it("is written by a full verification and trusted at the next start, which then verifies nothing again", async () => {
    const name = await pack("trusted");
    expect(cacheOf(name)).toBeUndefined();
    expect(listed(name)?.count).toBeGreaterThan(0);
    const cache = cacheOf(name)!;
    const written = statSync(cache, { bigint: true }).mtimeNs;
    expect(recordOf(cache).files.map(([path]) => path)).toEqual(readdirSync(join(project, name, "src")).filter((file) => file !== "served-tools.gen.json").sort());
    // A full verification would write the cache again (a new file renamed into place); trusted, it is left as it is.
    expect(listed(name)?.count).toBeGreaterThan(0);
    expect(statSync(cache, { bigint: true }).mtimeNs).toBe(written);
  });

  it("a same-size edit of a generated file with its mtime put back is not served from the list: the pack loads and the edit shows", async () => {
    const name = "generated-edit";
    await changedAfterVerifying(name, (dir) => sameSizeEdit(join(dir, "src/pack-data.gen.ts"), "Gets the latest version", "Gets the oldest version"));
    // serve itself (main, over HTTP in this worker, which has not loaded this copy): loaded, not listed from the file, and the edit listed.
    const server = await startHttpInProcess([name], { SLUICE_MCP_TOKEN: undefined, SLUICE_USAGE: "off" }, project);
    try {
      const client = await connectHttp(server);
      const { tools } = await client.listTools();
      await client.close();
      expect(server.stderr()).not.toContain("listed from");
      expect(tools.find((tool) => tool.name === "docs_documents_get")?.description).toContain("Gets the oldest version");
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, SLOW);

  it("a same-size edit of a hand-written file with its mtime put back is not served from the list", async () => {
    await changedAfterVerifying("curated-edit", (dir) => sameSizeEdit(join(dir, "src/curated.ts"), "Create a blank Google Doc", "Create a blank Google Pad"));
    const tools = await loadTools("curated-edit", project);
    expect(tools.find((tool) => tool.name === "docs_documents_create")?.description).toContain("Create a blank Google Pad");
  }, SLOW);

  it("a file stamped within the racy window of its verification is not recorded as vouched for: an edit after it is never missed", async () => {
    // An edit in the clock tick of the verification would leave every stamp as recorded. Where the clock is fine-grained such an
    // edit cannot be made on purpose; a file stamped inside the window (mtime set ahead) stands for one.
    const scenario = async (name: string) => {
      await pack(name);
      const file = join(project, name, "src/curated.ts");
      const soon = new Date(Date.now() + 60_000);
      utimesSync(file, soon, soon);
      expect(listed(name)).toBeDefined();
      sameSizeEdit(file, "Create a blank Google Doc", "Create a blank Google Pad");
      return listed(name);
    };
    expect(await scenario("racy")).toBeUndefined();
    expect(cacheOf("racy")).toBeUndefined();
    expect(await withoutGuard("servedListStatCache", () => scenario("racy-unguarded"))).toBeDefined();
  });

  it("a cache whose verification began before a file's last change (forged whole, checksum and all) is not trusted", async () => {
    const name = await pack("racy-forged");
    expect(listed(name)).toBeDefined();
    const cache = cacheOf(name)!;
    const record = recordOf(cache);
    const curated = record.files.find(([path]) => path === "curated.ts")!;
    // The verification said to begin in the tick of curated.ts's last change (its ctime): the racy window.
    const racy = { ...record, at: curated[5]! };
    forge(cache, racy);
    expect(await withoutGuard("servedListStatCache", () => listed(name))).toBeDefined();
    expect(recordOf(cache).at).toBe(curated[5]);
    expect(listed(name)).toBeDefined();
    // Not trusted: verified in full, and recorded as the verification really began.
    expect(recordOf(cache).at).not.toBe(curated[5]);
  });

  it("a file added to src/ is a full verification", async () => {
    await changedAfterVerifying("added", (dir) => writeFileSync(join(dir, "src/extra.ts"), "export const extra = 1;\n"));
  });

  it("a list replaced by another of the same size (a byte of its body changed, mtime put back) is not read", async () => {
    await changedAfterVerifying("list-edit", (dir) => sameSizeEdit(join(dir, "src/served-tools.gen.json"), "Deletes content from the document.", "Deletes content from the docUment."));
  });

  it("a list file swapped for an edited copy (another inode, same size and mtime) is not read", async () => {
    await changedAfterVerifying("list-swap", (dir) => {
      const list = join(dir, "src/served-tools.gen.json");
      const before = statSync(list);
      writeFileSync(`${list}.new`, readFileSync(list, "utf8").replace("Deletes content from the document.", "Deletes content from the docUment."));
      utimesSync(`${list}.new`, before.atime, before.mtime);
      renameSync(`${list}.new`, list);
    });
  });

  it("a cache copied from another pack does not vouch for this one", async () => {
    await pack("source-pack");
    expect(listed("source-pack")).toBeDefined();
    // The copy, edited the same size with its mtime put back before any start verified it, then given the other pack's cache.
    cpSync(join(project, "source-pack"), join(project, "copied"), { recursive: true, preserveTimestamps: true });
    sameSizeEdit(join(project, "copied/src/curated.ts"), "Create a blank Google Doc", "Create a blank Google Pad");
    const copiedSrc = join(project, "copied/src");
    const target = join(CACHE, `served-list-${createHash("sha256").update(copiedSrc).digest("hex").slice(0, 16)}.json`);
    // Named as the copy's own cache, first as it was, then even claiming the copy's folder: the devices and inodes still differ.
    cpSync(cacheOf("source-pack")!, target);
    expect(listed("copied")).toBeUndefined();
    forge(target, { ...recordOf(cacheOf("source-pack")!), src: copiedSrc });
    expect(listed("copied")).toBeUndefined();
    expect(await withoutGuard("servedListStatCache", () => listed("copied"))).toBeDefined();
  });

  it("a damaged cache is no cache: never a crash, the list verified in full (and the cache written again)", async () => {
    const name = await pack("damaged");
    expect(listed(name)).toBeDefined();
    const cache = cacheOf(name)!;
    const good = readFileSync(cache, "latin1");
    const body = good.slice(good.indexOf("\n") + 1);
    const damaged = [
      "",
      "not a cache",
      good.slice(0, good.length >> 1),
      `${"0".repeat(64)}\n${body}`,
      `${good.slice(0, good.indexOf("\n"))}\n${body.replace(/"curated\.ts","\d/, (match) => `${match.slice(0, -1)}${(Number(match.at(-1)) + 1) % 10}`)}`,
      `${good.slice(0, good.indexOf("\n"))}\n{"version":1}`,
      "\u0000\u0001\u0002",
    ];
    for (const text of damaged) {
      writeFileSync(cache, text, "latin1");
      expect(listed(name)?.count).toBeGreaterThan(0);
      // Verified in full and written again, whole.
      const rewritten = readFileSync(cache, "latin1");
      expect(rewritten.slice(0, 64)).toBe(createHash("sha256").update(rewritten.slice(65)).digest("hex"));
    }
    // A damaged cache whose entries still parse (one file's entry dropped, checksum left as it was), then that file edited: the checksum refuses it.
    const content = JSON.parse(body) as { files: string[][] };
    const dropped = JSON.stringify({ ...content, files: content.files.filter(([path]) => path !== "curated.ts") });
    writeFileSync(cache, `${good.slice(0, good.indexOf("\n"))}\n${dropped}`);
    sameSizeEdit(join(project, name, "src/curated.ts"), "Create a blank Google Doc", "Create a blank Google Pad");
    expect(listed(name)).toBeUndefined();
    expect(await withoutGuard("servedListStatCache", () => listed(name))).toBeDefined();
  });

  it("a cache of another core version is a full verification; a src/ with a symbolic link in it has no key", async () => {
    const name = await pack("linked");
    expect(listed(name)).toBeDefined();
    const cache = cacheOf(name)!;
    forge(cache, { ...recordOf(cache), core: "0.0.9" });
    expect(listed(name)).toBeDefined();
    expect(recordOf(cache).core).not.toBe("0.0.9");
    // A linked source is outside what the key reads (index.ts could import it, and its target
    // change with the key unmoved): a src/ with a link in it has no key, and the pack is loaded.
    writeFileSync(join(project, "outside-curated.ts"), "export {};\n");
    symlinkSync(join(project, "outside-curated.ts"), join(project, name, "src/alias.ts"));
    await sleep(30);
    const before = readFileSync(cache, "latin1");
    expect(listed(name)).toBeUndefined();
    expect(readFileSync(cache, "latin1")).toBe(before);
    rmSync(join(project, name, "src/alias.ts"));
    expect(listed(name)).toBeDefined();
  });
});

describe("a list the cache vouches for", () => {
  it("reads each tool when a page first needs it: the same bytes as a full read, in any order and at any page size", async () => {
    const name = await pack("lazy", "gmail");
    expect(listed(name)).toBeDefined();
    const lazy = listed(name)!;
    const full = parseServedList(readFileSync(join(project, name, "src/served-tools.gen.json")))!;
    const count = full.count;
    expect(lazy.count).toBe(count);
    expect(count).toBeGreaterThan(5);
    // Out of order, overlapping, one at a time, the whole list (larger than the page rooms' first size is not needed: any size grows them).
    for (const [from, to] of [[count - 2, count], [1, 3], [0, 1], [2, 5], [0, count], [count - 1, count + 4]] as const) {
      expect(lazy.listedJson(from, to).equals(full.listedJson(from, to))).toBe(true);
      const lent = lazy.lentJson(from, to);
      expect(lent.json.equals(full.listedJson(from, to))).toBe(true);
      lent.done();
    }
    expect(lazy.names()).toEqual(full.names());
    expect(JSON.stringify(lazy.definitions)).toBe(JSON.stringify(full.definitions()));
  });

  it("is read in full when the cache's layout does not fit the list (forged whole, checksum and all): never a crash or a page out of place", async () => {
    const name = await pack("bad-layout", "gmail");
    expect(listed(name)).toBeDefined();
    const cache = cacheOf(name)!;
    const record = recordOf(cache) as ReturnType<typeof recordOf> & { layout: string };
    const raw = Buffer.from(record.layout, "base64");
    const ints = new Int32Array(raw.length / 4);
    Buffer.from(ints.buffer).set(raw);
    const full = parseServedList(readFileSync(join(project, name, "src/served-tools.gen.json")))!;
    const past = new Int32Array(ints);
    // The last tool's text said to end past the end of the file; then a layout that is not one at all.
    const last = 4 + 2 * ints[1]! + 3 * ints[2]! - 1;
    past[last] = 0x7fffffff;
    for (const layout of [Buffer.from(past.buffer).toString("base64"), Buffer.from("not a layout").toString("base64")]) {
      forge(cache, { ...record, layout });
      const list = listed(name)!;
      expect(list.listedJson(0, list.count).equals(full.listedJson(0, full.count))).toBe(true);
      // Verified in full and recorded again, with the list's own layout.
      expect(recordOf(cache).layout).toBe(record.layout);
    }
  });

  it("answers STORED_LIST_CHANGED for a tool not yet read once the list file is rewritten in place, never bytes of two versions", async () => {
    const name = await pack("rewritten");
    expect(listed(name)).toBeDefined();
    const lazy = listed(name)!;
    const file = join(project, name, "src/served-tools.gen.json");
    const first = lazy.listedJson(0, 1);
    // The same bytes written again (as generate rewrites a list in place): the file changed after its key was checked.
    writeFileSync(file, readFileSync(file));
    expect(() => lazy.listedJson(lazy.count - 1, lazy.count)).toThrow(expect.objectContaining({ code: "STORED_LIST_CHANGED" }));
    // What was read before the change is still answered as read.
    expect(lazy.listedJson(0, 1).equals(first)).toBe(true);
  });
});

describe("generate", () => {
  it("records the cache after writing a pack, so the first serve after generating reads no source", async () => {
    const name = await pack("generated");
    rmSync(CACHE, { recursive: true, force: true });
    // A pack this small (its first serve checks it in full in milliseconds) is not recorded by default.
    await recordServedListKey(join(project, name));
    expect(cacheOf(name)).toBeUndefined();
    await recordServedListKey(join(project, name), 0);
    const cache = cacheOf(name);
    expect(cache).toBeDefined();
    const written = statSync(cache!, { bigint: true }).mtimeNs;
    expect(listed(name)).toBeDefined();
    // Trusted as recorded: not verified (and rewritten) again.
    expect(statSync(cache!, { bigint: true }).mtimeNs).toBe(written);
  });
});
