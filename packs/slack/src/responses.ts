/**
 * What Slack answers reach the model as (hand-written). A Slack message object carries
 * its text twice (as `text` and as rich-text `blocks`), the sender's whole bot profile,
 * file objects with two dozen thumbnail URLs, and team ids on everything; a channel
 * object carries flags for a dozen conversation kinds. The handlers keep what a
 * conversation is made of (who, when, what, which thread, which files) and the paging
 * state: `has_more` (also when false) and `response_metadata.next_cursor`.
 */
import { defineOwn, isEmpty, isRecord, neverThrows, ownValue, type ResponseHandler } from "@sluice/core/pack";

type Json = unknown;

/** An object of the listed members that are present and not empty, in the order listed. */
function compact(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) if (!isEmpty(value)) defineOwn(out, key, value);
  return out;
}

/** Removes nulls and empty values at every depth; `false` and `0` stay. */
function prune(value: Json): Json {
  if (Array.isArray(value)) return value.map(prune).filter((item) => !isEmpty(item));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const pruned = prune(value[key]);
    if (!isEmpty(pruned)) defineOwn(out, key, pruned);
  }
  return out;
}

/** The text of Block Kit blocks (rich text, sections, context), for messages whose `text` is empty. */
export function blocksText(blocks: unknown): string {
  const lines: string[] = [];
  const seen = new Set<unknown>();
  const walk = (node: unknown, depth: number): void => {
    if (depth > 32 || node === null || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    const text = ownValue(record, "text");
    if (typeof text === "string" && text !== "") lines.push(text);
    else if (isRecord(text)) walk(text, depth + 1);
    for (const key of ["elements", "fields", "blocks"]) {
      const inner = ownValue(record, key);
      if (Array.isArray(inner)) walk(inner, depth + 1);
    }
  };
  walk(blocks, 0);
  return lines.join("\n");
}

/** Each element reshaped, the ones left empty dropped. */
function each(list: unknown, slim: (item: Record<string, unknown>) => unknown): unknown {
  if (!Array.isArray(list)) return undefined;
  return list.map((item) => (isRecord(item) ? slim(item) : item)).filter((item) => !isEmpty(item));
}

/** A message as the model needs it: who, when, what, which thread, which files. */
export function slimMessage(message: unknown): unknown {
  if (!isRecord(message)) return message;
  const text = ownValue(message, "text");
  const files = ownValue(message, "files");
  const reactions = ownValue(message, "reactions");
  const attachments = ownValue(message, "attachments");
  return compact([
    ["id", ownValue(message, "id")],
    ["ts", ownValue(message, "ts")],
    ["user", ownValue(message, "user")],
    ["bot_id", ownValue(message, "bot_id")],
    ["username", ownValue(message, "username")],
    ["subtype", ownValue(message, "subtype")],
    ["text", typeof text === "string" && text !== "" ? text : blocksText(ownValue(message, "blocks"))],
    ["thread_ts", ownValue(message, "thread_ts")],
    ["parent_user_id", ownValue(message, "parent_user_id")],
    ["reply_count", ownValue(message, "reply_count")],
    ["latest_reply", ownValue(message, "latest_reply")],
    ["edited", isRecord(ownValue(message, "edited")) ? ownValue(ownValue(message, "edited"), "ts") : undefined],
    ["files", each(files, (f) => compact([["id", ownValue(f, "id")], ["name", ownValue(f, "name")], ["mimetype", ownValue(f, "mimetype")]]))],
    ["reactions", each(reactions, (r) => compact([["name", ownValue(r, "name")], ["count", ownValue(r, "count")]]))],
    ["attachments", each(attachments, (a) => compact([["title", ownValue(a, "title")], ["text", ownValue(a, "text") ?? ownValue(a, "fallback")], ["url", ownValue(a, "title_link") ?? ownValue(a, "from_url")]]))],
  ]);
}

/** A channel (or DM) as the model needs it: id, name, kind, membership, topic and purpose as text. */
export function slimChannel(channel: unknown): unknown {
  if (!isRecord(channel)) return channel;
  const kind = ownValue(channel, "is_im") === true ? "im" : ownValue(channel, "is_mpim") === true ? "mpim" : ownValue(channel, "is_private") === true ? "private" : undefined;
  return compact([
    ["id", ownValue(channel, "id")],
    ["name", ownValue(channel, "name")],
    ["kind", kind],
    ["user", ownValue(channel, "user")],
    ["is_archived", ownValue(channel, "is_archived") === true ? true : undefined],
    ["is_member", ownValue(channel, "is_member")],
    ["num_members", ownValue(channel, "num_members")],
    ["topic", ownValue(ownValue(channel, "topic"), "value")],
    ["purpose", ownValue(ownValue(channel, "purpose"), "value")],
  ]);
}

/** A workspace member as the model needs it: ids, names, title, email, time zone, kind. */
export function slimUser(user: unknown): unknown {
  if (!isRecord(user)) return user;
  const profile = ownValue(user, "profile");
  return compact([
    ["id", ownValue(user, "id")],
    ["name", ownValue(user, "name")],
    ["real_name", ownValue(user, "real_name") ?? ownValue(profile, "real_name")],
    ["display_name", ownValue(profile, "display_name")],
    ["title", ownValue(profile, "title")],
    ["email", ownValue(profile, "email")],
    ["tz", ownValue(user, "tz")],
    ["is_bot", ownValue(user, "is_bot") === true ? true : undefined],
    ["is_admin", ownValue(user, "is_admin") === true ? true : undefined],
    ["deleted", ownValue(user, "deleted") === true ? true : undefined],
  ]);
}

/** Answer members that say nothing to a model: the envelope flag and Slack's client hints. */
const NOISE = new Set(["ok", "warning", "channel_actions_ts", "channel_actions_count", "pin_count", "cache_ts"]);

/**
 * Each item reshaped with `slim`, at any depth of nesting: Slack sends a flat list, but
 * several of the spec's response schemas declare the list's items as arrays of objects
 * (`channels: [[{...}]]`), and an answer shaped that way is reshaped the same, not
 * passed through whole.
 */
function slimAll(items: readonly unknown[], slim: (item: unknown) => unknown, depth: number): unknown[] {
  return items.map((item) => (Array.isArray(item) && depth < 8 ? slimAll(item, slim, depth + 1) : Array.isArray(item) ? prune(item) : slim(item))).filter((item) => !isEmpty(item));
}

/**
 * A handler that reshapes the items under `listKey` with `slim` and prunes the rest of
 * the answer, keeping `has_more` and `response_metadata.next_cursor` as sent (an empty
 * cursor says "last page").
 */
export function slackList(listKey: string, slim: (item: unknown) => unknown): ResponseHandler {
  return neverThrows((body) => {
    if (!isRecord(body)) return prune(body);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(body)) {
      if (NOISE.has(key)) continue;
      const value = body[key];
      if (key === listKey && Array.isArray(value)) {
        defineOwn(out, key, slimAll(value, slim, 0));
        continue;
      }
      if (key === "response_metadata" && isRecord(value)) {
        const cursor = ownValue(value, "next_cursor");
        const rest = prune(value) as Record<string, unknown>;
        const kept: Record<string, unknown> = {};
        if (typeof cursor === "string") defineOwn(kept, "next_cursor", cursor);
        for (const name of Object.keys(rest)) if (name !== "next_cursor") defineOwn(kept, name, rest[name]);
        if (!isEmpty(kept)) defineOwn(out, key, kept);
        continue;
      }
      const pruned = prune(value);
      if (!isEmpty(pruned)) defineOwn(out, key, pruned);
    }
    return out;
  });
}

/** Every other Slack method: the envelope flag goes, nulls and empties go, the cursor stays. */
export const slackResponse: ResponseHandler = slackList("", (item) => item);

export const conversationsHistory = slackList("messages", slimMessage);
export const conversationsList = slackList("channels", slimChannel);
export const usersList = slackList("members", slimUser);
