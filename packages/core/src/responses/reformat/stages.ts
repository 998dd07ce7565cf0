import type { ReformatStage } from "./reformatter.ts";

/** Adds the stages of another text of the same answer (one per text block): tokens summed, adopted when adopted for any. */
export function mergeStages(into: ReformatStage[], more: readonly ReformatStage[]): ReformatStage[] {
  for (const stage of more) {
    const same = into.find((s) => s.reformatter === stage.reformatter);
    if (same === undefined) {
      into.push({ ...stage });
      continue;
    }
    same.tokensBefore += stage.tokensBefore;
    same.tokensAfter += stage.tokensAfter;
    if (stage.adopted && !same.adopted) {
      same.adopted = true;
      delete same.reason;
    }
  }
  return into;
}

/** One line per stage for a log: `compact-json 812->640` or `toon declined (no array of uniform flat records)`. */
export function describeStages(stages: readonly ReformatStage[]): string {
  return stages.map((s) => (s.adopted ? `${s.reformatter} ${s.tokensBefore}->${s.tokensAfter} tok` : `${s.reformatter} declined (${s.reason ?? "no reason"})`)).join(", ");
}
