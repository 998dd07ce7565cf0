/**
 * A tool module for `sluice serve`: six tools an assistant needs to triage Linear issues
 * and read Gmail, narrowed from the Linear and Gmail packs. Serve it with
 *
 *   sluice serve examples/mcp-module/tools.ts
 *
 * A module exports `tools` (an array of Tool values) and may export `outputSchemas`
 * (JSON Schemas by tool name): a tool with one also returns its result as MCP
 * `structuredContent`. Review what the model can send with
 *
 *   sluice egress examples/mcp-module/tools.ts --out examples/mcp-module/egress_map.txt
 */
import { pick, pipe, unwrap, type JsonSchemaObject, type Tool } from "@sluice/core";
import { tools as linearTools } from "@sluice/pack-linear";
import { tools as gmailTools } from "@sluice/pack-gmail";

/** A pack tool by name; a renamed or removed tool fails loudly at start-up. */
function packTool(tools: readonly Tool<object>[], name: string): Tool<Record<string, unknown>> {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in the pack`);
  return tool as Tool<Record<string, unknown>>;
}

// ---- Linear: find, read and file issues; nothing that deletes or archives.

const linearFindIssues = packTool(linearTools, "issues_list").derived({
  name: "linear_find_issues",
  description:
    "Find Linear issues by title text, team, assignee, workflow state, label or priority. Returns at most `first` issues (default 50) and a cursor: pass it back as `after` for the next page.",
  // Forward paging only; archived issues never come back.
  drop: ["last", "before", "filter.estimate", "filter.completedAt"],
  pin: { includeArchived: false },
  // What triage reads, and the page marker the next call needs.
  responseHandler: pipe(
    unwrap("data.issues"),
    pick(["nodes.id", "nodes.identifier", "nodes.title", "nodes.priority", "nodes.dueDate", "nodes.state.id", "nodes.assignee.id", "pageInfo.hasNextPage", "pageInfo.endCursor"]),
  ),
});

const linearGetIssue = packTool(linearTools, "issue").derived({
  name: "linear_get_issue",
  description: "One Linear issue by id or identifier (ENG-123): title, description, priority, url, and the ids of its state, assignee and team.",
  // The GraphQL selection set fetches the whole issue; the model gets the fields it reads.
  responseHandler: pipe(
    unwrap("data.issue"),
    pick(["id", "identifier", "title", "description", "priority", "url", "dueDate", "state.id", "assignee.id", "team.id", "updatedAt"]),
  ),
});

const linearCreateIssue = packTool(linearTools, "issue_create").derived({
  name: "linear_create_issue",
  description: "File a Linear issue in a team, optionally assigned, labelled and prioritized (0 none, 1 urgent ... 4 low).",
  keep: ["input.teamId", "input.title", "input.description", "input.assigneeId", "input.labelIds", "input.priority"],
});

// ---- Gmail: search and read the signed-in user's mail, and label it; no sending, no deleting.

const gmailSearch = packTool(gmailTools, "gmail_users_messages_list").derived({
  name: "gmail_search",
  description: "Search the user's mailbox with Gmail query syntax (from:, subject:, is:unread, newer_than:7d). Returns message ids and a page token.",
  pin: { userId: "me", includeSpamTrash: false },
  responseHandler: pick(["messages.id", "messages.threadId", "nextPageToken", "resultSizeEstimate"]),
});

const gmailReadHeaders = packTool(gmailTools, "gmail_users_messages_get").derived({
  name: "gmail_read_headers",
  description: "The sender, recipients, subject, date, labels and snippet of one message (no body, no attachments).",
  pin: { userId: "me", format: "metadata", metadataHeaders: ["From", "To", "Subject", "Date"] },
  responseHandler: (body) => {
    const message = body as { id?: string; threadId?: string; labelIds?: string[]; snippet?: string; payload?: { headers?: Array<{ name?: string; value?: string }> } };
    const headers: Record<string, string> = {};
    for (const header of message.payload?.headers ?? []) if (header.name !== undefined && header.value !== undefined) headers[header.name] = header.value;
    return { id: message.id, threadId: message.threadId, labelIds: message.labelIds ?? [], snippet: message.snippet ?? "", headers };
  },
});

const gmailLabel = packTool(gmailTools, "gmail_users_messages_modify").derived({
  name: "gmail_label_message",
  description: "Add or remove labels on one message (UNREAD, STARRED, IMPORTANT, or a label id).",
  pin: { userId: "me" },
});

export const tools: Tool<object>[] = [linearFindIssues, linearGetIssue, linearCreateIssue, gmailSearch, gmailReadHeaders, gmailLabel];

/** Declared output shapes: MCP clients get these results as `structuredContent` too. */
export const outputSchemas: Record<string, JsonSchemaObject> = {
  gmail_search: {
    type: "object",
    properties: {
      messages: { type: "array", items: { type: "object", properties: { id: { type: "string" }, threadId: { type: "string" } } } },
      nextPageToken: { type: "string" },
      resultSizeEstimate: { type: "integer" },
    },
  },
  gmail_read_headers: {
    type: "object",
    properties: {
      id: { type: "string" },
      threadId: { type: "string" },
      labelIds: { type: "array", items: { type: "string" } },
      snippet: { type: "string" },
      headers: { type: "object", additionalProperties: { type: "string" } },
    },
    required: ["labelIds", "snippet", "headers"],
  },
};
