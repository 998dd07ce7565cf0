import type { ReformatStage } from "./reformatter.ts";

/** Adds the stages of another text of the same answer (one per text block): tokens summed, adopted when adopted for any. */
export function mergeStages(into: ReformatStage[], more: readonly ReformatStage[]): ReformatStage[] {
  for (const stage of more) {
    const same = into.find((s) => s.reformatter === stage.reformatter);
    if (same === undefined) {
      into.push({ ...stage });
      continue;
    }
    same.bytesBefore += stage.bytesBefore;
    same.bytesAfter += stage.bytesAfter;
    if (same.tokensBefore !== undefined && stage.tokensBefore !== undefined) same.tokensBefore += stage.tokensBefore;
    if (same.tokensAfter !== undefined && stage.tokensAfter !== undefined) same.tokensAfter += stage.tokensAfter;
    if (stage.adopted && !same.adopted) {
      same.adopted = true;
      delete same.reason;
    }
  }
  return into;
}

/** One line per stage for a log: `compact-json 812->640` or `toon declined (no array of uniform flat records)`. */
export function describeStages(stages: readonly ReformatStage[]): string {
  const size = (s: ReformatStage) => (s.tokensBefore !== undefined && s.tokensAfter !== undefined ? `${s.tokensBefore}->${s.tokensAfter} tok` : `${s.bytesBefore}->${s.bytesAfter} B`);
  return stages.map((s) => (s.adopted ? `${s.reformatter} ${size(s)}` : `${s.reformatter} declined (${s.reason ?? "no reason"})`)).join(", ");
}
