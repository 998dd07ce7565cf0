// Deferred tool loading: one search tool first, loaded tools appended in load order.
export {
  ToolSession,
  SEARCH_TOOL_BINDING,
  type CallOutcome,
  type FromPacksOptions,
  type LoadResult,
  type ToolOrigin,
  type ToolSessionOptions,
} from "./tool-session.ts";
export { describeCatalog, compactNames, topicWords, type CatalogDescription, type CatalogGroup, type GroupLevel } from "./catalog-description.ts";
export { parseQuery, type ParsedQuery } from "./search.ts";
