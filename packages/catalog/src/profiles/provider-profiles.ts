import { nearestNames, SluiceError, withSuggestion } from "@sluice/core/pack";
import type { Profile, ProfileId, ProfileLimits, StrictLimits } from "./profile.ts";

// Every limit below carries its source. "Not documented" means we found no statement by
// the vendor; the value chosen then is the conservative one (it reports more, never less).

/** `^[a-zA-Z0-9_-]+$`: the character set of OpenAI, Anthropic, Bedrock, Mistral and DeepSeek names. */
const WIRE_NAME = /^[a-zA-Z0-9_-]+$/;

const BASE: ProfileLimits = {
  nameCharacters: WIRE_NAME,
  nameMaxLength: 64,
  rootMustBeObject: true,
  rootUnionForbidden: false,
  refs: true,
  recursion: true,
  typeArrays: true,
  nullableKeyword: false,
  arrayNeedsItems: false,
};

// OpenAI Structured Outputs, "Supported schemas"
// (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas): composition
// keywords are not supported in strict mode in either limit set. Of the unions only anyOf is
// listed as supported; oneOf is refused (the OpenAI Agents SDK's strict conversion:
// "Cannot convert a JSON schema using unsupported keyword `oneOf` to strict mode"), and fit
// writes it as anyOf, losslessly where no value can match two branches.
const OPENAI_STRICT_COMPOSITION = ["allOf", "oneOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else"];

/**
 * OpenAI strict mode, dated. The launch set (Structured Outputs, 2024-08-06): at most 100
 * object properties, 5 levels of nesting, 500 enum values, 15,000 characters of names and
 * enum values; type-specific keywords (pattern, format, minimum, minItems, ...) not
 * supported. The later set on the same page: 5,000 properties, 10 levels, 1,000 enum
 * values, 120,000 characters; pattern, format, minimum/maximum and minItems/maxItems
 * supported. OpenAI does not publish the day the page changed: 2025-05-01 is our
 * boundary (the later set is quoted in third-party code from mid-2025 on, e.g. the
 * artifactize-core crate's limits.rs); pass `asOf` to pin the set you were tested against.
 */
const OPENAI_STRICT_SETS: ReadonlyArray<{ since: string; strict: StrictLimits }> = [
  {
    since: "2024-08-06",
    strict: {
      additionalPropertiesFalse: true,
      allPropertiesRequired: true,
      unsupportedKeywords: [
        ...OPENAI_STRICT_COMPOSITION,
        "minLength", "maxLength", "pattern", "format",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "patternProperties", "unevaluatedProperties", "propertyNames", "minProperties", "maxProperties",
        "unevaluatedItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems",
      ],
      maxNesting: 5,
      maxProperties: 100,
      maxEnumValues: 500,
      maxTotalStringLength: 15_000,
    },
  },
  {
    since: "2025-05-01",
    strict: {
      additionalPropertiesFalse: true,
      allPropertiesRequired: true,
      unsupportedKeywords: [
        ...OPENAI_STRICT_COMPOSITION,
        "minLength", "maxLength",
        "patternProperties", "unevaluatedProperties", "propertyNames", "minProperties", "maxProperties",
        "unevaluatedItems", "contains", "minContains", "maxContains", "uniqueItems",
      ],
      maxNesting: 10,
      maxProperties: 5_000,
      maxEnumValues: 1_000,
      maxTotalStringLength: 120_000,
    },
  },
];

/** What OpenAI-compatible APIs (Fireworks, DeepSeek) share with OpenAI: names and tool count. */
const OPENAI_COMPATIBLE: ProfileLimits = {
  ...BASE,
  // Function name: "a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64"
  // (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools).
  nameMaxLength: 64,
  // "Invalid 'tools': array too long. Expected an array with maximum length 128"
  // (API error, e.g. github.com/zed-industries/zed/issues/32946; openai/openai-openapi#76 sets maxItems 128).
  maxTools: 128,
};

