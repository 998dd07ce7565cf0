/**
 * Pricing by real pruning for tools that measure many paths of many tools at once
 * (`sluice report`): `ToolPricer` with one shared `PieceCounter`. Its own entry point
 * (`@sluice/core/cost`), as it loads the tokenizer; `tool.paths({ byCost })` is the
 * everyday way to price paths.
 */
export { PieceCounter } from "./chunk-tokens.ts";
export { DefinitionTotals, type SentDefinition } from "./definition-totals.ts";
export { ToolPricer, type PricingStats } from "./path-costs.ts";
export { transparentClosure } from "./transparent-closure.ts";
