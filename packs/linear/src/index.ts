/**
 * The Linear pack: every Query and Mutation field of Linear's public GraphQL API as a
 * tool, with the recursive filter tools curated (see curated.ts) and their untouched
 * originals kept as `<name>_full`.
 */
import { withCurated } from "@sluice/core";
import { curated } from "./curated.ts";
import { pack } from "./tools.gen.ts";

export * as curatedTools from "./curated.ts";
export * as generatedTools from "./tools.gen.ts";
export type * as LinearTypes from "./types.gen.ts";

/** All tools as an agent should get them: curated where it matters, originals as `*_full`. */
export const tools = withCurated(pack.tools, curated);
