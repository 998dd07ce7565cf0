import { defaultServedSet, type Tool } from "@sluice/core/pack";
import { toMCP, toMCPShared } from "../adapters/to-mcp.ts";
import type { ListedDefinition } from "./served-list-file.ts";

/**
 * The tools/list definitions `sluice serve` answers for these tools with no option given:
 * the default served set (no `*_full` twins), by name in UTF-16 order, each as the MCP
 * adapter writes it. What generate stores in a pack's served list.
 */
export function servedListOf(tools: readonly Tool<object>[]): ListedDefinition[] {
  return defaultServedSet(tools)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool) => (Object.isFrozen(tool.inputSchema) ? toMCPShared(tool) : toMCP([tool])[0]!) as unknown as ListedDefinition);
}
