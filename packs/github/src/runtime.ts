/**
 * How GitHub GraphQL tools are called (hand-written; the generated pack passes it to
 * definePack). Must not import the generated modules.
 */
import { graphqlFieldHandler, relayPagination, type PackRuntime, type ResponseHandler } from "@sluice/core/pack";
import { githubSingle, isGithubNoise } from "./responses.ts";

const handlers = new Map<string, ResponseHandler>();
function handlerFor(field: string): ResponseHandler {
  let handler = handlers.get(field);
  if (handler === undefined) handlers.set(field, (handler = graphqlFieldHandler(field, { omit: isGithubNoise, single: githubSingle })));
  return handler;
}

export const runtime: PackRuntime = {
  endpoint: "https://api.github.com/graphql",
  auth: [[{ scheme: "bearer", type: "bearer" }]],
  // The model gets the root field's value, pruned; root connections (search,
  // securityAdvisories, ...) page with `after`.
  forTool(_name, binding) {
    if (binding.kind !== "graphql") return undefined;
    const pagination = relayPagination(binding);
    return { responseHandler: handlerFor(binding.field), ...(pagination === undefined ? {} : { pagination }) };
  },
};
