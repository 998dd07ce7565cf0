/**
 * How GitHub GraphQL tools are called (hand-written; the generated pack passes it to
 * definePack). Must not import the generated modules.
 */
import type { PackRuntime } from "@sluice/core";

export const runtime: PackRuntime = {
  endpoint: "https://api.github.com/graphql",
  auth: [[{ scheme: "bearer", type: "bearer" }]],
};