const OPENAI: ProfileLimits = {
  ...OPENAI_COMPATIBLE,
  // "Invalid 'tools[13].function.description': string too long. Expected a string with maximum
  // length 1024" (API error, getsentry/sentry-mcp#106, OpenHands/OpenHands#4838); not on the docs page.
  descriptionMaxLength: 1024,
};

/** Anthropic strict tool use: the JSON Schema limitations of Structured Outputs. */
const ANTHROPIC_STRICT: StrictLimits = {
  // "additionalProperties must be set to false for objects"
  // (https://docs.claude.com/en/docs/build-with-claude/structured-outputs#json-schema-limitations).
  additionalPropertiesFalse: true,
  // Optional properties are supported (same page); nothing forces every property into `required`.
  allPropertiesRequired: false,
  // Same page: numerical constraints, string length constraints and array constraints beyond
  // minItems 0/1 are not supported; recursive schemas are not supported (see `recursion`).
  unsupportedKeywords: [
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "maxItems", "uniqueItems", "contains",
    "not", "if", "then", "else", "patternProperties", "propertyNames", "dependentSchemas", "dependentRequired",
  ],
  // No documented nesting, property or enum counts; the compiled grammar has an undocumented size ceiling.
};

const ANTHROPIC: ProfileLimits = {
  ...BASE,
  // Tool name `^[a-zA-Z0-9_-]{1,128}$` (Messages API reference, tools[].name,
  // https://docs.anthropic.com/en/api/messages). Until 2025 the API answered 64
  // ("tools.N.custom.name: String should have at most 64 characters", anthropics/claude-code#2485);
  // the claude-code profile keeps 64.
  nameMaxLength: 128,
  // "input_schema ... does not support oneOf, allOf, or anyOf at the top level"
  // (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use).
  rootUnionForbidden: true,
  // "You can define up to 4 cache breakpoints" (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
  cacheBreakpoints: 4,
  // Number of tools: not documented (tool search exists for large sets); not checked.
};

/**
 * Gemini `parameters`: "a select subset of the OpenAPI 3.0 Schema object"
 * (https://ai.google.dev/api/caching#Schema, https://ai.google.dev/gemini-api/docs/function-calling).
 * These are the fields the Schema message has; anything else (`$schema`, `$ref`/`$defs`,
 * `additionalProperties`, `const`, `oneOf`, `allOf`, `not`, `prefixItems`, ...) is not part
 * of it. The `parametersJsonSchema` form accepts JSON Schema (refs included): use the
 * mcp profile's rules for it.
 */
const GEMINI_SCHEMA_FIELDS = [
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
  "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern",
  "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
];

