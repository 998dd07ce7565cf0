import { textTokens } from "@sluice/core/tokens";
import { viewCatalog, withDescription, type CatalogTool } from "./catalog-tool.ts";
import { signatureLine, type SignatureOptions } from "./signature.ts";

/**
 * Level 1: the native tools, each description replaced by one signature line
 * (`name(arg: type, arg?: type) — First sentence.`). Schemas are untouched, so calls
 * need no translation; only the prose goes. A description already no longer than its
 * signature line (in tokens) is kept: a short one says more than the line would (the
 * Slack pack's would grow by 16%). Entries keep their shape and order; provider-typed
 * tools pass through unchanged.
 */
export function dispatchLevel1<T extends CatalogTool>(catalog: readonly T[], options: SignatureOptions = {}): CatalogTool[] {
  return viewCatalog(catalog).map((view) => {
    if (view.inputSchema === undefined) return view.entry;
    const line = signatureLine(view.name, view.description, view.inputSchema, options);
    return textTokens(line) < textTokens(view.description) ? withDescription(view, line) : withDescription(view, view.description);
  });
}
