import { SluiceError } from "@sluice/schema";
import type { Encoding } from "@sluice/core/tokens";
import type { CatalogTool } from "./catalog-tool.ts";
import { cacheBreakEven, type CacheBreakEven } from "./cache-break-even.ts";
import { measureLevels, type LevelTokens } from "./measure-levels.ts";

/** 0 is the catalog as given. */
export type DispatchLevel = 0 | 1 | 3;

export type CacheProvider = "anthropic" | "bedrock" | "openai" | "gemini";

/**
 * Prompt-cache prices relative to base input. Anthropic (and Claude on Bedrock): reads
 * 0.1x, 5-minute writes 1.25x (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
 * OpenAI caches automatically at no write surcharge; reads are 0.1x on the GPT-5 family
 * (0.25x GPT-4.1, 0.5x GPT-4o: pass readMultiplier for those). Gemini implicit caching:
 * reads 0.25x on the 2.5 models, no write surcharge.
 */
export const CACHE_MULTIPLIERS: Readonly<Record<CacheProvider, { readonly read: number; readonly write: number }>> = {
  anthropic: { read: 0.1, write: 1.25 },
  bedrock: { read: 0.1, write: 1.25 },
  openai: { read: 0.1, write: 1 },
  gemini: { read: 0.25, write: 1 },
};

export interface RecommendLevelOptions {
  /** Default `anthropic`. */
  readonly provider?: CacheProvider;
  /** Requests the catalog is expected to serve (turns of the agent loop). Default 20. */
  readonly turns?: number;
  /** Whether the native catalog is cached now (switching then costs a re-anchoring). Default false. */
  readonly warm?: boolean;
  readonly readMultiplier?: number;
  readonly writeMultiplier?: number;
  readonly encoding?: Encoding;
}

export interface LevelRecommendation {
  readonly level: DispatchLevel;
  /** Why, with the numbers. */
  readonly reason: string;
  readonly tokens: LevelTokens;
  /** Estimated input cost over `turns` requests at each level, in input-token equivalents. */
  readonly cost: Readonly<Record<`level${DispatchLevel}`, number>>;
  /** Break-even of moving from the native catalog to the chosen level (undefined for level 0). */
  readonly breakEven: CacheBreakEven | undefined;
}

// A lossy level must save at least this share of the next best cost to be worth the
// model reading signatures instead of descriptions (and, at level 3, looking tools up).
const MIN_SAVING = 0.1;

/**
 * Picks a level from measured token counts and an explicit cost model over `turns`
 * requests, each priced with the provider's cache multipliers (r read, w write):
 * - a prefix of P tokens costs w·P on the first request and r·P on each later one
 *   (r·P on every request for the native catalog when it is already cached);
 * - level 3 also pays one `describe_tool` lookup per request (pessimistic: a model that
 *   knows a tool's signature skips it): the answer, D tokens (the median definition),
 *   is written once and read on every later request, so T·w·D + r·D·T(T−1)/2 in all.
 * A lossy level is chosen only when it saves at least 10% over the level below it.
 */
export function recommendLevel(catalog: readonly CatalogTool[], options: RecommendLevelOptions = {}): LevelRecommendation {
  const provider = options.provider ?? "anthropic";
  if (!Object.hasOwn(CACHE_MULTIPLIERS, provider)) throw new SluiceError("INVALID_OPTION", `Unknown provider ${JSON.stringify(provider)}; use one of ${Object.keys(CACHE_MULTIPLIERS).join(", ")}.`);
  const turns = options.turns ?? 20;
  if (!Number.isInteger(turns) || turns < 1) throw new SluiceError("INVALID_OPTION", `turns must be a positive integer, not ${JSON.stringify(turns)}.`);
  const read = options.readMultiplier ?? CACHE_MULTIPLIERS[provider].read;
  const write = options.writeMultiplier ?? CACHE_MULTIPLIERS[provider].write;
  const warm = options.warm ?? false;
  const tokens = measureLevels(catalog, options.encoding === undefined ? {} : { encoding: options.encoding });

  const prefixCost = (prefix: number, cached: boolean): number => (cached ? read * prefix * turns : write * prefix + read * prefix * (turns - 1));
  const D = tokens.medianDefinition;
  const cost = {
    level0: prefixCost(tokens.native, warm),
    level1: prefixCost(tokens.level1, false),
    level3: prefixCost(tokens.level3.total, false) + turns * write * D + (read * D * turns * (turns - 1)) / 2,
  };
  let level: DispatchLevel = 0;
  if (cost.level1 <= cost.level0 * (1 - MIN_SAVING)) level = 1;
  if (cost.level3 <= cost[`level${level}`] * (1 - MIN_SAVING)) level = 3;

  const round = (n: number): string => Math.round(n).toLocaleString("en-US");
  const measured = `native ${round(tokens.native)}, level 1 ${round(tokens.level1)}, level 3 ${round(tokens.level3.total)} tokens (+${round(D)} per lookup)`;
  const costs = `estimated cost over ${turns} requests at read ${read}x, write ${write}x${warm ? ", native cached now" : ""}: level 0 ${round(cost.level0)}, level 1 ${round(cost.level1)}, level 3 ${round(cost.level3)}`;
  const chosen = level === 0 ? "level 0 (the catalog as given): no level saves 10% or more" : `level ${level}: it saves ${Math.round((1 - cost[`level${level}`] / cost.level0) * 100)}% over the catalog as given`;
  const breakEven = level === 0 ? undefined : cacheBreakEven({
    prefixTokens: level === 1 ? tokens.level1 : tokens.level3.total,
    savedTokens: Math.max(0, tokens.native - (level === 1 ? tokens.level1 : tokens.level3.total)),
    readMultiplier: read,
    writeMultiplier: write,
    warm,
  });
  return { level, reason: `${chosen}. Measured: ${measured}; ${costs}.${breakEven ? ` ${breakEven.report}.` : ""}`, tokens, cost, breakEven };
}
