export { SchemaConverter, MAX_INLINE_DEPTH, type Dialect, type NamedSchemas, type SchemaConverterOptions, type UndeclaredRequired, type WithheldSink } from "./schema-object.ts";
export { RefResolver, type Located, type SourceDocument } from "./reference-object.ts";
export { type RequestBodySchema } from "./read-only-needs.ts";
export { flatteningLoses } from "./flattening-loses.ts";
export { reachableDefs } from "./reachable-defs.ts";
export { refuseUnsupported, unsupportedInDefs, type UnsupportedInDefs } from "./refuse-unsupported.ts";
export { responseSchemaHints } from "./response-schema-hints.ts";
export { MAX_SCHEMA_DEPTH } from "./max-schema-depth.ts";
export { withheldMember } from "./withheld-member.ts";
