import type { JsonSchemaObject } from "@sluice/schema";
import type { ProjectOptions } from "./projection/project-schema.ts";

/**
 * What token counting and path pricing read of a tool. Declared apart from the Tool
 * class, which uses both: `tool.ts` imports `tool-paths.ts` and `tokens.ts`, and they need
 * only this shape back, so no module imports the one that imports it.
 */
export interface ToolDefinition {
  /** The definition as sent to a model: name, description, input schema. */
  toJSON(): { name: string; description: string; inputSchema: JsonSchemaObject };
}

/** A tool whose paths can be listed and priced: `Tool` is one. */
export interface ProjectableTool extends ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  /** Definition name -> the source type it came from (a split copy names its origin). */
  readonly definitionOrigins: ReadonlyMap<string, string>;
  /** The tool derived without those paths, as `derived()` would (see `Tool.project`). */
  project(options: { drop: readonly string[] }, projectOptions: ProjectOptions): ProjectableTool;
}
