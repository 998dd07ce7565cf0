/**
 * Curated Slack tools (hand-written). Slack's document passes the credential as a
 * `token` argument; the binding already sends the caller's credential as a bearer token
 * (security scheme slackAuth), so where `token` is optional the curated tool withholds
 * it: the model never sees or sends a token. Where the document marks it required (a
 * required `token` header, 123 methods) it stays until the call runtime can fill it from
 * the credential provider: withholding a required argument needs a pin, and a
 * credential must not be pinned into a pack.
 */
import { curateEach, type Tool } from "@sluice/core";
import { tools as generated } from "./tools.gen.ts";

// Whether `token` is required is read from the schema, so importing this pack builds
// the input schemas of the methods that take a token (small; ~170 of them).
export const curated: readonly Tool<object>[] = curateEach(generated, (args, tool) => {
  const required = tool.inputSchema.required;
  return args.includes("token") && !(Array.isArray(required) && required.includes("token")) ? { drop: ["token"] } : undefined;
});
