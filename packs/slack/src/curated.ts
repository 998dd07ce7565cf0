/**
 * Curated Slack tools (hand-written). None are needed today: Slack's document passes
 * the OAuth token as a `token` argument, and the generator withholds it on every method
 * (reason `credential`; see scripts/packs-generate.ts) while the call runtime fills it
 * from the credential of scheme slackAuth, so the model never sees or sends a token.
 */
import type { Tool } from "@sluice/core";

export const curated: readonly Tool<object>[] = [];
