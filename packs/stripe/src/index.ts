/**
 * The Stripe pack: every operation of Stripe's OpenAPI document as a tool.
 * Curated tools (see curated.ts) replace generated ones of the same name; the
 * untouched originals stay as `<name>_full`.
 */
import { withCurated } from "@sluice/core";
import { curated } from "./curated.ts";
import { pack } from "./tools.gen.ts";

export * as curatedTools from "./curated.ts";
export * as generatedTools from "./tools.gen.ts";
export type * as StripeTypes from "./types.gen.ts";

export const tools = withCurated(pack.tools, curated);
