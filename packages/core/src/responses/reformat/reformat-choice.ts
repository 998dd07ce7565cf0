import { SluiceError } from "@sluice/schema";
import { closest } from "../../edit-distance.ts";
import { REFORMATTER_NAMES, type ReformatChoice, type ReformatterName } from "./reformatter.ts";

// Apart from the pipeline: derived() and a pack check choices when they are made, and must not load the encoders to do it.

/**
 * On unless a pack or tool says otherwise: the passes that only take out what carries
 * nothing (spacing, colour codes, redrawn frames, repeated prefixes). TOON is off: it
 * changes the notation the model reads, and on real answers it saves little where it
 * applies at all (bench/REFORMATTERS.md; docs/reformatters.md says when to turn it on).
 */
export const DEFAULT_REFORMATTERS: Readonly<Record<ReformatterName, boolean>> = Object.freeze({
  "text-clean": true,
  "compact-json": true,
  "path-fold": true,
  toon: false,
});

/**
 * Checks a reformatter choice as a pack, a tool or `derived()` gives it: an object of known
 * names to booleans. An unknown name is UNKNOWN_REFORMATTER naming the nearest (a typo that
 * did nothing would leave a pass on that the user meant to turn off).
 */
export function checkReformatChoice(choice: unknown, where: string): ReformatChoice {
  if (typeof choice !== "object" || choice === null || Array.isArray(choice)) {
    throw new SluiceError("INVALID_OPTION", `${where}: reformatters must be an object of reformatter names to true or false (${REFORMATTER_NAMES.join(", ")}).`);
  }
  for (const [name, on] of Object.entries(choice)) {
    if (!(REFORMATTER_NAMES as readonly string[]).includes(name)) {
      const near = closest(name, REFORMATTER_NAMES);
      throw new SluiceError("UNKNOWN_REFORMATTER", `${where}: no reformatter is named "${name}"${near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : ""} Reformatters: ${REFORMATTER_NAMES.join(", ")}.`, { candidates: near });
    }
    if (typeof on !== "boolean") throw new SluiceError("INVALID_OPTION", `${where}: reformatters.${name} must be true or false, got ${JSON.stringify(on)}.`);
  }
  return choice as ReformatChoice;
}

/** The reformatters that run, in order: the defaults, then each choice given on top of the one before. */
export function enabledReformatters(...choices: ReadonlyArray<ReformatChoice | undefined>): ReformatterName[] {
  const on: Record<string, boolean> = { ...DEFAULT_REFORMATTERS };
  for (const choice of choices) if (choice !== undefined) for (const name of REFORMATTER_NAMES) if (Object.hasOwn(choice, name)) on[name] = choice[name] === true;
  return REFORMATTER_NAMES.filter((name) => on[name] === true);
}

