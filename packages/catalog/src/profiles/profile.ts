/**
 * What one provider (or client) accepts in a tool array. Every limit in the profiles
 * table carries its source next to it; a limit nobody documents says so and is chosen
 * conservatively.
 */
export type ProfileId =
  | "openai-chat"
  | "openai-strict"
  | "openai-responses"
  | "anthropic"
  | "anthropic-strict"
  | "gemini"
  | "bedrock"
  | "fireworks"
  | "deepseek"
  | "mistral"
  | "cursor"
  | "vscode"
  | "windsurf"
  | "claude-code"
  | "mcp";

/** Limits of a provider's strict (grammar-constrained) mode. */
export interface StrictLimits {
  /** Every object must say `additionalProperties: false`. */
  additionalPropertiesFalse: boolean;
  /** Every property must be listed in `required` (optional ones become nullable). */
  allPropertiesRequired: boolean;
  /** Keywords strict mode rejects. */
  unsupportedKeywords: readonly string[];
  /** Levels of object nesting. */
  maxNesting?: number;
  /** Object properties in the whole schema. */
  maxProperties?: number;
  /** Enum values in the whole schema. */
  maxEnumValues?: number;
  /** Characters of all property names, definition names, enum and const values together. */
  maxTotalStringLength?: number;
}

export interface ProfileLimits {
  /** Characters a tool name may use (length is checked separately). */
  nameCharacters: RegExp;
  /** Longest tool name, counting `qualifiedName` when the client prefixes it. */
  nameMaxLength: number;
  /** How a client spells the name the model sees (`mcp__<server>__<tool>`). */
  qualifiedName?: (server: string, tool: string) => string;
  maxTools?: number;
  descriptionMaxLength?: number;
  /** `type: "object"` at the root of the input schema. */
  rootMustBeObject: boolean;
  /** No `anyOf`/`oneOf`/`allOf` at the root. */
  rootUnionForbidden: boolean;
  /** `$ref` and `$defs` accepted. */
  refs: boolean;
  /** Recursive (cyclic) schemas accepted. */
  recursion: boolean;
  /** Depth the provider allows once it has replaced every `$ref` by its target. */
  maxResolvedDepth?: number;
  /** When set, the only keywords accepted; anything else is unsupported. */
  supportedKeywords?: readonly string[];
  /** Keywords rejected (used when `supportedKeywords` is not set). */
  unsupportedKeywords?: readonly string[];
  /** `type: ["string", "null"]` accepted. */
  typeArrays: boolean;
  /** The profile has `nullable: true` (OpenAPI 3.0 style) to express a null type. */
  nullableKeyword: boolean;
  /** An array schema must say what its items are. */
  arrayNeedsItems: boolean;
  /** Strict mode, when it applies to every tool of this profile. */
  strict?: StrictLimits;
  /** Prompt-cache breakpoints a request may carry. */
  cacheBreakpoints?: number;
}

export interface Profile {
  id: ProfileId;
  label: string;
  /** First day this limit set applied (ISO date), for dated limit sets. */
  since?: string;
  limits: ProfileLimits;
}
