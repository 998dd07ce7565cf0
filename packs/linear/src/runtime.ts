/**
 * How Linear tools are called (hand-written; the generated pack passes it to definePack).
 * Must not import the generated modules.
 */
import type { PackRuntime } from "@sluice/core";

export const runtime: PackRuntime = {
  endpoint: "https://api.linear.app/graphql",
  // A personal API key goes in Authorization as is; an OAuth token as a bearer token.
  auth: [[{ scheme: "apiKey", type: "apiKey", in: "header", name: "Authorization" }], [{ scheme: "oauth2", type: "bearer" }]],
};
