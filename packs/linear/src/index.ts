/**
 * The Linear pack: every Query and Mutation field of Linear's public GraphQL API as a
 * tool, with the recursive filter tools curated (see curated.ts) and their untouched
 * originals kept in `allTools` as `<name>_full`.
 */
import { credentialsFromEnv as credentialsFromVariables, packToolSets, type EnvironmentVariables, type SchemeCredential } from "@sluice/core/pack";
import { curated } from "./curated.ts";
import { facts } from "./runtime.gen.ts";
import { pack } from "./tools.gen.ts";

export * as curatedTools from "./curated.ts";
export * as generatedTools from "./tools.gen.ts";
export type * as LinearTypes from "./types.gen.ts";

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
export type LinearCredentials = {
  "token"?: SchemeCredential;
};

/**
 * The credentials set in the environment (`process.env` unless `env` is given), by the
 * variables `sluice serve` reads:
 *  - token (bearer): LINEAR_TOKEN (a token)
 */
export function credentialsFromEnv(env?: EnvironmentVariables): LinearCredentials {
  return credentialsFromVariables(facts, env);
}
