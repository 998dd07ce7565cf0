import { SluiceError } from "@sluice/schema";
import { cacheBreakEven } from "../dispatch/cache-break-even.ts";
import { CACHE_MULTIPLIERS, type CacheProvider } from "../dispatch/recommend-level.ts";
import type { UsageRecord } from "./usage-store.ts";

/**
 * What the recorded sessions say about each served tool, and which tools to stop serving.
 *
 * A tool is suggested for removal when it was declared in at least `minSessions` sessions
 * whose start times span at least `minDays` days, invoked in none of them, is in the pack's
 * latest declared set, and is not protected (named in the prompt, or the last tool left).
 *
 * Pricing, in input-token equivalents (multiply by the model's input price per token):
 * each session sends the tools on every request; the first request writes them to the
 * provider's prompt cache (w × tokens), each later one reads them (r × tokens). So a tool of
 * T tokens costs T·(w + r·(turns − 1)) per session, and `sessionsPerWeek` times that a week
 * (sessions of the pack over its recorded span, at least one day). Removing it changes the
 * cached prefix: a session in flight re-anchors once, writing the new prefix instead of
 * reading it, (w − r) × the prefix left (cacheBreakEven, warm). Payback = that / the weekly saving.
 */
export interface UsageReportOptions {
  /** Sessions a tool must have been declared in (default 5). */
  minSessions?: number;
  /** Days those sessions must span, first start to last (default 7). */
  minDays?: number;
  /** Whose cache multipliers (default `anthropic`): see CACHE_MULTIPLIERS. */
  provider?: CacheProvider;
  /** Requests (turns) per session (default 20). */
  turns?: number;
  /** Tools never to suggest, with the reason to print (`named in prompt.md`). */
  protect?: ReadonlyMap<string, string>;
  /** The packs to report, in this order (default: every pack in the records, sorted). */
  packs?: readonly string[];
}

export interface ToolUsage {
  readonly name: string;
  /** Sessions whose declared set held the tool. */
  readonly sessionsDeclared: number;
  /** Sessions that called it at least once. */
  readonly sessionsInvoked: number;
  /** Calls over all sessions. */
  readonly calls: number;
  /** Its tokens in the latest session that declared it. */
  readonly tokens: number;
  /** Whether the pack's latest session declared it. */
  readonly current: boolean;
  /** Days between the first and last session that declared it. */
  readonly spanDays: number;
}

export interface RemovalSuggestion {
  readonly tool: string;
  readonly tokens: number;
  readonly sessionsDeclared: number;
  readonly spanDays: number;
  /** Input-token equivalents saved a week. */
  readonly weeklySaving: number;
  /** Input-token equivalents the re-anchoring costs once when this tool alone is removed. */
  readonly reanchorCost: number;
  /** reanchorCost / weeklySaving. */
  readonly paybackWeeks: number;
}

export interface KeptTool {
  readonly tool: string;
  readonly reason: string;
}

export interface PackUsage {
  readonly pack: string;
  readonly sessions: number;
  readonly firstSession: string | undefined;
  readonly lastSession: string | undefined;
  readonly spanDays: number;
  readonly sessionsPerWeek: number;
  /** The latest session's declared set. */
  readonly latest: { readonly digest: string; readonly tokens: number; readonly tools: number } | undefined;
  /** Distinct declared sets seen (by digest). */
  readonly declaredSets: number;
  readonly tools: readonly ToolUsage[];
  readonly suggestions: readonly RemovalSuggestion[];
  /** Tools that met the thresholds but are kept, and why. */
  readonly kept: readonly KeptTool[];
  /** All suggestions at once: what they save a week, the one re-anchoring, payback. */
  readonly total: { readonly tokens: number; readonly weeklySaving: number; readonly reanchorCost: number; readonly paybackWeeks: number } | undefined;
}

export interface UsageReport {
  readonly criteria: { readonly minSessions: number; readonly minDays: number; readonly provider: CacheProvider; readonly read: number; readonly write: number; readonly turns: number };
  readonly packs: readonly PackUsage[];
}

const DAY_MS = 86_400_000;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function positiveInteger(name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) throw new SluiceError("INVALID_OPTION", `${name} must be an integer of at least ${min}, not ${JSON.stringify(value)}.`);
  return value;
}

/** Rounded so that a report's numbers read the same whatever order floating-point sums ran in. */
function round(value: number): number {
  return Number.isFinite(value) ? Math.round(value * 100) / 100 : value;
}

