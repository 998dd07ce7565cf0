/**
 * Curated Gmail tools (hand-written).
 *  - Sending, importing, inserting and drafting take the message as RFC 2822 text in
 *    `raw` (base64url). The full tools also accept a parsed MessagePart tree, which is
 *    recursive (parts within parts) and read-only in practice; the curated tools keep
 *    `raw` and the thread id, so their schemas are acyclic.
 *  - Google's transport parameters (credentials, JSONP callback, response format) are
 *    withheld everywhere: credentials come from the binding's auth, not the model.
 */
import { curate, curateEach, withoutArguments, type Tool } from "@sluice/core/pack";
import * as generated from "./tools.gen.ts";

const GOOGLE_TRANSPORT_PARAMETERS = ["__xgafv", "access_token", "alt", "callback", "fields", "key", "oauth_token", "prettyPrint", "quotaUser", "uploadType", "upload_protocol"];

const RAW_MESSAGE = "A whole RFC 2822 message (headers and body), base64url-encoded, in `raw`; `threadId` to reply in a thread.";

const rawMessage = (extra: readonly string[] = []) => ({ keep: ["userId", "body", "body.raw", "body.threadId", ...extra] });
const rawDraft = (extra: readonly string[] = []) => ({ keep: ["userId", "body", "body.message", "body.message.raw", "body.message.threadId", ...extra] });

export const gmailUsersMessagesSend = curate(generated.gmailUsersMessagesSend, { ...rawMessage(), description: `Send an email. ${RAW_MESSAGE}` });
export const gmailUsersMessagesImport = curate(generated.gmailUsersMessagesImport, rawMessage(["body.labelIds", "internalDateSource", "neverMarkSpam", "processForCalendar", "deleted"]));
export const gmailUsersMessagesInsert = curate(generated.gmailUsersMessagesInsert, rawMessage(["body.labelIds", "internalDateSource", "deleted"]));
export const gmailUsersDraftsCreate = curate(generated.gmailUsersDraftsCreate, { ...rawDraft(), description: `Create a draft. ${RAW_MESSAGE}` });
export const gmailUsersDraftsUpdate = curate(generated.gmailUsersDraftsUpdate, rawDraft(["id", "body.id"]));
export const gmailUsersDraftsSend = curate(generated.gmailUsersDraftsSend, rawDraft(["body.id"]));

const handCurated = [gmailUsersMessagesSend, gmailUsersMessagesImport, gmailUsersMessagesInsert, gmailUsersDraftsCreate, gmailUsersDraftsUpdate, gmailUsersDraftsSend];
export const curated: readonly Tool<object>[] = [
  ...handCurated,
  ...curateEach(generated.tools, withoutArguments(GOOGLE_TRANSPORT_PARAMETERS), { except: handCurated }),
];
