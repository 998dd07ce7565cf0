/**
 * The GitHub pack: every Query and Mutation field of GitHub's public GraphQL API as a
 * tool. Curated replacements (none needed yet, see curated.ts) would keep the
 * originals as `<name>_full`.
 */
import { withCurated } from "@sluice/core";
import { curated } from "./curated.ts";
import { pack } from "./tools.gen.ts";

export * as generatedTools from "./tools.gen.ts";
export type * as GitHubTypes from "./types.gen.ts";

export const tools = withCurated(pack.tools, curated);
