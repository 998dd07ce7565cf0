// The first 500 tools GitHub REST serves by default (name order, no *_full twins), as
// plain JavaScript: what `sluice serve` loads in scripts/bench-startup.ts, from the
// packages' built dist/, with no TypeScript loader (as in a user's project).
import { defaultServedSet } from "@sluice/core/pack";
import { tools as all } from "@sluice/pack-github-rest";

export const tools = defaultServedSet(all).slice(0, 500);
