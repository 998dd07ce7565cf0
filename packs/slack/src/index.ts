/**
 * The Slack pack: every Web API method of Slack's OpenAPI (Swagger 2.0) document as a tool.
 * Curated tools (see curated.ts) replace generated ones of the same name; the
 * untouched originals stay as `<name>_full`.
 */
import { withCurated } from "@sluice/core";
import { curated } from "./curated.ts";
import { pack } from "./tools.gen.ts";

export * as curatedTools from "./curated.ts";
export * as generatedTools from "./tools.gen.ts";
export type * as SlackTypes from "./types.gen.ts";

export const tools = withCurated(pack.tools, curated);
