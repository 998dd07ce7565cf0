/**
 * Lists a proxied upstream again each time it says its tools changed, and hands each listing
 * to the snapshot lock. Notices are coalesced: one listing in flight, at most one waiting
 * (a storm of `notifications/tools/list_changed` costs two listings, not one per notice). A
 * listing that fails (a JSON-RPC error, no `tools` list, a cursor without end, no answer in
 * time) is tried again after a wait that doubles with each failure in a row, for as long as
 * the lock is pending; calls are refused meanwhile (the lock's MCP_LOCK_PENDING).
 */
import { guards } from "@sluice/core/guards";
import type { SnapshotLock } from "./snapshot-lock.ts";
import type { UpstreamListing } from "./upstream.ts";

export interface RelisterOptions {
  /** The first wait before listing again after a failed listing, doubled per failure in a row up to `maxBackoffMs` (defaults 250 and 10 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  log?: (line: string) => void;
}

export class LockRelister {
  readonly #lock: SnapshotLock;
  readonly #list: () => Promise<UpstreamListing>;
  readonly #options: RelisterOptions;
  /** A listing is wanted after the one in flight (set by every notice; one flag, however many notices). */
  #wanted = false;
  #why = "";
  #loop: Promise<void> | undefined;
  /** What callers of `request` since the last listing began wait for: one promise however many notices (a storm costs no memory). */
  #next: { covered: Promise<void>; resolve: () => void } | undefined;
  #failures = 0;
  #closed = false;
  #sleeping: { timer: ReturnType<typeof setTimeout>; wake: () => void } | undefined;
  /** Without coalescing (the guard off, for its mutation test): each notice's listing, in turn. */
  #chain: Promise<void> = Promise.resolve();
  #listings = 0;

  constructor(lock: SnapshotLock, list: () => Promise<UpstreamListing>, options: RelisterOptions = {}) {
    this.#lock = lock;
    this.#list = list;
    this.#options = options;
  }

  /** How many listings this has asked the upstream for. */
  get listings(): number {
    return this.#listings;
  }

  /**
   * The upstream's tools may have changed: the lock refuses every call from now until a
   * listing begun after this has passed it. Resolves once such a listing has been tried
   * (passed or failed; a failed one is tried again in the background).
   */
  request(why: string): Promise<void> {
    this.#lock.invalidate(why);
    if (this.#closed) return Promise.resolve();
    if (!guards.mcpRelistCoalesce) {
      const next = this.#chain.then(async () => void (await this.#listOnce(why)));
      this.#chain = next;
      return next;
    }
    this.#wanted = true;
    this.#why = why;
    if (this.#next === undefined) {
      let resolve!: () => void;
      const covered = new Promise<void>((done) => (resolve = done));
      this.#next = { covered, resolve };
    }
    const { covered } = this.#next;
    if (this.#loop === undefined) {
      this.#loop = this.#run().finally(() => {
        this.#loop = undefined;
      });
    }
    return covered;
  }

  /** Stops listing again (a wait for a retry ends at once). */
  close(): void {
    this.#closed = true;
    this.#wanted = false;
    if (this.#sleeping !== undefined) {
      clearTimeout(this.#sleeping.timer);
      this.#sleeping.wake();
    }
    this.#next?.resolve();
    this.#next = undefined;
  }

  async #run(): Promise<void> {
    while (this.#wanted && !this.#closed) {
      this.#wanted = false;
      const covered = this.#next;
      this.#next = undefined;
      const passed = await this.#listOnce(this.#why);
      covered?.resolve();
      if (passed || this.#lock.state.pending === undefined || this.#closed) continue;
      // Failed, and still pending: try again after the backoff. Notices meanwhile do not cut the wait short.
      this.#wanted = true;
      await this.#sleep(this.#delay());
    }
  }

  async #listOnce(why: string): Promise<boolean> {
    const began = this.#lock.generation;
    this.#listings += 1;
    this.#options.log?.(`snapshot lock: listing the upstream's tools again (${why}); calls wait for the verdict`);
    try {
      this.#lock.update(await this.#list(), began);
      this.#failures = 0;
      return true;
    } catch (error) {
      this.#failures += 1;
      const message = (error as Error)?.message ?? String(error);
      const retryIn = this.#delay();
      this.#lock.listingFailed(message, retryIn);
      this.#options.log?.(`snapshot lock: could not list the upstream's tools (${message}); every call answers MCP_LOCK_PENDING until a listing passes; trying again in ${retryIn} ms`);
      return false;
    }
  }

  #delay(): number {
    const first = this.#options.backoffMs ?? 250;
    const max = this.#options.maxBackoffMs ?? 10_000;
    return Math.min(max, first * 2 ** Math.max(0, this.#failures - 1));
  }

  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        this.#sleeping = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      // A retry alone does not keep the process alive (serve's transport does).
      timer.unref?.();
      this.#sleeping = { timer, wake };
    });
  }
}
