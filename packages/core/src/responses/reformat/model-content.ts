import type { McpContentBlock, McpToolResult } from "../../call/types.ts";
import type { ReformatStage, ReformatterName } from "./reformatter.ts";
import { outputText, reformatText, type ReformatOptions } from "./reformat.ts";
import { mergeStages } from "./stages.ts";

/**
 * The content blocks of an MCP tool's answer as the model reads them. Images, audio,
 * resource links and embedded resources pass as the upstream sent them (redacted), in their
 * places: no reformatter reads them. Without a response handler each text block passes
 * through the reformatters on its own; with one, the handler's output (which read the text
 * and structured content, see mcpResultBody) stands in for the text blocks: item by item when
 * it is a list as long as they are, else as one block at the first one's place. An answer
 * without text gets no text block made up for it.
 */
export function modelContent(result: McpToolResult, output: unknown, handled: boolean, enabled: readonly ReformatterName[], options: ReformatOptions = {}): { content: McpContentBlock[]; stages: ReformatStage[] } {
  const stages: ReformatStage[] = [];
  const shown = (text: string): McpContentBlock => {
    const reformatted = reformatText(text, enabled, options);
    mergeStages(stages, reformatted.stages);
    return { type: "text", text: reformatted.text };
  };
  const blocks = result.content;
  if (!handled) {
    const content = blocks.map((block) => (block.type === "text" && typeof block["text"] === "string" ? { ...block, text: shown(block["text"]).text as string } : block));
    return { content, stages };
  }
  const texts = blocks.filter((block) => block.type === "text").length;
  // Several text blocks are read as a list; a handler that keeps its length gives each block its own item back.
  const each = texts > 1 && result.structuredContent === undefined && Array.isArray(output) && output.length === texts ? output : undefined;
  const content: McpContentBlock[] = [];
  let seen = 0;
  for (const block of blocks) {
    if (block.type !== "text") content.push(block);
    else if (each !== undefined) content.push(shown(outputText(each[seen++])));
    else if (seen++ === 0) content.push(shown(outputText(output)));
  }
  return { content, stages };
}
