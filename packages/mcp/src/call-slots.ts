/**
 * A counting semaphore with a bounded queue: at most `max` holders at once, at most
 * `maxQueued` waiting (first come, first served), and beyond that an immediate refusal, so
 * what waits is bounded too. `sluice serve` uses it for calls in flight (both transports)
 * and for HTTP request bodies being read and handled.
 */
export class CallSlots {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(
    readonly max: number,
    readonly maxQueued: number,
  ) {}

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** A release function once a slot is free; undefined (refused) when the queue is full. */
  acquire(): Promise<() => void> | undefined {
    if (this.#active < this.max) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    if (this.#waiting.length >= this.maxQueued) return undefined;
    return new Promise((resolve) => this.#waiting.push(() => resolve(this.#releaser())));
  }

  /** Idempotent, so a response's `close` and `finish` may both release. */
  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next === undefined) this.#active--;
      else next(); // the slot passes straight to the next waiter
    };
  }
}

/** Calls executing at once across every session, by default. */
export const DEFAULT_MAX_CONCURRENT_CALLS = 16;
/** Calls waiting for a slot beyond those; more are refused with SERVER_BUSY. */
export const DEFAULT_MAX_QUEUED_CALLS = 256;
