/**
 * Curated Notion tools (hand-written). Every request carries a `Notion-Version` header;
 * the version decides the shape of requests and responses, so it is the integration's
 * choice, not the model's: the curated tools pin it to the document's default.
 */
import { curateEach, type Tool } from "@sluice/core/pack";
import { tools as generated } from "./tools.gen.ts";

/** The version this pack's document describes (its `Notion-Version` default). */
export const NOTION_VERSION = "2025-09-03";

export const curated: readonly Tool<object>[] = curateEach(generated, (args) =>
  args.includes("Notion-Version") ? { pin: { "Notion-Version": NOTION_VERSION } } : undefined,
);
