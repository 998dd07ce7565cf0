/**
 * The sources the pipeline knows, by kind; each is loaded only when a pack of its kind is
 * generated (a GraphQL pack never loads the OpenAPI parser, nor an OpenAPI one graphql-js).
 */
import type { PackSource, SourceKind } from "@sluice/emit";

const SOURCES: Readonly<Record<SourceKind, () => Promise<PackSource>>> = {
  openapi: async () => (await import("@sluice/generator-openapi")).openapiSource,
  graphql: async () => (await import("@sluice/generator-graphql")).graphqlSource,
  mcp: async () => (await import("@sluice/generator-mcp")).mcpSource,
};

export function packSource(kind: SourceKind): Promise<PackSource> {
  return SOURCES[kind]();
}
