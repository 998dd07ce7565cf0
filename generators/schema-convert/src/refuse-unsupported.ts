import { findUnsupportedKeyword, type ToolIR, type UnsupportedKeyword } from "@sluice/core";
import { compareText } from "@sluice/emit";
import { escapePointerSegment, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { reachableDefs } from "./reachable-defs.ts";

/**
 * Throws KEYWORD_UNSUPPORTED when a tool's arguments or a definition they reach hold a keyword
 * the call runtime would refuse (packages/core/src/unsupported-keywords.ts). Each definition
 * is searched once per build, once the operation that reached it is converted (so are the
 * definitions it refers to: its verdict does not depend on the tool), and the tool's reach
 * is walked only when some definition has one.
 */
export function refuseUnsupported(tool: Pick<ToolIR, "parameters">, operation: string, defs: ReadonlyMap<string, JsonSchemaObject>, state: UnsupportedInDefs): void {
  const definition = (name: string) => defs.get(name);
  const cache = state.verdicts;
  let found = findUnsupportedKeyword({ properties: tool.parameters.properties }, definition);
  // Between two checks the converter only adds definitions (one whose conversion fails is
  // removed before any check sees it), so an unchanged count means nothing new to search.
  if (defs.size !== state.scanned) {
    for (const [name, body] of defs) {
      if (!cache.has(name)) {
        const inDef = findUnsupportedKeyword(body, definition);
        cache.set(name, inDef === undefined ? undefined : { ...inDef, pointer: `/$defs/${escapePointerSegment(name)}${inDef.pointer}` });
      }
      state.any ||= cache.get(name) !== undefined;
    }
    state.scanned = defs.size;
  }
  if (found === undefined && state.any) {
    for (const name of [...reachableDefs([tool], defs)].sort(compareText)) {
      found = cache.get(name);
      if (found !== undefined) break;
    }
  }
  if (found !== undefined) {
    throw new SluiceError("KEYWORD_UNSUPPORTED", `${operation}: ${found.keyword} at ${found.pointer} of the generated arguments cannot be checked exactly (${found.reason}); the operation is skipped rather than generated wider than its spec.`, { pointer: found.pointer });
  }
}

/** What `refuseUnsupported` knows of the definitions so far: each one's verdict, how many were searched, whether any holds one. */
export interface UnsupportedInDefs {
  verdicts: Map<string, UnsupportedKeyword | undefined>;
  scanned: number;
  any: boolean;
}

/** A fresh `UnsupportedInDefs`, one per build. */
export function unsupportedInDefs(): UnsupportedInDefs {
  return { verdicts: new Map(), scanned: 0, any: false };
}
