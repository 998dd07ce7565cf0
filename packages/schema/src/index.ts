export type { JsonSchema, JsonSchemaObject, JsonValue } from "./json-schema.ts";
export { isSchemaObject } from "./json-schema.ts";
export { SluiceError, isSluiceError, type ArgumentIssue, type ErrorCode, type SluiceErrorDetails } from "./sluice-error.ts";
export { subschemasOf, walkSchema, collectRefs, type SchemaVisit, type SubschemaEdge, type WalkOptions } from "./walk-schema.ts";
export {
  SINGLE_SUBSCHEMA_KEYWORDS,
  SUBSCHEMA_LIST_KEYWORDS,
  SUBSCHEMA_MAP_KEYWORDS,
  UNION_KEYWORDS,
} from "./subschema-keywords.ts";
export { defRef, escapePointerSegment, parseLocalRef, pointerFrom, unescapePointerSegment } from "./json-pointer.ts";
export { getOwn, hasOwn, setOwn } from "./own-properties.ts";
export { cloneJson } from "./clone-json.ts";
export { canonicalJson } from "./canonical-json.ts";
export { resolveRef } from "./resolve-ref.ts";
export { ROOT, defsOf, reachable, refGraph, refTarget, refsFrom } from "./ref-graph.ts";
export { stronglyConnectedComponents, cyclicComponents } from "./strongly-connected-components.ts";
export { collectGarbage } from "./collect-garbage.ts";
export { resolvedDepth, type ResolvedDepthOptions } from "./resolved-depth.ts";
export { deepFreeze } from "./deep-freeze.ts";
export { limitError, withinLimits } from "./within-limits.ts";
export { sameValueCycles } from "./value-cycles.ts";
export { TOOL_NAME_PATTERN } from "./tool-name.ts";
