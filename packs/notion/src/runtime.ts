/**
 * How this pack's tools are called beyond their bindings (hand-written; the generated
 * pack passes it to definePack). Must not import the generated modules.
 */
import type { Binding, PackRuntime, Pagination } from "@sluice/core";
import { notionResponse } from "./responses.ts";

/**
 * Every Notion list (queries, search, block children, users, comments, templates, a
 * page's long property values) takes `start_cursor`, in the query for GETs and in the
 * body for POSTs, and answers `{ results, has_more, next_cursor }`.
 */
export function notionPagination(binding: Binding): Pagination | undefined {
  if (binding.kind !== "http") return undefined;
  const takes = binding.parameters.some((p) => p.arg === "start_cursor") || Object.prototype.hasOwnProperty.call(binding.body?.fields ?? {}, "start_cursor");
  return takes ? { style: "cursor", arg: "start_cursor", cursor: "next_cursor", hasMore: "has_more", items: "results" } : undefined;
}

export const runtime: PackRuntime = {
  forTool(_name, binding) {
    const pagination = notionPagination(binding);
    return { responseHandler: notionResponse, ...(pagination === undefined ? {} : { pagination }) };
  },
};
