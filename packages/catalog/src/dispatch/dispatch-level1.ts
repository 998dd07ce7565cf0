import { viewCatalog, withDescription, type CatalogTool } from "./catalog-tool.ts";
import { signatureLine, type SignatureOptions } from "./signature.ts";

/**
 * Level 1: the native tools, each description replaced by one signature line
 * (`name(arg: type, arg?: type) — First sentence.`). Schemas are untouched, so calls
 * need no translation; only the prose goes. Entries keep their shape and order;
 * provider-typed tools pass through unchanged.
 */
export function dispatchLevel1<T extends CatalogTool>(catalog: readonly T[], options: SignatureOptions = {}): CatalogTool[] {
  return viewCatalog(catalog).map((view) =>
    view.inputSchema === undefined ? view.entry : withDescription(view, signatureLine(view.name, view.description, view.inputSchema, options)),
  );
}