const TABLE: Readonly<Record<Exclude<ProfileId, "openai-strict" | "openai-responses">, Omit<Profile, "id">>> = {
  "openai-chat": { label: "OpenAI Chat Completions (non-strict functions)", limits: OPENAI },
  anthropic: { label: "Anthropic Messages", limits: ANTHROPIC },
  "anthropic-strict": {
    label: "Anthropic Messages, strict tool use",
    // Strict tools: "Recursive schemas are not supported" (structured-outputs#json-schema-limitations).
    limits: { ...ANTHROPIC, recursion: false, strict: ANTHROPIC_STRICT },
  },
  gemini: {
    label: "Gemini / Vertex AI function declarations (parameters form)",
    limits: {
      ...BASE,
      // "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores,
      // dots and dashes, with a maximum length of 64" (Vertex AI FunctionDeclaration.name,
      // https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Tool#FunctionDeclaration).
      nameCharacters: /^[a-zA-Z_][a-zA-Z0-9_.-]*$/,
      nameMaxLength: 64,
      // "You can declare up to 128 functions" per request on Vertex AI
      // (https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling#best-practices).
      maxTools: 128,
      refs: false,
      recursion: false,
      supportedKeywords: GEMINI_SCHEMA_FIELDS,
      // OpenAPI 3.0 has one `type` per schema and says `nullable: true` instead of a null type.
      typeArrays: false,
      nullableKeyword: true,
      // The Schema message: "items: Optional. Schema of the elements of Type.ARRAY"; the API
      // rejects an ARRAY without items ("parameters.properties[x].items: missing field").
      arrayNeedsItems: true,
    },
  },
  bedrock: {
    label: "Amazon Bedrock Converse (toolSpec)",
    limits: {
      ...BASE,
      // ToolSpecification.name: length 1-64, pattern [a-zA-Z0-9_-]+
      // (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html).
      nameMaxLength: 64,
      // ToolInputSchema: "The top level schema type must be object"
      // (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolInputSchema.html).
      rootMustBeObject: true,
      // Recursion and tool count depend on the model behind Converse and are not documented:
      // refused conservatively.
      recursion: false,
    },
  },
  fireworks: {
    label: "Fireworks AI (OpenAI-compatible function calling)",
    limits: {
      ...OPENAI_COMPATIBLE,
      // Fireworks resolves refs before building its grammar and answers
      // "400 JSON Schema not supported: schema depth exceeds maximum limit of 50"
      // (API error quoted in sluice issue 5); a cycle makes the depth unbounded.
      maxResolvedDepth: 50,
      recursion: false,
      // Tool count: not documented; OpenAI's 128 kept as the compatible bound.
    },
  },
  deepseek: {
    label: "DeepSeek (OpenAI-compatible function calling)",
    limits: {
      ...OPENAI_COMPATIBLE,
      // tools: "A max of 128 functions are supported"; name "a-z, A-Z, 0-9, underscores and dashes,
      // maximum length of 64" (https://api-docs.deepseek.com/api/create-chat-completion).
      maxTools: 128,
      // Recursive schemas: not documented for non-strict calls; refused conservatively.
      recursion: false,
    },
  },
  mistral: {
    label: "Mistral (function calling)",
    limits: {
      ...BASE,
      // Function name: "a-z, A-Z, 0-9 or contain underscores and dashes, with a maximum length of 64"
      // (Mistral API spec, ChatCompletionRequest tools[].function.name, https://docs.mistral.ai/api/).
      nameMaxLength: 64,
      // Tool count and recursion: not documented; tools capped like OpenAI, recursion refused.
      maxTools: 128,
      recursion: false,
    },
  },
  cursor: {
    label: "Cursor (MCP client)",
    limits: {
      ...BASE,
      // "Cursor currently only sends the first 40 tools to the Agent"
      // (https://docs.cursor.com/context/model-context-protocol, limitations section).
      maxTools: 40,
      // Server name + tool name: Cursor filters out a tool when "Combined server and tool name
      // length (60) exceeds 60 characters" (its warning, quoted in ComposioHQ/composio#2788 for a
      // 60-character pair; also awslabs/mcp#1283): a combined 60 is already refused, so 59 is the bound.
      qualifiedName: (server, tool) => server + tool,
      nameMaxLength: 59,
    },
  },
  vscode: {
    label: "VS Code / GitHub Copilot chat (MCP client)",
    limits: {
      ...BASE,
      // "You may not include more than 128 tools in your request" (microsoft/vscode-copilot-release#9375).
      maxTools: 128,
      // The model API behind Copilot limits names to 64 (microsoft/vscode#243602).
      nameMaxLength: 64,
    },
  },
  windsurf: {
    label: "Windsurf Cascade (MCP client)",
    limits: {
      ...BASE,
      // "Cascade has a limit of 100 total tools that it has access to at any given time"
      // (https://docs.windsurf.com/windsurf/cascade/mcp).
      maxTools: 100,
      // Name length: not documented; the 64 of the models behind Cascade is kept.
      nameMaxLength: 64,
    },
  },
  "claude-code": {
    label: "Claude Code (MCP client)",
    limits: {
      ...BASE,
      // MCP tools are sent as `mcp__<server>__<tool>` (anthropics/claude-code#22276) and the
      // whole name must fit 64: "tools.N.custom.name: String should have at most 64 characters"
      // (anthropics/claude-code#2485, #2412).
      qualifiedName: (server, tool) => `mcp__${server}__${tool}`,
      nameMaxLength: 64,
      rootUnionForbidden: true,
      // Tool count: not documented (Claude Code defers large tool sets to tool search).
    },
  },
  mcp: {
    label: "Model Context Protocol (tools/list)",
    limits: {
      ...BASE,
      // Tool names SHOULD be 1-128 characters of A-Z, a-z, 0-9, _, - and .
      // (MCP specification 2025-11-25, server/tools#tool-names).
      nameCharacters: /^[a-zA-Z0-9_.-]+$/,
      nameMaxLength: 128,
      // inputSchema: a JSON Schema object with `type: "object"`; JSON Schema 2020-12 is the
      // default dialect (same specification), so refs and recursion are accepted.
    },
  },
};

