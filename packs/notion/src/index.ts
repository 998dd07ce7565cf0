/**
 * The Notion pack: every operation of Notion's public API document as a tool.
 * Curated tools (see curated.ts) replace generated ones of the same name; the
 * untouched originals stay in `allTools` as `<name>_full`.
 */
import { credentialsFromEnv as credentialsFromVariables, packToolSets, type EnvironmentVariables, type SchemeCredential } from "@sluice/core/pack";
import { curated } from "./curated.ts";
import { facts } from "./runtime.gen.ts";
import { pack } from "./tools.gen.ts";

export * as curatedTools from "./curated.ts";
export * as generatedTools from "./tools.gen.ts";
export type * as NotionTypes from "./types.gen.ts";

/**
 * `tools`: what to hand an adapter, a ToolSession or `sluice serve` (curated tools in place
 * of the generated ones, no `*_full` twin). `allTools`: the same plus each curated tool's
 * unprojected original as `<name>_full`, for code that asks for it by name.
 */
export const { tools, allTools } = packToolSets(pack.tools, curated);

/**
 * Credentials by security scheme, as `ctx.credentials` takes them (`tool.call(args, {
 * credentials })`): each a `{ token }`, a `{ username, password }` for basic, or an
 * `oauth2Credential({ tokenUrl, clientId, clientSecret, refreshToken? })` that fetches and
 * refreshes its tokens.
 */
export type NotionCredentials = {
  "basicAuth"?: SchemeCredential;
  "bearerAuth"?: SchemeCredential;
};

/**
 * The credentials set in the environment (`process.env` unless `env` is given), by the
 * variables `sluice serve` reads:
 *  - basicAuth (basic): NOTION_BASIC_AUTH (user:password)
 *  - bearerAuth (bearer): NOTION_BEARER_AUTH (a token)
 */
export function credentialsFromEnv(env?: EnvironmentVariables): NotionCredentials {
  return credentialsFromVariables(facts, env);
}
