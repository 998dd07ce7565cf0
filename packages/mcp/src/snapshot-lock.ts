/**
 * The committed snapshot as a lock on a proxied MCP pack. Each time the upstream's tools
 * are listed (at start, on `notifications/tools/list_changed`, after a restart) they are
 * compared with the snapshot by `diffSnapshot`; a tool whose definition changed in a way
 * that blocks (a widened input schema, a rewritten text the model reads) is held back, as
 * is a tool the upstream no longer lists, until the snapshot is regenerated and reviewed.
 * Before the first listing nothing is served: the lock fails closed. So it does after the
 * upstream says its tools changed: from that notice (`invalidate`) until a listing begun
 * after it has passed the lock, every call is refused with MCP_LOCK_PENDING, whatever the
 * verdict before the notice was; a listing that fails leaves it so.
 */
import { diffSnapshot, makeSnapshot, type McpSnapshot, type McpSnapshotTool, type SnapshotDiff, type ToolChange } from "@sluice/mcp-client";
import { guards } from "@sluice/core/guards";
import { isSluiceError, SluiceError, type Tool } from "@sluice/core";
import type { UpstreamListing } from "./upstream.ts";

export interface LockOptions {
  /** The diff and what is held back, for stderr. */
  log?: (line: string) => void;
}

export interface LockState {
  /** Upstream tools held back, by upstream name, with the error their calls get. */
  held: ReadonlyMap<string, SluiceError>;
  /** Upstream tools the snapshot does not have: never served (the pack has no tool for them) until it is regenerated. */
  added: readonly McpSnapshotTool[];
  diff: SnapshotDiff | undefined;
  /** Why calls are refused until the next listing passes (the upstream said its tools changed), or undefined. */
  pending: string | undefined;
}

export class SnapshotLock {
  readonly committed: McpSnapshot;
  readonly #options: LockOptions;
  #held = new Map<string, SluiceError>();
  #added: McpSnapshotTool[] = [];
  #diff: SnapshotDiff | undefined;
  #checked = false;
  #listeners = new Set<() => void>();
  /** Counts the upstream's change notices: a listing clears `pending` only when none came since it began. */
  #generation = 0;
  #pending: string | undefined;
  /** The last listing that failed while pending, for the refusal's message. */
  #lastFailure: string | undefined;
  #settle: Array<() => void> = [];

  constructor(committed: McpSnapshot, options: LockOptions = {}) {
    this.committed = committed;
    this.#options = options;
  }

