/**
 * A screening proxy in front of one MCP server: the upstream manager (start, restart,
 * forward) and the snapshot lock (what may be listed and called), wired so that every
 * listing of the upstream goes through the lock before a call can use it.
 */
import type { McpSnapshot } from "@sluice/mcp-client";
import { SluiceError, type McpUpstream, type Tool } from "@sluice/core";
import { LockRelister } from "./lock-relister.ts";
import { SnapshotLock, type LockOptions, type LockState } from "./snapshot-lock.ts";
import { summarisedLog } from "./summarised-log.ts";
import { UpstreamManager, type UpstreamOptions, type UpstreamSource } from "./upstream.ts";

export interface ProxyOptions extends Omit<UpstreamOptions, "onRestarted" | "gate" | "onToolsChanged" | "listingMark">, LockOptions {
  /**
   * Milliseconds a call waits for a listing under way after the upstream said its tools
   * changed, before it answers MCP_LOCK_PENDING (default 2 000).
   */
  lockWaitMs?: number;
}

const DEFAULT_LOCK_WAIT_MS = 2_000;

/** What a server asks of a proxy: which served tools are held back now, and when that changes. */
export interface ServedGate {
  /** Why a served tool may not be listed or called now, or undefined. */
  refusal(tool: Tool<object>): SluiceError | undefined;
  /** Called when the answer of `refusal` may have changed for some tool. */
  subscribe(listener: () => void): () => void;
  /**
   * Settles once the first verdict is in (the upstream listed through the lock, or its start
   * failed): a server may answer `initialize` while the upstream starts, and waits for this
   * before it lists or calls anything.
   */
  ready?(): Promise<void>;
}

export class McpProxy implements ServedGate {
  readonly upstream: UpstreamManager;
  readonly lock: SnapshotLock;
  readonly #log: ((line: string) => void) | undefined;
  /** Lists the upstream again after each change notice (coalesced, retried while it fails). */
  readonly #relister: LockRelister;
  /** The first start, once asked for. */
  #started: Promise<LockState> | undefined;

  constructor(source: UpstreamSource, snapshot: McpSnapshot, options: ProxyOptions = {}) {
    this.#log = options.log;
    // The lock logs texts of the upstream's definitions (a changed description before and after): summarised.
    const lockLog = summarisedLog(options.log);
    this.lock = new SnapshotLock(snapshot, lockLog === undefined ? {} : { log: lockLog });
    this.upstream = new UpstreamManager(source, {
      ...options,
      onToolsChanged: () => void this.recheck("the upstream sent tools/list_changed"),
      listingMark: () => this.lock.generation,
      onRestarted: (listing, mark) => {
        this.lock.update(listing, mark);
      },
      gate: async (name) => {
        // A listing under way usually settles in milliseconds; one that does not, refuses the call.
        await this.lock.settled(options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS);
        return this.lock.refusalOf(name);
      },
    });
    this.#relister = new LockRelister(this.lock, () => this.upstream.listTools(), {
      ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
      ...(options.maxBackoffMs === undefined ? {} : { maxBackoffMs: options.maxBackoffMs }),
      ...(this.#log === undefined ? {} : { log: this.#log }),
    });
  }

  /** How many times the upstream's tools were listed again after a change notice (or `recheck`). */
  get relistings(): number {
    return this.#relister.listings;
  }

  /** The MCP upstream for call contexts: the manager, behind the lock. */
  get mcp(): McpUpstream {
    return this.upstream;
  }

  /**
   * Starts the upstream and lists its tools through the lock, once (later calls get the same
   * answer; after a failure, a new try); an upstream that cannot start is thrown.
   */
  start(): Promise<LockState> {
    if (this.#started === undefined) {
      const began = this.lock.generation;
      const started = this.upstream.listTools().then((listing) => {
        this.lock.update(listing, began);
        return this.lock.state;
      });
      this.#started = started;
      // A start that failed may be asked for again.
      started.catch(() => {
        if (this.#started === started) this.#started = undefined;
      });
    }
    return this.#started;
  }

  /** See {@link ServedGate.ready}: resolves (never rejects) once the start in progress, or a new one, has settled. */
  async ready(): Promise<void> {
    await (this.#started ?? this.start()).catch(() => undefined);
  }

  /**
   * The upstream's tools may have changed: from now, no call is forwarded until a listing
   * begun after this has passed the lock (the verdict from before is never kept). Coalesced
   * with listings under way; a failed listing is tried again with backoff. Resolves once a
   * listing covering this has been tried.
   */
  recheck(why: string): Promise<void> {
    return this.#relister.request(why);
  }

  refusal(tool: Tool<object>): SluiceError | undefined {
    return this.lock.refusal(tool);
  }

  subscribe(listener: () => void): () => void {
    return this.lock.subscribe(listener);
  }

  close(): Promise<void> {
    this.#relister.close();
    return this.upstream.close();
  }
}
