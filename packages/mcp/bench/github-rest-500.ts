// The first 500 tools GitHub REST serves by default (name order, no *_full twins), for
// scripts/bench-mcp.ts: a pack-sized catalog with real schemas, served as a module.
import { defaultServedSet } from "@sluice/core";
import { tools as all } from "@sluice/pack-github-rest";

export const tools = defaultServedSet(all).slice(0, 500);
