/**
 * Curated GitHub GraphQL tools (hand-written). GitHub's input types have no cycles
 * (test/packs.test.ts checks that no generated tool has a recursive input), so no tool
 * needs bounding, and no curated tool replaces a generated one yet.
 */
import type { Tool } from "@sluice/core";

export const curated: readonly Tool<object>[] = [];
