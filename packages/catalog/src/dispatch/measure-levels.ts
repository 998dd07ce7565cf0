import { textTokens, type Encoding } from "@sluice/core/tokens";
import { canonicalJson } from "@sluice/schema";
import { viewCatalog, withDescription, type CatalogTool } from "./catalog-tool.ts";
import { dispatchLevel1 } from "./dispatch-level1.ts";
import { dispatchLevel3, type DispatchLevel3Options } from "./dispatch-level3.ts";

export interface LevelTokens {
  /** The catalog as given. */
  readonly native: number;
  /** Level 1: same tools, signature-line descriptions. */
  readonly level1: number;
  /** Level 3: the two dispatcher tools, the code map, and both together. */
  readonly level3: { readonly tools: number; readonly system: number; readonly total: number };
  /** Median tokens of one tool's full definition: what one `describe_tool` answer costs at level 3. */
  readonly medianDefinition: number;
}

/** The entries as plain JSON (a sluice Tool keeps its fields behind getters). */
function plain(catalog: readonly CatalogTool[]): unknown[] {
  return viewCatalog(catalog).map((view) => (view.shape === "schema" ? withDescription(view, view.description) : view.entry));
}

/** Tokens of a tools array as sent, in canonical compact JSON. */
export function catalogTokens(catalog: readonly CatalogTool[], encoding?: Encoding): number {
  return textTokens(canonicalJson(plain(catalog)), encoding === undefined ? {} : { encoding });
}

/** Measured (not estimated) tokens of a catalog at each dispatcher level. */
export function measureLevels(catalog: readonly CatalogTool[], options: DispatchLevel3Options & { readonly encoding?: Encoding } = {}): LevelTokens {
  const tokenOptions = options.encoding === undefined ? {} : { encoding: options.encoding };
  const dispatcher = dispatchLevel3(catalog, options);
  const tools = catalogTokens(dispatcher.tools, options.encoding);
  const system = textTokens(dispatcher.system, tokenOptions);
  const definitions = [...dispatcher.codes.keys()].map((code) => textTokens(dispatcher.describe(dispatcher.lookup(code)!), tokenOptions)).sort((a, b) => a - b);
  return {
    native: catalogTokens(catalog, options.encoding),
    level1: catalogTokens(dispatchLevel1(catalog, options), options.encoding),
    level3: { tools, system, total: tools + system },
    medianDefinition: definitions.length === 0 ? 0 : definitions[Math.floor(definitions.length / 2)]!,
  };
}
