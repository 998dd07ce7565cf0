/**
 * A screening proxy in front of one MCP server: the upstream manager (start, restart,
 * forward) and the snapshot lock (what may be listed and called), wired so that every
 * listing of the upstream goes through the lock before a call can use it.
 */
import type { McpSnapshot } from "@sluice/mcp-client";
import { SluiceError, type McpUpstream, type Tool } from "@sluice/core";
import { SnapshotLock, type LockOptions, type LockState } from "./snapshot-lock.ts";
import { UpstreamManager, type UpstreamOptions, type UpstreamSource } from "./upstream.ts";

export interface ProxyOptions extends Omit<UpstreamOptions, "onRestarted" | "gate" | "onToolsChanged">, LockOptions {}

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
  /** The listing in progress: calls wait for it, so none goes out on a verdict about to change. */
  #pending: Promise<void> | undefined;
  /** The first start, once asked for. */
  #started: Promise<LockState> | undefined;

  constructor(source: UpstreamSource, snapshot: McpSnapshot, options: ProxyOptions = {}) {
    this.#log = options.log;
    this.lock = new SnapshotLock(snapshot, options.log === undefined ? {} : { log: options.log });
    this.upstream = new UpstreamManager(source, {
      ...options,
      onToolsChanged: () => void this.recheck("the upstream sent tools/list_changed"),
      onRestarted: (listing) => {
        this.lock.update(listing);
      },
      gate: async (name) => {
        await this.#pending;
        return this.lock.refusalOf(name);
      },
    });
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
      const started = this.upstream.listTools().then((listing) => {
        this.lock.update(listing);
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

  /** Lists the upstream again (serialized with any listing in progress) and updates the lock. */
  recheck(why: string): Promise<void> {
    const run = async () => {
      this.#log?.(`snapshot lock: listing the upstream's tools again (${why})`);
      try {
        this.lock.update(await this.upstream.listTools());
      } catch (error) {
        // The next call restarts the upstream, and that listing decides again.
        this.#log?.(`snapshot lock: could not list the upstream's tools (${(error as Error).message}); calls wait for the next listing`);
      }
    };
    const next = (this.#pending ?? Promise.resolve()).then(run);
    this.#pending = next;
    void next.finally(() => {
      if (this.#pending === next) this.#pending = undefined;
    });
    return next;
  }

  refusal(tool: Tool<object>): SluiceError | undefined {
    return this.lock.refusal(tool);
  }

  subscribe(listener: () => void): () => void {
    return this.lock.subscribe(listener);
  }

  close(): Promise<void> {
    return this.upstream.close();
  }
}
