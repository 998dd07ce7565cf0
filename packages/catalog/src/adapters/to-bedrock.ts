import type { JsonSchemaObject } from "@sluice/schema";
import { inputSchemaCopy, orderTools, type AdapterOptions, type AdapterTool } from "./adapter-tool.ts";

/**
 * One entry of the Converse API's `toolConfig.tools`. Declared here because sluice takes
 * no dependency on the AWS SDK; it is the `toolSpec` member of @aws-sdk/client-bedrock-runtime's
 * `Tool` union (`ToolSpecification` with a `ToolInputSchema` of the `json` kind).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html
 */
export interface BedrockTool {
  toolSpec: {
    name: string;
    description?: string;
    inputSchema: { json: JsonSchemaObject };
  };
}

/** Converse API tool specifications: `{ toolSpec: { name, description, inputSchema: { json } } }`. */
export function toBedrock(tools: readonly AdapterTool[], options: AdapterOptions = {}): BedrockTool[] {
  return orderTools(tools, options).map((tool) => ({
    toolSpec: {
      name: tool.name,
      description: tool.description,
      inputSchema: { json: inputSchemaCopy(tool) },
    },
  }));
}