  get state(): LockState {
    return { held: this.#held, added: this.#added, diff: this.#diff, pending: this.#pending };
  }

  /** A mark to take just before a listing is asked for, and give back to `update` with its answer. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * The upstream said its tools changed (or may have): no call passes until a listing begun
   * after this has passed the lock. The verdict from before stays for what is listed (the
   * definitions served are the committed ones), never for what is forwarded.
   */
  invalidate(why: string): void {
    this.#generation += 1;
    this.#pending = why;
  }

  /** A listing asked for while pending failed: calls keep being refused, and say why. */
  listingFailed(why: string, retryInMs: number | undefined): void {
    this.#lastFailure = `${why}${retryInMs === undefined ? "" : `; listing again in ${retryInMs} ms`}`;
  }

  /** Resolves when nothing is pending (at once if nothing is), or after `ms`, whichever is first. */
  async settled(ms: number): Promise<void> {
    if (this.#pending === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done: (() => void) | undefined;
    try {
      await new Promise<void>((resolve) => {
        done = resolve;
        this.#settle.push(resolve);
        timer = setTimeout(resolve, ms);
      });
    } finally {
      clearTimeout(timer);
      this.#settle = this.#settle.filter((waiter) => waiter !== done);
    }
  }

  /** Why no call at all may be forwarded now, or undefined. */
  pendingRefusal(): SluiceError | undefined {
    if (this.#pending === undefined || !guards.mcpLockPending || !guards.mcpSnapshotLock) return undefined;
    const failed = this.#lastFailure === undefined ? "the listing is under way" : `the last listing failed: ${this.#lastFailure}`;
    return new SluiceError(
      "MCP_LOCK_PENDING",
      `nothing is forwarded to the upstream until its tools have been listed again and checked against the committed snapshot (${this.#pending}; ${failed}). Retry the call in a few seconds; if this persists, the upstream server cannot list its tools: see sluice serve's stderr`,
    );
  }

  /** Called when what is served changes (a tool held back or let through again). */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Why an upstream tool may not be called now, or undefined. Unknown to the snapshot:
   * refused too, so nothing reaches a tool nobody reviewed.
   */
  refusalOf(upstreamName: string): SluiceError | undefined {
    return this.pendingRefusal() ?? this.verdictOf(upstreamName);
  }

  /**
   * The verdict of the last listing on one upstream tool, pending or not: what a server lists
   * (served definitions are the committed ones; a listing never reaches the upstream).
   */
  verdictOf(upstreamName: string): SluiceError | undefined {
    if (!guards.mcpSnapshotLock) return undefined;
    if (!this.#checked) return new SluiceError("MCP_UPSTREAM_EXITED", "the upstream's tools have not been listed yet (the proxy is starting); retry shortly");
    const held = this.#held.get(upstreamName);
    if (held !== undefined) return held;
    if (!this.committed.tools.some((tool) => tool.name === upstreamName)) {
      return new SluiceError("MCP_TOOL_CHANGED", `${upstreamName} is not in the committed snapshot; regenerate the pack (sluice generate) and review it`);
    }
    return undefined;
  }

  /** `verdictOf` for a served tool (its binding names the upstream tool); tools of other kinds are not the lock's. */
  refusal(tool: Tool<object>): SluiceError | undefined {
    return tool.binding.kind === "mcp" ? this.verdictOf(tool.binding.tool) : undefined;
  }

  /**
   * Compares a listing with the snapshot and holds back what must be. Returns whether the
   * served set changed (listeners are told). A listing that is not a valid snapshot (two
   * tools of one name, a schema that is not JSON) holds back every tool. `began` is the
   * `generation` taken before the listing was asked for: a change notice since then leaves
   * the lock pending (the answer may predate the change).
   */
  update(listing: UpstreamListing, began: number = this.#generation): boolean {
    const before = this.#fingerprint();
    const held = new Map<string, SluiceError>();
    let live: McpSnapshot | undefined;
    try {
      live = makeSnapshot(listing.server, listing.protocolVersion, listing.tools);
    } catch (error) {
      const why = isSluiceError(error) ? error.message : String(error);
      this.#options.log?.(`snapshot lock: the upstream's tools/list is not usable (${why}); every tool is held back`);
      for (const tool of this.committed.tools) held.set(tool.name, new SluiceError("MCP_TOOL_CHANGED", `${tool.name}: the upstream's tool list is not usable (${why}); nothing is forwarded until it is`));
    }
    if (live !== undefined) {
      const diff = diffSnapshot(this.committed, live);
      this.#diff = diff;
      for (const change of diff.changed) {
        if (!change.blocking) continue;
        held.set(change.name, new SluiceError("MCP_TOOL_CHANGED", `${change.name} changed upstream since the committed snapshot (${summary(change)}); it is not served until the snapshot is regenerated (sluice generate) and the change reviewed`));
      }
      for (const name of diff.removed) {
        held.set(name, new SluiceError("MCP_TOOL_REMOVED", `${name} is no longer listed by the upstream server; regenerate the pack (sluice generate) to drop it`));
      }
      this.#added = live.tools.filter((tool) => diff.added.includes(tool.name));
      this.#log(diff);
    }
    this.#held = held;
    this.#checked = true;
    if (began === this.#generation && this.#pending !== undefined) {
      this.#pending = undefined;
      this.#lastFailure = undefined;
      for (const resolve of this.#settle.splice(0)) resolve();
    }
    const changed = before !== this.#fingerprint();
    if (changed) for (const listener of this.#listeners) listener();
    return changed;
  }

  #fingerprint(): string {
    return JSON.stringify([this.#checked, [...this.#held.keys()].sort()]);
  }

  #log(diff: SnapshotDiff): void {
    const log = this.#options.log;
    if (log === undefined) return;
    if (diff.server !== undefined) log(`snapshot lock: the upstream is now ${diff.server.after} (snapshot: ${diff.server.before})`);
    for (const change of diff.changed) {
      log(`snapshot lock: ${change.name} ${change.blocking ? "changed upstream and is held back" : "changed upstream (narrower only; still served)"}:`);
      for (const text of change.texts) log(`  text ${text.pointer}: ${JSON.stringify(text.before ?? null)} -> ${JSON.stringify(text.after ?? null)}`);
      for (const pointer of change.widenings) log(`  wider ${pointer}${change.why[pointer] === undefined ? "" : `: ${change.why[pointer]}`}`);
      for (const pointer of change.narrowings) log(`  narrower ${pointer}${change.why[pointer] === undefined ? "" : `: ${change.why[pointer]}`}`);
      for (const pointer of change.other) log(`  other ${pointer}`);
    }
    for (const name of diff.removed) log(`snapshot lock: ${name} is no longer listed upstream; its calls answer MCP_TOOL_REMOVED`);
    for (const name of diff.added) log(`snapshot lock: ${name} is new upstream; not served until the snapshot is regenerated and the pack serves it`);
    if (diff.changed.some((change) => change.blocking) || diff.removed.length > 0 || diff.added.length > 0) {
      log("snapshot lock: to accept the upstream as it is now, regenerate the pack (sluice generate), review the diff of spec/tools.snapshot.json and the egress map, and commit");
    }
  }
}

function summary(change: ToolChange): string {
  const parts: string[] = [];
  if (change.texts.length > 0) parts.push(`text changed at ${change.texts.map((t) => t.pointer).join(", ")}`);
  if (change.widenings.length > 0) parts.push(`wider at ${change.widenings.join(", ")}`);
  return parts.join("; ") || "definition changed";
}
