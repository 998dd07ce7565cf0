// @sluice/catalog/usage: the usage store (which tools each session declared and called, names
// and counts only) and the report that suggests the tools nobody calls. Its own entry: the
// store writes files (node:fs), which the root entry's other operations never need.
export { openUsageStore, readUsageStore, parseUsageRecord, UsageStore, UsageSession, USAGE_FORMAT, DEFAULT_USAGE_DIR, type UsageRecord, type UsageReading, type UsageSessionOptions, type UsageStoreOptions } from "./usage-store.ts";
export { usageReport, type KeptTool, type PackUsage, type RemovalSuggestion, type ToolUsage, type UsageReport, type UsageReportOptions } from "./usage-report.ts";
export { toolsNamedIn } from "./tools-named-in.ts";
export type { UsageDefinition, UsageSink } from "./usage-sink.ts";
