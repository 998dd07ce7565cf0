/**
 * graphql-js for the test servers. The workspace root does not depend on `graphql`
 * itself (only packages do), so it is loaded from next to @graphql-tools/mock: that is
 * the very copy the mock library imports, and two copies would fail graphql-js's
 * "another module or realm" instanceof checks. Types come from the generator package's
 * copy, the same version in the lockfile, as a type-only import.
 */
import { createRequire } from "node:module";
import type * as GraphQLJs from "../../../generators/graphql/node_modules/graphql/index.js";
import type * as GraphQLMock from "@graphql-tools/mock";

const requireHere = createRequire(import.meta.url);
const mockEntry = requireHere.resolve("@graphql-tools/mock");
const requireNearMock = createRequire(mockEntry);

export const graphql = requireNearMock("graphql") as typeof GraphQLJs;
export const graphqlMock = requireNearMock(mockEntry) as typeof GraphQLMock;
export type { GraphQLJs, GraphQLMock };
