/**
 * The snapshot lock's pending state, without processes: a change notice refuses every call
 * until a listing begun after it passes; a listing that began before the last notice (its
 * answer may predate the change) decides the verdict but leaves the lock pending; the
 * verdict used for listing tools is unaffected. With the guard `mcpLockPending` off, the
 * verdict from before the notice lets the call out (the mutation check).
 */
import { describe, expect, it } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { makeSnapshot } from "@sluice/mcp-client";
import { SnapshotLock } from "../src/snapshot-lock.ts";

const ECHO = { name: "echo", description: "Echoes.", inputSchema: { type: "object", properties: { text: { type: "string" } }, additionalProperties: false } };
const committed = makeSnapshot({ name: "s", version: "1" }, "2025-06-18", [ECHO]);
const listing = (tools: object[]) => ({ server: { name: "s", version: "1" }, protocolVersion: "2025-06-18", tools: tools as never[] });

describe("SnapshotLock pending", () => {
  it("refuses every call from a notice until a listing begun after it passes", () => {
    const lock = new SnapshotLock(committed);
    lock.update(listing([ECHO]));
    expect(lock.refusalOf("echo")).toBeUndefined();
    lock.invalidate("the upstream sent tools/list_changed");
    expect(lock.refusalOf("echo")?.code).toBe("MCP_LOCK_PENDING");
    // What a server lists is the verdict: the served definition is the committed one.
    expect(lock.verdictOf("echo")).toBeUndefined();
    lock.listingFailed("tools/list answered without a tools list", 250);
    expect(lock.refusalOf("echo")?.message).toMatch(/the last listing failed: tools\/list answered without a tools list; listing again in 250 ms/);
    const began = lock.generation;
    lock.update(listing([ECHO]), began);
    expect(lock.state.pending).toBeUndefined();
    expect(lock.refusalOf("echo")).toBeUndefined();
  });

  it("a listing that began before the last notice does not clear it", () => {
    const lock = new SnapshotLock(committed);
    lock.update(listing([ECHO]));
    lock.invalidate("first notice");
    const began = lock.generation;
    lock.invalidate("second notice, while the listing was in flight");
    lock.update(listing([ECHO]), began);
    expect(lock.refusalOf("echo")?.code).toBe("MCP_LOCK_PENDING");
    lock.update(listing([ECHO]), lock.generation);
    expect(lock.refusalOf("echo")).toBeUndefined();
  });

  it("settled() waits for the verdict, and gives up after its time", async () => {
    const lock = new SnapshotLock(committed);
    lock.update(listing([ECHO]));
    await lock.settled(10);
    lock.invalidate("notice");
    const started = Date.now();
    await lock.settled(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    const waiting = lock.settled(10_000);
    lock.update(listing([ECHO]), lock.generation);
    await waiting;
  });

  it("without mcpLockPending the verdict from before the notice lets the call out", async () => {
    const lock = new SnapshotLock(committed);
    lock.update(listing([ECHO]));
    lock.invalidate("notice");
    expect(lock.refusalOf("echo")?.code).toBe("MCP_LOCK_PENDING");
    expect(await withoutGuard("mcpLockPending", () => lock.refusalOf("echo"))).toBeUndefined();
  });
});