export const PROFILE_IDS: readonly ProfileId[] = [
  "openai-chat",
  "openai-strict",
  "openai-responses",
  "anthropic",
  "anthropic-strict",
  "gemini",
  "bedrock",
  "fireworks",
  "deepseek",
  "mistral",
  "cursor",
  "vscode",
  "windsurf",
  "claude-code",
  "mcp",
];

export interface ProfileOptions {
  /** Pick the limit set that applied on this day (ISO date); default: the latest. */
  asOf?: string;
}

/** The profile of a provider or client, by id. An unknown id is an error listing the known ones. */
export function profile(id: string, options: ProfileOptions = {}): Profile {
  if (id === "openai-strict" || id === "openai-responses") {
    const asOf = options.asOf ?? "9999-12-31";
    if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf)) throw new SluiceError("INVALID_OPTION", `asOf must be an ISO date (YYYY-MM-DD), got "${asOf}".`);
    const applicable = OPENAI_STRICT_SETS.filter((set) => set.since <= asOf);
    const set = applicable[applicable.length - 1];
    if (set === undefined) {
      throw new SluiceError("INVALID_OPTION", `OpenAI strict mode did not exist on ${asOf}; the first limit set applies from ${OPENAI_STRICT_SETS[0]!.since}.`);
    }
    return id === "openai-strict"
      ? { id, label: "OpenAI function calling, strict: true", since: set.since, limits: { ...OPENAI, rootUnionForbidden: true, strict: set.strict } }
      : {
          id,
          // Responses API function tools: "strict: Whether to enforce strict parameter validation.
          // Default true." (https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools).
          label: "OpenAI Responses (function tools strict by default)",
          since: set.since,
          limits: { ...OPENAI, rootUnionForbidden: true, strict: set.strict },
        };
  }
  if (typeof id !== "string" || !Object.hasOwn(TABLE, id)) {
    const near = typeof id === "string" ? nearestNames(id, PROFILE_IDS) : [];
    throw new SluiceError("INVALID_OPTION", withSuggestion(`Unknown provider profile ${JSON.stringify(id)}; profiles are ${PROFILE_IDS.join(", ")}.`, near), { candidates: near.length > 0 ? near : PROFILE_IDS });
  }
  const entry = TABLE[id as keyof typeof TABLE];
  return { id: id as ProfileId, ...entry };
}

/**
 * `check` and `fit` take a Profile object; JavaScript (or a cast) can hand them the id
 * instead, which would otherwise fail deep inside as a TypeError. The error names the call.
 */
export function requireProfile(value: unknown, call: "check" | "fit"): asserts value is Profile {
  if (typeof value === "object" && value !== null && typeof (value as Profile).limits === "object" && (value as Profile).limits !== null) return;
  const id = typeof value === "string" ? value : undefined;
  const known = id !== undefined && ((PROFILE_IDS as readonly string[]).includes(id) ? [id] : nearestNames(id, PROFILE_IDS));
  const example = known && known.length > 0 ? known[0]! : "openai-strict";
  throw new SluiceError(
    "INVALID_OPTION",
    `${call}() takes a provider profile object, not ${id === undefined ? (value === null ? "null" : typeof value) : `the string ${JSON.stringify(id)}`}: call ${call}(tools, profile(${JSON.stringify(example)})), with profile imported from @sluice/catalog.`,
    { candidates: known && known.length > 0 ? known : PROFILE_IDS },
  );
}
