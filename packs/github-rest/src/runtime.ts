/**
 * How this pack's tools are called beyond their bindings (hand-written; the generated
 * pack passes it to definePack). Must not import the generated modules.
 */
import type { HttpBinding, Pagination, PackRuntime } from "@sluice/core";
import { githubRestResponse } from "./responses.ts";

/**
 * GitHub REST pages through the `Link` header: its `rel="next"` URL carries the marker
 * the next call passes back. Which query parameter that is follows from what a GET
 * takes, in this order (the spec's parameter descriptions say so):
 *  - `cursor` (webhook deliveries), `after` (audit logs): opaque cursors;
 *  - `page`: a page number (180-odd list endpoints, search, a commit's files);
 *  - `since` where there is `per_page` but no `page` (`/users`, `/organizations`): the
 *    id of the last item seen. Elsewhere `since` is a date filter, not a marker.
 */
export function githubRestPageArg(binding: HttpBinding): string | undefined {
  if (binding.method !== "GET") return undefined;
  const query = new Set(binding.parameters.filter((p) => p.in === "query").map((p) => p.arg));
  for (const arg of ["cursor", "after", "page"]) if (query.has(arg)) return arg;
  if (query.has("since") && query.has("per_page")) return "since";
  return undefined;
}

export const runtime: PackRuntime = {
  // The document declares no security. A token (PAT, app or OAuth) goes as a bearer when
  // one is given; without one, calls go out anonymously (public data, low rate limits).
  auth: [[{ scheme: "bearer", type: "bearer" }], []],
  forTool(_name, binding) {
    if (binding.kind !== "http") return undefined;
    const arg = githubRestPageArg(binding);
    const pagination: Pagination | undefined = arg === undefined ? undefined : { style: "link", arg };
    return { responseHandler: githubRestResponse(arg), ...(pagination === undefined ? {} : { pagination }) };
  },
};
