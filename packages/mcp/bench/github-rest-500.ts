// The first 500 tools of the GitHub REST pack (generated order), for scripts/bench-mcp.ts:
// a pack-sized catalog with real schemas, served as a module.
import { tools as all } from "@sluice/pack-github-rest";

export const tools = all.slice(0, 500);
