import { createRequire } from "node:module";
import type * as GraphQL from "graphql";

let lib: typeof GraphQL | undefined;

/**
 * graphql-js, required on first use. Only GraphQL bindings need it (parsing and printing
 * operation documents), and it is the largest thing @sluice/core would otherwise load on
 * import: a REST pack, or a server of one, never pays for it. Core only parses and prints
 * documents it holds as strings (plain AST objects, no schema instances), so sharing the
 * CommonJS copy with code that imports graphql's ES build is safe.
 */
export function graphql(): typeof GraphQL {
  lib ??= createRequire(import.meta.url)("graphql") as typeof GraphQL;
  return lib;
}
