import { generatorInfoFrom } from "@sluice/emit";

/** Named in the header of every file emitted from a GraphQL-built IR. */
export const GRAPHQL_GENERATOR = generatorInfoFrom(new URL("../package.json", import.meta.url));
