// The fixed set of real pack tools the adapter tests pin: a GraphQL mutation with shared
// input types, a curated GraphQL query with a large acyclic filter, a REST tool with
// string enums and a form body, and one with nested objects and an integer default.
import { allTools as linear } from "@sluice/pack-linear";
import { tools as notion } from "@sluice/pack-notion";
import { tools as slack } from "@sluice/pack-slack";
import { SluiceError, type Tool } from "@sluice/core";

export function packTool(tools: readonly Tool[], name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`fixture tool ${name} is missing from its pack`);
  return tool;
}

/** In an order that is not by name, so the default sort is visible. */
export function fixtureTools(): Tool[] {
  return [
    packTool(slack, "chat_post_message"),
    packTool(linear, "issues_list"),
    packTool(notion, "post_search"),
    packTool(linear, "issue_create"),
  ];
}

/** A Linear full twin whose filter types are recursive (IssueFilter.and: [IssueFilter], ...). */
export function cyclicTool(): Tool {
  return packTool(linear, "issues_list_full");
}

/** The SluiceError `run` throws; fails the test if it returns or throws anything else. */
export function sluiceErrorOf(run: () => unknown): SluiceError {
  try {
    run();
  } catch (error) {
    if (error instanceof SluiceError) return error;
    throw new Error(`expected a SluiceError, got ${String(error)}`, { cause: error });
  }
  throw new Error("expected a SluiceError, but nothing was thrown");
}
