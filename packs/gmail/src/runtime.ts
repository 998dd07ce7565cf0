/**
 * How this pack's tools are called beyond their bindings (hand-written; the generated
 * pack passes it to definePack). Must not import the generated modules.
 */
import type { Binding, PackRuntime, Pagination } from "@sluice/core";
import { gmailAttachment, gmailResponse } from "./responses.ts";

/**
 * Google's list methods take `pageToken` and answer `nextPageToken`, absent on the last
 * page; the items sit under the collection's name, the last segment of the path
 * (`/users/{userId}/messages` answers `messages`).
 */
export function gmailPagination(binding: Binding): Pagination | undefined {
  if (binding.kind !== "http" || !binding.parameters.some((p) => p.arg === "pageToken" && p.in === "query")) return undefined;
  const collection = binding.path.split("/").filter((s) => s !== "" && !s.startsWith("{")).pop();
  return { style: "cursor", arg: "pageToken", cursor: "nextPageToken", ...(collection === undefined ? {} : { items: collection }) };
}

export const runtime: PackRuntime = {
  tools: {
    gmail_users_messages_attachments_get: { responseHandler: gmailAttachment },
  },
  forTool(_name, binding) {
    const pagination = gmailPagination(binding);
    return { responseHandler: gmailResponse, ...(pagination === undefined ? {} : { pagination }) };
  },
};
