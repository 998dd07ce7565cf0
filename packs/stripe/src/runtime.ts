/**
 * How this pack's tools are called beyond their bindings (hand-written; the generated
 * pack passes it to definePack). Must not import the generated modules.
 */
import type { HttpBinding, Pagination, PackRuntime } from "@sluice/core";
import { stripeResponse } from "./responses.ts";

function takes(binding: HttpBinding, arg: string): boolean {
  return binding.parameters.some((p) => p.arg === arg);
}

/**
 * Stripe pages in two ways, told apart by the arguments a GET takes:
 *  - lists (`/v1/customers`, 90-odd of them) take `starting_after`, the id of the last
 *    item seen, and answer `{ data, has_more }`;
 *  - searches (`/v1/<resource>/search`) take `page` and answer `next_page`, an opaque
 *    cursor, beside `has_more`.
 * The conformance test checks both shapes against the spec's response schemas.
 */
export function stripePagination(binding: HttpBinding): Pagination | undefined {
  if (binding.method !== "GET") return undefined;
  if (takes(binding, "starting_after")) return { style: "lastItemId", arg: "starting_after", items: "data", hasMore: "has_more" };
  if (takes(binding, "page") && binding.path.endsWith("/search")) return { style: "cursor", arg: "page", cursor: "next_page", hasMore: "has_more", items: "data" };
  return undefined;
}

export const runtime: PackRuntime = {
  forTool(_name, binding) {
    if (binding.kind !== "http") return undefined;
    const pagination = stripePagination(binding);
    return { responseHandler: stripeResponse, ...(pagination === undefined ? {} : { pagination }) };
  },
};
