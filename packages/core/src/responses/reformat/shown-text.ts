import type { CallResult } from "../../call/call.ts";
import { jsonTokens } from "./json-text.ts";

/**
 * The text a model reads for a call made through an adapter or a router: the reformatted
 * answer, and with a next page, `{"result": <answer>, "next_page_args": {...}}` so the model
 * can page by sending those arguments back. An answer that is still JSON after its
 * reformatters is spliced in as it is (a string answer stays a string) (the same bytes `JSON.stringify` gives when none
 * rewrote it); any other text goes in as a JSON string.
 */
export function shownText(result: Pick<CallResult, "output" | "text" | "nextPageArgs">): string {
  const next = result.nextPageArgs;
  if (next === undefined) return result.text;
  if (typeof result.output !== "string" && jsonTokens(result.text) !== undefined) return `{"result":${result.text},"next_page_args":${JSON.stringify(next)}}`;
  return JSON.stringify({ result: result.text, next_page_args: next });
}
