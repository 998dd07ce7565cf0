/**
 * The GitHub REST pack: every operation of GitHub's REST API description as a tool.
 * Curated tools (see curated.ts) replace generated ones of the same name; the
 * untouched originals stay in `allTools` as `<name>_full`.
 */
import { credentialsFromEnv as credentialsFromVariables, packToolSets, type EnvironmentVariables, type SchemeCredential } from "@sluice/core/pack";
import { curated } from "./curated.ts";
import { facts } from "./runtime.gen.ts";
import { pack } from "./tools.gen.ts";

export * as curatedTools from "./curated.ts";
export * as generatedTools from "./tools.gen.ts";
export type * as GitHubRestTypes from "./types.gen.ts";

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
export type GithubRestCredentials = {
  "bearer"?: SchemeCredential;
};

/**
 * The credentials set in the environment (`process.env` unless `env` is given), by the
 * variables `sluice serve` reads. The document declares no security scheme, so the pack's
 * runtime names one, `bearer`:
 *  - bearer (bearer): GITHUB_TOKEN, else GH_TOKEN (a token: personal, app or OAuth)
 */
export function credentialsFromEnv(env?: EnvironmentVariables): GithubRestCredentials {
  const vars = env ?? process.env;
  const token = [vars["GITHUB_TOKEN"], vars["GH_TOKEN"]].find((value) => typeof value === "string" && value.trim() !== "");
  return { ...credentialsFromVariables(facts, vars), ...(token === undefined ? {} : { bearer: { token: token.trim() } }) };
}
