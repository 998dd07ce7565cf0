import { SluiceError } from "@sluice/schema";

/**
 * Whether a change to the cached prompt prefix (a smaller tools array) pays for itself.
 *
 * The tools array sits at position 0 of the provider's prompt cache, so any change to
 * it invalidates everything cached after it. Prices are in input-token equivalents:
 * a cache read costs `r` × the base input price, a cache write `w` ×.
 *
 * With P = prefixTokens (the prefix as it is after the change, which must be written
 * again) and S = savedTokens (tokens the change removes from every request):
 * - warm cache: the next request writes P at w instead of reading it at r, a one-time
 *   cost of (w − r)·P; every request after reads S fewer cached tokens, a gain of r·S.
 *   Break-even after n = (w − r)·P / (r·S) requests: at r = 0.1, w = 1.25 that is
 *   11.5 × P / S.
 * - cold cache: the prefix is written anyway, so there is nothing to lose; the first
 *   request writes S fewer tokens (gain w·S) and every later one reads S fewer (r·S).
 *   It pays at once: break-even after 0 requests.
 */
export interface CacheBreakEvenInput {
  /** Tokens of the cached prefix after the change (everything the change invalidates). */
  readonly prefixTokens: number;
  /** Tokens the change saves on every request. */
  readonly savedTokens: number;
  /** Price of a cached read relative to base input. Default 0.1 (Anthropic). */
  readonly readMultiplier?: number;
  /** Price of a cache write relative to base input. Default 1.25 (Anthropic, 5-minute cache). */
  readonly writeMultiplier?: number;
  /** Whether the unchanged prefix is cached now. */
  readonly warm: boolean;
}

export interface CacheBreakEven {
  readonly warm: boolean;
  /** Extra cost of the request that re-anchors the cache, in input-token equivalents. */
  readonly oneTimeCost: number;
  /** Cost saved by each request after it, in input-token equivalents. */
  readonly perRequestGain: number;
  /** Requests after the change until it has paid for itself: 0 when it pays at once, `Infinity` when it never does. */
  readonly breakEvenRequests: number;
  /** One line for a report. */
  readonly report: string;
}

function count(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "never";
}

function checkNumber(name: string, value: unknown, positive: boolean): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
    throw new SluiceError("INVALID_OPTION", `${name} must be a ${positive ? "positive" : "non-negative"} finite number, not ${JSON.stringify(value)}.`);
  }
  return value;
}

export function cacheBreakEven(input: CacheBreakEvenInput): CacheBreakEven {
  const prefix = checkNumber("prefixTokens", input.prefixTokens, false);
  const saved = checkNumber("savedTokens", input.savedTokens, false);
  const read = checkNumber("readMultiplier", input.readMultiplier ?? 0.1, true);
  const write = checkNumber("writeMultiplier", input.writeMultiplier ?? 1.25, true);
  if (typeof input.warm !== "boolean") throw new SluiceError("INVALID_OPTION", "warm must be true or false: whether the current prefix is cached.");
  const perRequestGain = read * saved;
  const multipliers = `read ${read}x, write ${write}x`;
  if (!input.warm) {
    const report = saved > 0
      ? `cold cache: saving ${count(saved)} tokens pays at once (${count(write * saved)} on the first request, ${count(perRequestGain)} per request after; ${multipliers})`
      : `cold cache: the change saves no tokens; nothing to gain (${multipliers})`;
    return { warm: false, oneTimeCost: 0, perRequestGain, breakEvenRequests: saved > 0 ? 0 : Infinity, report };
  }
  const oneTimeCost = Math.max(0, write - read) * prefix;
  const breakEvenRequests = oneTimeCost === 0 ? 0 : perRequestGain > 0 ? Math.ceil(oneTimeCost / perRequestGain) : Infinity;
  const payback = breakEvenRequests === Infinity ? "never pays back" : `pays back after ${count(breakEvenRequests)} request${breakEvenRequests === 1 ? "" : "s"}`;
  const report = `warm cache: re-anchoring ${count(prefix)} prefix tokens costs ${count(oneTimeCost)} once; saving ${count(saved)} tokens gains ${count(perRequestGain)} per request; ${payback} (${multipliers})`;
  return { warm: true, oneTimeCost, perRequestGain, breakEvenRequests, report };
}
