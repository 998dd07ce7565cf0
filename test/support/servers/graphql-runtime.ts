/**
 * graphql-js and the mock library for the test servers, both loaded with `require`:
 * @graphql-tools/mock reaches graphql-js through CommonJS, and an ESM import of
 * `graphql` would be a second copy (graphql-js refuses schemas from "another module or
 * realm"). Requiring graphql from next to the mock library gives the very copy it uses.
 */
import { createRequire } from "node:module";
import type * as GraphQLJs from "graphql";
import type * as GraphQLMock from "@graphql-tools/mock";

const requireHere = createRequire(import.meta.url);
const mockEntry = requireHere.resolve("@graphql-tools/mock");
const requireNearMock = createRequire(mockEntry);

export const graphql = requireNearMock("graphql") as typeof GraphQLJs;
export const graphqlMock = requireNearMock(mockEntry) as typeof GraphQLMock;
export type { GraphQLJs, GraphQLMock };
