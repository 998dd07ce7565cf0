import { SluiceError } from "@sluice/schema";
import { inputSchemaCopy, objectRootSchema, orderTools, type AdapterOptions, type AdapterTool, type ObjectRootSchema } from "./adapter-tool.ts";
import { toGeminiSchema, type GeminiSchema } from "./gemini-schema-object.ts";

/**
 * A Gemini function declaration, declared here so that the published types do not depend
 * on the optional `@google/genai` package; test/adapters-types.ts proves it is assignable
 * to the SDK's `FunctionDeclaration` (with its `Type` enum read as the strings it stands for).
 */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** Set in the `parameters` form. */
  parameters?: GeminiSchema;
  /** Set in the `parametersJsonSchema` form. */
  parametersJsonSchema?: ObjectRootSchema;
}

export interface GeminiOptions extends AdapterOptions {
  /**
   * `"parametersJsonSchema"`: the input schema as is (JSON Schema, refs and all).
   * `"parameters"`: converted to Gemini's OpenAPI 3.0 subset `Schema` (refs inlined,
   * unsupported keywords rewritten or dropped; see gemini-schema-object.ts). Required:
   * the two are accepted by different models and API surfaces, so there is no safe default.
   */
  form: "parameters" | "parametersJsonSchema";
  /** `parameters` form: most schema nodes one tool may expand to when refs are inlined. Default 20,000. */
  maxNodes?: number;
}

const DEFAULT_MAX_NODES = 20_000;

/**
 * Gemini function declarations: `{ name, description, parameters | parametersJsonSchema }`.
 * https://ai.google.dev/api/caching#FunctionDeclaration
 */
export function toGemini(tools: readonly AdapterTool[], options: GeminiOptions): GeminiFunctionDeclaration[] {
  const form = options?.form;
  if (form !== "parameters" && form !== "parametersJsonSchema") {
    throw new SluiceError("INVALID_OPTION", `toGemini needs { form: "parameters" } or { form: "parametersJsonSchema" }, not ${JSON.stringify(form)}.`);
  }
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_NODES;
  if (!Number.isInteger(maxNodes) || maxNodes < 1) throw new SluiceError("INVALID_OPTION", `toGemini: maxNodes must be a positive integer, not ${String(maxNodes)}.`);
  return orderTools(tools, options).map((tool) =>
    form === "parametersJsonSchema"
      ? { name: tool.name, description: tool.description, parametersJsonSchema: inputSchemaCopy(tool) }
      : { name: tool.name, description: tool.description, parameters: toGeminiSchema(tool.name, objectRootSchema(tool), { maxNodes }) },
  );
}
