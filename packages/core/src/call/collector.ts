import { AsyncLocalStorage } from "node:async_hooks";
import type { ReformatStage, ReformatterName } from "../responses/reformat/reformatter.ts";

/** One call as measured: what the API sent against what reached the model. */
export interface CallRecord {
  tool: string;
  /** `ok`, or the error code the call failed with. */
  outcome: "ok" | string;
  /** HTTP status, when an answer arrived. */
  status?: number;
  /** Body bytes as read from the wire, after decompression. */
  payloadBytes: number;
  /** Bytes of what the model got: the handler's result (or the error message) as compact JSON. */
  contextBytes: number;
  /** payloadBytes - contextBytes (negative when the model got more than the API sent, e.g. an error text). */
  savedBytes: number;
  /** payloadBytes / contextBytes; 1 when either is zero. */
  ratio: number;
  durationMs: number;
  /** What each enabled reformatter did to the answer after the handler (tokens before and after each stage). */
  reformat?: readonly ReformatStage[];
}

/** Per reformatter, over calls: texts it rewrote, texts it declined, and o200k tokens in and out of it. */
export interface ReformatTotals {
  reformatter: ReformatterName;
  adopted: number;
  declined: number;
  bytesBefore: number;
  bytesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * Totals over calls. The bytes fields count the calls that succeeded: what the API sent
 * against what the handler passed on. A failed call's error text is context the model got
 * too, but it has no payload to compare with, so it is counted apart (`failedContextBytes`)
 * and never makes `savedBytes` negative.
 */
export interface CallSummary {
  calls: number;
  failed: number;
  /** Body bytes of the successful calls. */
  payloadBytes: number;
  /** What the model got from the successful calls. */
  contextBytes: number;
  /** payloadBytes - contextBytes over the successful calls. */
  savedBytes: number;
  ratio: number;
  /** Bytes of the error texts the failed calls returned to the model. */
  failedContextBytes: number;
}

/** Collects call records. Attach with `collecting(collector, fn)` or `ctx.collector`. */
export class CallCollector {
  readonly #records: CallRecord[] = [];

  get records(): readonly CallRecord[] {
    return this.#records;
  }

  record(record: CallRecord): void {
    this.#records.push(Object.freeze({ ...record }));
  }

  /** Totals over every record, or over one tool's. */
  summary(tool?: string): CallSummary {
    const records = tool === undefined ? this.#records : this.#records.filter((r) => r.tool === tool);
    const ok = records.filter((r) => r.outcome === "ok");
    const failed = records.filter((r) => r.outcome !== "ok");
    const payloadBytes = ok.reduce((sum, r) => sum + r.payloadBytes, 0);
    const contextBytes = ok.reduce((sum, r) => sum + r.contextBytes, 0);
    return {
      calls: records.length,
      failed: failed.length,
      payloadBytes,
      contextBytes,
      savedBytes: payloadBytes - contextBytes,
      ratio: ratioOf(payloadBytes, contextBytes),
      failedContextBytes: failed.reduce((sum, r) => sum + r.contextBytes, 0),
    };
  }

  /** Per reformatter (in the order they run), over every record or one tool's: how often it rewrote and what it saved. */
  reformatTotals(tool?: string): ReformatTotals[] {
    const totals = new Map<ReformatterName, ReformatTotals>();
    for (const record of this.#records) {
      if (tool !== undefined && record.tool !== tool) continue;
      for (const stage of record.reformat ?? []) {
        let total = totals.get(stage.reformatter);
        if (total === undefined) totals.set(stage.reformatter, (total = { reformatter: stage.reformatter, adopted: 0, declined: 0, bytesBefore: 0, bytesAfter: 0, tokensBefore: 0, tokensAfter: 0 }));
        if (stage.adopted) total.adopted++;
        else total.declined++;
        total.bytesBefore += stage.bytesBefore;
        total.bytesAfter += stage.bytesAfter;
        total.tokensBefore += stage.tokensBefore ?? 0;
        total.tokensAfter += stage.tokensAfter ?? 0;
      }
    }
    return [...totals.values()];
  }

  /** Per-tool totals, tools sorted by name. */
  byTool(): Array<CallSummary & { tool: string }> {
    const names = [...new Set(this.#records.map((r) => r.tool))].sort();
    return names.map((tool) => ({ tool, ...this.summary(tool) }));
  }

  clear(): void {
    this.#records.length = 0;
  }
}

export function ratioOf(payloadBytes: number, contextBytes: number): number {
  return payloadBytes > 0 && contextBytes > 0 ? payloadBytes / contextBytes : 1;
}

const current = new AsyncLocalStorage<CallCollector>();

/**
 * Runs `fn` with `collector` current: every tool call made inside it, including in
 * callbacks and awaited work it starts, is recorded there. Scopes nest; the innermost wins.
 */
export function collecting<T>(collector: CallCollector, fn: () => T): T {
  return current.run(collector, fn);
}

/** The collector made current by `collecting`, if any. */
export function currentCollector(): CallCollector | undefined {
  return current.getStore();
}