export function usageReport(records: readonly UsageRecord[], options: UsageReportOptions = {}): UsageReport {
  const minSessions = positiveInteger("minSessions", options.minSessions, 5, 1);
  const minDays = positiveInteger("minDays", options.minDays, 7, 0);
  const turns = positiveInteger("turns", options.turns, 20, 1);
  const provider = options.provider ?? "anthropic";
  if (!Object.hasOwn(CACHE_MULTIPLIERS, provider)) throw new SluiceError("INVALID_OPTION", `Unknown provider ${JSON.stringify(provider)}; use one of ${Object.keys(CACHE_MULTIPLIERS).join(", ")}.`);
  const { read, write } = CACHE_MULTIPLIERS[provider];
  const protect = options.protect ?? new Map<string, string>();

  const byPack = new Map<string, UsageRecord[]>();
  for (const record of records) {
    const list = byPack.get(record.pack) ?? [];
    list.push(record);
    byPack.set(record.pack, list);
  }
  const order = options.packs ?? [...byPack.keys()].sort(compare);
  const perSessionFactor = write + read * (turns - 1);

  const packs = order.map((pack): PackUsage => {
    const sessions = [...(byPack.get(pack) ?? [])].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || compare(a.session, b.session));
    const first = sessions[0];
    const last = sessions.at(-1);
    const spanDays = first === undefined || last === undefined ? 0 : (Date.parse(last.startedAt) - Date.parse(first.startedAt)) / DAY_MS;
    const sessionsPerWeek = sessions.length === 0 ? 0 : (sessions.length / Math.max(spanDays, 1)) * 7;
    const latestSet = new Set(Object.keys(last?.declared.tools ?? {}));

    const stats = new Map<string, { declared: number; invoked: number; calls: number; tokens: number; first: number; last: number }>();
    for (const session of sessions) {
      const at = Date.parse(session.startedAt);
      for (const [name, tokens] of Object.entries(session.declared.tools)) {
        const entry = stats.get(name) ?? { declared: 0, invoked: 0, calls: 0, tokens, first: at, last: at };
        entry.declared += 1;
        entry.tokens = tokens;
        entry.last = at;
        const calls = Object.hasOwn(session.invoked, name) ? session.invoked[name]! : 0;
        if (calls > 0) entry.invoked += 1;
        entry.calls += calls;
        stats.set(name, entry);
      }
    }
    const tools: ToolUsage[] = [...stats.keys()].sort(compare).map((name) => {
      const s = stats.get(name)!;
      return { name, sessionsDeclared: s.declared, sessionsInvoked: s.invoked, calls: s.calls, tokens: s.tokens, current: latestSet.has(name), spanDays: round((s.last - s.first) / DAY_MS) };
    });

    const kept: KeptTool[] = [];
    let candidates = tools.filter((tool) => tool.current && tool.sessionsInvoked === 0 && tool.sessionsDeclared >= minSessions && tool.spanDays >= minDays);
    candidates = candidates.filter((tool) => {
      const reason = protect.get(tool.name);
      if (reason !== undefined) kept.push({ tool: tool.name, reason });
      return reason === undefined;
    });
    const weekly = (tokens: number) => tokens * perSessionFactor * sessionsPerWeek;
    // Costliest first; ties by name, so the order never depends on the records' order.
    candidates.sort((a, b) => weekly(b.tokens) - weekly(a.tokens) || compare(a.name, b.name));
    if (candidates.length > 0 && candidates.length >= latestSet.size) {
      // A pack with no tool is no pack: the least costly one stays.
      const last = candidates.pop()!;
      kept.push({ tool: last.name, reason: "the last remaining tool of the pack" });
    }
    const prefix = last?.declared.tokens ?? 0;
    const suggestions = candidates.map((tool): RemovalSuggestion => {
      const weeklySaving = weekly(tool.tokens);
      const { oneTimeCost } = cacheBreakEven({ prefixTokens: Math.max(0, prefix - tool.tokens), savedTokens: tool.tokens, readMultiplier: read, writeMultiplier: write, warm: true });
      return { tool: tool.name, tokens: tool.tokens, sessionsDeclared: tool.sessionsDeclared, spanDays: tool.spanDays, weeklySaving: round(weeklySaving), reanchorCost: round(oneTimeCost), paybackWeeks: round(weeklySaving > 0 ? oneTimeCost / weeklySaving : Infinity) };
    });
    let total: PackUsage["total"];
    if (suggestions.length > 0) {
      const tokens = suggestions.reduce((sum, s) => sum + s.tokens, 0);
      const weeklySaving = weekly(tokens);
      const { oneTimeCost } = cacheBreakEven({ prefixTokens: Math.max(0, prefix - tokens), savedTokens: tokens, readMultiplier: read, writeMultiplier: write, warm: true });
      total = { tokens, weeklySaving: round(weeklySaving), reanchorCost: round(oneTimeCost), paybackWeeks: round(weeklySaving > 0 ? oneTimeCost / weeklySaving : Infinity) };
    }
    kept.sort((a, b) => compare(a.tool, b.tool));
    return {
      pack,
      sessions: sessions.length,
      firstSession: first?.startedAt,
      lastSession: last?.startedAt,
      spanDays: round(spanDays),
      sessionsPerWeek: round(sessionsPerWeek),
      latest: last === undefined ? undefined : { digest: last.declared.digest, tokens: last.declared.tokens, tools: latestSet.size },
      declaredSets: new Set(sessions.map((s) => s.declared.digest)).size,
      tools,
      suggestions,
      kept,
      total,
    };
  });
  return { criteria: { minSessions, minDays, provider, read, write, turns }, packs };
}
