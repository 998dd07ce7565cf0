/**
 * Curated Google Docs tools (hand-written).
 *  - `docs_documents_batch_update` keeps the three text edits (insert text, delete a
 *    content range, replace all text): the full tool offers ~35 request kinds.
 *  - `docs_documents_create` keeps `title`: the API creates a blank document and ignores
 *    any content sent, and the full body (a recursive Document) costs ~17,000 tokens.
 *  - Google's transport parameters (credentials, JSONP callback, response format) are
 *    withheld everywhere: credentials come from the binding's auth, not the model.
 */
import { curate, curateEach, withoutArguments, type Tool } from "@sluice/core/pack";
import * as generated from "./tools.gen.ts";

const GOOGLE_TRANSPORT_PARAMETERS = ["__xgafv", "access_token", "alt", "callback", "fields", "key", "oauth_token", "prettyPrint", "quotaUser", "uploadType", "upload_protocol"];

export const docsDocumentsBatchUpdate = curate(generated.docsDocumentsBatchUpdate, {
  description:
    "Edit the text of a Google Doc. Each request is one of: insertText (text at an index), deleteContentRange (a start/end index range), replaceAllText (every match of a string). Requests apply in order; indexes refer to the document after the previous request.",
  keep: ["documentId", "requests", "writeControl", "requests.insertText", "requests.deleteContentRange", "requests.replaceAllText"],
});

export const docsDocumentsCreate = curate(generated.docsDocumentsCreate, {
  description: "Create a blank Google Doc with the given title. Returns the new document, including its documentId.",
  keep: ["title"],
});

const handCurated = [docsDocumentsBatchUpdate, docsDocumentsCreate];

export const curated: readonly Tool<object>[] = [
  ...handCurated,
  ...curateEach(generated.tools, withoutArguments(GOOGLE_TRANSPORT_PARAMETERS), { except: handCurated }),
];
