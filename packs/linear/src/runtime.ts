/**
 * How Linear tools are called (hand-written; the generated pack passes it to definePack).
 * Must not import the generated modules.
 */
import { graphqlFieldHandler, relayPagination, type PackRuntime, type ResponseHandler } from "@sluice/core/pack";
import { FIELD_TYPES, linearSingle, linearSummary } from "./responses.ts";

/**
 * Linear's ordering keys (`sortOrder`, `boardOrder`, `prioritySortOrder`,
 * `subIssueSortOrder`, ...) are floats for its own drag-and-drop lists; nothing an agent
 * does reads them.
 */
const SORT_KEY = /^(sortOrder|boardOrder)$|SortOrder$/;

const handlers = new Map<string, ResponseHandler>();
function handlerFor(field: string): ResponseHandler {
  let handler = handlers.get(field);
  if (handler === undefined) {
    // List items of the main types become summaries; single objects lose their noise.
    const item = linearSummary(Object.prototype.hasOwnProperty.call(FIELD_TYPES, field) ? FIELD_TYPES[field] : undefined);
    handler = graphqlFieldHandler(field, { omit: (key) => SORT_KEY.test(key), single: linearSingle, ...(item === undefined ? {} : { item }) });
    handlers.set(field, handler);
  }
  return handler;
}

export const runtime: PackRuntime = {
  endpoint: "https://api.linear.app/graphql",
  // A personal API key goes in Authorization as is; an OAuth token as a bearer token.
  auth: [[{ scheme: "apiKey", type: "apiKey", in: "header", name: "Authorization" }], [{ scheme: "oauth2", type: "bearer" }]],
  // Every tool answers one root field: the model gets that field's value, pruned. Tools
  // whose field is a Relay connection (issues, projects, comments, ...) page with `after`.
  forTool(_name, binding) {
    if (binding.kind !== "graphql") return undefined;
    const pagination = relayPagination(binding);
    return { responseHandler: handlerFor(binding.field), ...(pagination === undefined ? {} : { pagination }) };
  },
};
