/**
 * The public surface is explicit: these lists change only on purpose. Internal
 * helpers (the schema workspace, selector resolution) are not exported.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { staticClosure } from "./support/static-imports.ts";
import * as schema from "@sluice/schema";
import * as core from "@sluice/core";
import * as tokens from "@sluice/core/tokens";
import * as cost from "@sluice/core/cost";
import * as catalog from "@sluice/catalog";

it("@sluice/schema exports", () => {
  expect(Object.keys(schema).sort()).toMatchInlineSnapshot(`
    [
      "ROOT",
      "SINGLE_SUBSCHEMA_KEYWORDS",
      "SUBSCHEMA_LIST_KEYWORDS",
      "SUBSCHEMA_MAP_KEYWORDS",
      "SluiceError",
      "TOOL_NAME_PATTERN",
      "UNION_KEYWORDS",
      "canonicalJson",
      "cloneJson",
      "collectGarbage",
      "collectRefs",
      "cyclicComponents",
      "deepFreeze",
      "defRef",
      "defsOf",
      "escapePointerSegment",
      "getOwn",
      "hasOwn",
      "isSchemaObject",
      "isSluiceError",
      "limitError",
      "parseLocalRef",
      "pointerFrom",
      "reachable",
      "refGraph",
      "refTarget",
      "refsFrom",
      "resolveRef",
      "resolvedDepth",
      "sameValueCycles",
      "setOwn",
      "stronglyConnectedComponents",
      "subschemasOf",
      "unescapePointerSegment",
      "walkSchema",
      "withinLimits",
    ]
  `);
});

it("@sluice/core exports", () => {
  expect(Object.keys(core).sort()).toMatchInlineSnapshot(`
    [
      "BudgetUnreachableError",
      "CallCollector",
      "DEFAULT_REFORMATTERS",
      "FULL_SUFFIX",
      "MAX_REFORMAT_CHARS",
      "OAuth2Client",
      "REFORMATTER_NAMES",
      "SluiceError",
      "TOOL_NAME_PATTERN",
      "Tool",
      "allToolsOf",
      "anyFailure",
      "apiMessage",
      "argumentRefusal",
      "at",
      "authAdditions",
      "bindingArguments",
      "bindingResponseHints",
      "buildHttpRequest",
      "callErrorText",
      "checkEgressMap",
      "checkReformatChoice",
      "checkedPagination",
      "collapseHandles",
      "collecting",
      "credentialFromEnv",
      "credentialStatus",
      "credentialsFromEnv",
      "curate",
      "curateEach",
      "currentCollector",
      "defaultResponseHandler",
      "defaultServedSet",
      "defineOwn",
      "definePack",
      "describeStages",
      "dropEmpty",
      "eachItem",
      "editDistance",
      "egressMap",
      "enabledReformatters",
      "findUnsupportedKeyword",
      "formatEgressMap",
      "fullNameOf",
      "generatedRuntime",
      "graphqlErrors",
      "graphqlFieldHandler",
      "graphqlUserErrors",
      "isEmpty",
      "isMarkerKey",
      "isOAuth2Credential",
      "isPaginationKey",
      "isRecord",
      "isSluiceError",
      "joinUrl",
      "missingMarkers",
      "nearestNames",
      "neverThrows",
      "nextLink",
      "nextLinkParam",
      "nextPageArgs",
      "oauth2Credential",
      "okFalse",
      "omit",
      "omitKeysDeep",
      "outputText",
      "ownValue",
      "packSelections",
      "packToolSets",
      "pageMarkers",
      "passThrough",
      "pick",
      "pipe",
      "projectionFloor",
      "recursionCuts",
      "reformatText",
      "refuseUnsupportedKeywords",
      "relayConnection",
      "relayPagination",
      "selectorSegment",
      "shownText",
      "specPatternTest",
      "splitSelector",
      "suggestProjection",
      "translateSpecPattern",
      "truncateStrings",
      "unfoldPaths",
      "unifiedDiff",
      "unwrap",
      "valueAt",
      "withCurated",
      "withSuggestion",
      "withoutArguments",
    ]
  `);
});

it("tokens are a separate entry point, not part of the core entry", () => {
  expect(Object.keys(tokens).sort()).toEqual(["schemaTokens", "textTokens"]);
  expect(Object.keys(core)).not.toContain("schemaTokens");
});

it("pricing for many paths of many tools is its own entry point (it loads the tokenizer)", () => {
  expect(Object.keys(cost).sort()).toEqual(["DefinitionTotals", "PieceCounter", "ToolPricer", "transparentClosure"]);
  expect(Object.keys(core)).not.toContain("ToolPricer");
});

it("@sluice/catalog exports", () => {
  expect(Object.keys(catalog).sort()).toMatchInlineSnapshot(`
    [
      "ANNOTATION_KEYWORDS",
      "BYTE_STRIP_KEYWORDS",
      "CACHE_MULTIPLIERS",
      "DEFAULT_SERVER_NAME",
      "Dispatcher",
      "LossyFitRefusedError",
      "PROFILE_IDS",
      "SEARCH_TOOL_BINDING",
      "ToolCallRouter",
      "ToolSession",
      "cacheBreakEven",
      "check",
      "describeFitChange",
      "dispatchLevel1",
      "dispatchLevel3",
      "filterTools",
      "fit",
      "measureLevels",
      "profile",
      "qualifiedName",
      "recommendLevel",
      "reduceDescriptions",
      "resolve",
      "servedListOf",
      "stripAnnotationBytes",
      "stripAnnotations",
      "toAnthropic",
      "toBedrock",
      "toGemini",
      "toMCP",
      "toMCPShared",
      "toOpenAIChat",
      "toOpenAIResponses",
      "toolCallRouter",
    ]
  `);
});

describe("agent-framework helpers: one entry point each, the framework an optional peer", () => {
  it("each entry exports its helper, and the root entry reaches no framework", async () => {
    expect(Object.keys(await import("@sluice/catalog/ai-sdk")).sort()).toEqual(["SluiceToolCallError", "toAISDKSession", "toAISDKTools"]);
    expect(Object.keys(await import("@sluice/catalog/langchain")).sort()).toEqual(["SluiceStructuredTool", "toLangChainTools"]);
    expect(Object.keys(await import("@sluice/catalog/openai-agents")).sort()).toEqual(["toOpenAIAgentsTools"]);
    const root = staticClosure("packages/catalog/src/index.ts");
    expect(root.filter((module) => module.includes("/frameworks/") || /^(ai|@langchain\/|langchain|@openai\/agents)/.test(module))).toEqual([]);
  });

  it("the frameworks are optional peer dependencies of @sluice/catalog", () => {
    const manifest = JSON.parse(readFileSync(new URL("../packages/catalog/package.json", import.meta.url), "utf8")) as { peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }>; dependencies: Record<string, string> };
    for (const framework of ["ai", "@langchain/core", "@openai/agents"]) {
      expect(manifest.peerDependencies[framework]).toBeDefined();
      expect(manifest.peerDependenciesMeta[framework]?.optional).toBe(true);
      expect(manifest.dependencies[framework]).toBeUndefined();
    }
  });
});

it("@sluice/catalog/usage exports: the usage store and its report, an entry of their own (node:fs)", async () => {
  expect(Object.keys(await import("@sluice/catalog/usage")).sort()).toEqual(["DEFAULT_USAGE_DIR", "USAGE_FORMAT", "UsageSession", "UsageStore", "openUsageStore", "parseUsageRecord", "readUsageStore", "toolsNamedIn", "usageReport"]);
  expect(staticClosure("packages/catalog/src/index.ts").filter((module) => module.includes("/usage/"))).toEqual([]);
});

it("@sluice/core/guards exports: read-only switches, fixed in the published build", async () => {
  const guards = await import("@sluice/core/guards");
  expect(Object.keys(guards).sort()).toEqual(["guards", "guardsFixed", "withoutGuard"]);
});

it("@sluice/pipeline exports", async () => {
  const pipeline = await import("@sluice/pipeline");
  expect(Object.keys(pipeline).sort()).toEqual(["SERVED_LIST_FILE", "SNAPSHOT_PATH", "asScaffolded", "buildPack", "defineConfig", "detectKind", "generatePack", "generatedEgressMap", "generatedPackTools", "installedPackage", "packJob", "pipelineVersion", "servedListText", "validateConfig", "withLiveSnapshot", "writePackFiles"]);
});
