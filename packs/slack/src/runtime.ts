/**
 * How Slack tools are called beyond their bindings (hand-written; the generated pack
 * passes it to definePack). Must not import the generated modules.
 */
import { okFalse, type Binding, type PackRuntime, type Pagination, type ToolRuntime } from "@sluice/core/pack";
import { conversationsHistory, conversationsList, slackResponse, usersList } from "./responses.ts";

function takesArg(binding: Binding, arg: string): boolean {
  if (binding.kind !== "http") return false;
  return binding.parameters.some((p) => p.arg === arg) || Object.prototype.hasOwnProperty.call(binding.body?.fields ?? {}, arg);
}

/**
 * Slack's cursor pagination: every method taking `cursor` answers the next one in
 * `response_metadata.next_cursor`, empty on the last page. (Several of the spec's
 * response schemas leave `response_metadata` out; Slack sends it, see
 * api.slack.com/docs/pagination.)
 */
export function slackPagination(binding: Binding, items?: string): Pagination | undefined {
  if (!takesArg(binding, "cursor")) return undefined;
  return { style: "cursor", arg: "cursor", cursor: "response_metadata.next_cursor", ...(items === undefined ? {} : { items }) };
}

/** Where the items of the methods with their own handlers are. */
const LISTS: Readonly<Record<string, string>> = {
  conversations_history: "messages",
  conversations_replies: "messages",
  conversations_list: "channels",
  users_conversations: "channels",
  users_list: "members",
  conversations_members: "members",
};

/** Methods whose handler or paging differs from the pack's rule. */
const tools: Record<string, ToolRuntime> = {
  conversations_history: { responseHandler: conversationsHistory },
  conversations_replies: { responseHandler: conversationsHistory },
  conversations_list: { responseHandler: conversationsList },
  users_conversations: { responseHandler: conversationsList },
  users_list: { responseHandler: usersList },
  // The admin search answers its cursor at the top level, not in response_metadata.
  admin_conversations_search: { pagination: { style: "cursor", arg: "cursor", cursor: "next_cursor" } },
  // search.messages pages by number: `page`, `count` per page (20 unless given), matches under messages.matches.
  search_messages: { pagination: { style: "page", arg: "page", items: "messages.matches", pageSizeArg: "count", defaultPageSize: 20 } },
};

export const runtime: PackRuntime = {
  // Slack answers 200 with `ok: false` and an error code when a method fails.
  failure: okFalse,
  tools,
  // Every method gets the generic handler and, when it takes `cursor`, cursor paging;
  // `tools` entries replace either member for the methods named there.
  forTool(name, binding) {
    const pagination = slackPagination(binding, Object.prototype.hasOwnProperty.call(LISTS, name) ? LISTS[name] : undefined);
    return { responseHandler: slackResponse, ...(pagination === undefined ? {} : { pagination }) };
  },
};
