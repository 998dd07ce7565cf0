/**
 * What Gmail answers reach the model as (hand-written). A message as the API sends it
 * is a MIME tree: every header the mail picked up on its way (often 40-80 of them,
 * DKIM signatures and Received chains included), each body twice (plain and HTML) in
 * base64url, and attachments inline when small. The model gets the headers a reply
 * needs, the text once, decoded, and attachments as metadata it can fetch by id.
 * No base64 content ever reaches it.
 */
import { defineOwn, isEmpty, isRecord, neverThrows, ownValue, type ResponseHandler } from "@sluice/core/pack";
import { attachmentsOf, decodeBase64, decodeText, headerValue, partFromGmail, partFromRfc822, readableText, type MimePart } from "./mime.ts";

type Json = unknown;

/** Headers a reader or a reply needs, in this order; the rest is transport. */
export const KEPT_HEADERS = ["From", "To", "Cc", "Bcc", "Reply-To", "Subject", "Date", "Message-ID", "In-Reply-To", "References"] as const;

/** Longest text passed on for one message; the rest is counted, not sent. */
export const MAX_TEXT_CHARS = 20_000;

function keptHeaders(part: MimePart): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headerValue(part.headers, name);
    if (value !== undefined && value !== "") defineOwn(out, name, value);
  }
  return out;
}

function capped(text: string): string {
  return text.length <= MAX_TEXT_CHARS ? text : `${text.slice(0, MAX_TEXT_CHARS)}… [${text.length - MAX_TEXT_CHARS} more characters]`;
}

/** Members of a Message that are handles or state the next call needs. */
const MESSAGE_HANDLES = ["id", "threadId", "labelIds", "historyId"] as const;

/** Whether a value is shaped like a Gmail Message with content (a payload tree or raw text). */
function hasContent(value: Record<string, unknown>): boolean {
  return isRecord(ownValue(value, "payload")) || typeof ownValue(value, "raw") === "string";
}

/**
 * A Message for the model: its handles, the kept headers, the readable text and the
 * attachments' metadata. `snippet` stays only when there is no text (format=metadata
 * or minimal). Inside a thread, text quoted from earlier messages is dropped.
 */
export function slimMessage(message: Record<string, unknown>, options: { inThread?: boolean } = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of MESSAGE_HANDLES) {
    const value = ownValue(message, key);
    if (!isEmpty(value)) defineOwn(out, key, value);
  }
  // format=full/metadata answer a parsed `payload`; format=raw the whole message in `raw`.
  let part: MimePart | undefined;
  const raw = ownValue(message, "raw");
  if (isRecord(ownValue(message, "payload"))) part = partFromGmail(ownValue(message, "payload"));
  else if (typeof raw === "string" && raw !== "") part = partFromRfc822(decodeBase64(raw));
  let text = "";
  if (part !== undefined) {
    const headers = keptHeaders(part);
    if (!isEmpty(headers)) defineOwn(out, "headers", headers);
    text = readableText(part, { dropQuotes: options.inThread === true });
    if (text !== "") defineOwn(out, "text", capped(text));
    const attachments = attachmentsOf(part);
    if (attachments.length > 0) defineOwn(out, "attachments", attachments);
  }
  const snippet = ownValue(message, "snippet");
  if (text === "" && typeof snippet === "string" && snippet !== "") defineOwn(out, "snippet", snippet);
  // Only when there is no Date header to say when the message is from.
  if (!isRecord(out["headers"]) || !Object.prototype.hasOwnProperty.call(out["headers"], "Date")) {
    const internalDate = ownValue(message, "internalDate");
    if (!isEmpty(internalDate)) defineOwn(out, "internalDate", internalDate);
  }
  return out;
}

/**
 * An attachment's content (users.messages.attachments.get): text when it decodes as
 * text, otherwise its size and a note; the bytes stay in the call result's `body` for
 * the application.
 */
export function slimAttachment(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const id = ownValue(body, "attachmentId");
  if (!isEmpty(id)) defineOwn(out, "attachmentId", id);
  const data = ownValue(body, "data");
  const bytes = typeof data === "string" ? decodeBase64(data) : undefined;
  const size = ownValue(body, "size") ?? bytes?.byteLength;
  if (size !== undefined) defineOwn(out, "size", size);
  if (bytes !== undefined) {
    const text = decodeText(bytes, "utf-8");
    // Text when it round-trips as UTF-8 and holds no control characters beyond whitespace.
    if (!text.includes("\uFFFD") && !/[\u0000-\u0008\u000E-\u001F]/.test(text)) defineOwn(out, "text", capped(text));
    else defineOwn(out, "content", `binary, ${bytes.byteLength} bytes (not shown)`);
  }
  return out;
}

/** Removes nulls and empty values; reshapes every Message with content found on the way. */
function walk(value: Json, inThread: boolean, depth: number): Json {
  if (Array.isArray(value)) return value.map((item) => walk(item, inThread, depth + 1)).filter((item) => !isEmpty(item));
  if (!isRecord(value)) return value;
  if (hasContent(value)) return slimMessage(value, { inThread });
  // A thread: its messages quote each other.
  const thread = depth === 0 && Array.isArray(ownValue(value, "messages")) && typeof ownValue(value, "id") === "string";
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // A thread's snippet repeats the start of its last message, which follows in full.
    if (thread && key === "snippet") continue;
    const pruned = walk(value[key], inThread || (thread && key === "messages"), depth + 1);
    if (!isEmpty(pruned)) defineOwn(out, key, pruned);
  }
  return out;
}

/** The handler for every Gmail tool. Ids, `threadId`, `labelIds`, `historyId` and `nextPageToken` are kept. */
export const gmailResponse: ResponseHandler = neverThrows((body) => walk(body, false, 0));

/** users.messages.attachments.get: text attachments as text, binary ones as a size. */
export const gmailAttachment: ResponseHandler = neverThrows((body) => (isRecord(body) ? slimAttachment(body) : walk(body, false, 0)));
