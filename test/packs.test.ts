/**
 * Pack conformance: what each shipped pack promises about its tools.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { loadGraphQLSchema, validateOperationDocument } from "@sluice/generator-graphql";
import { defaultServedSet, FULL_SUFFIX, fullNameOf, type Tool } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { cyclicComponents, refGraph, resolvedDepth } from "@sluice/schema";
import * as linear from "@sluice/pack-linear";
import * as github from "@sluice/pack-github";
import * as stripe from "@sluice/pack-stripe";
import * as githubRest from "@sluice/pack-github-rest";
import * as slack from "@sluice/pack-slack";
import * as gmail from "@sluice/pack-gmail";
import * as gdocs from "@sluice/pack-gdocs";
import * as gsheets from "@sluice/pack-gsheets";
import * as notion from "@sluice/pack-notion";
import { LONG } from "./support/tier.ts";

const isRecursive = (tool: Tool<object>) => cyclicComponents(refGraph(tool.inputSchema)).length > 0;

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

const PACKS = { linear, github, stripe, "github-rest": githubRest, slack, gmail, gdocs, gsheets, notion };

describe.each(Object.entries(PACKS))("pack %s", (_pack, module) => {
  const shipped = module.allTools;
  const generated = module.generatedTools.pack.tools;
  const byName = new Map(shipped.map((tool) => [tool.name, tool]));

  it("exports as `tools` what an adapter, a session or a server should get: allTools without a single *_full twin", () => {
    const twins = new Set(generated.filter((tool) => byName.get(tool.name) !== tool).map((tool) => fullNameOf(tool.name)));
    const served = module.tools;
    // Everything but the twins, the same values in the same order.
    expect(served).toEqual(shipped.filter((tool) => !twins.has(tool.name)));
    expect(served.every((tool) => byName.get(tool.name) === tool)).toBe(true);
    expect(served.filter((tool) => tool.name.endsWith(FULL_SUFFIX))).toEqual([]);
    expect(shipped.length - served.length).toBe(twins.size);
    // Every generated tool is served under its own name: the curated projection where there is one.
    expect(served.map((t) => t.name)).toEqual(generated.map((t) => t.name).sort());
    expect(defaultServedSet(shipped)).toEqual(served);
    if (_pack !== "github" && _pack !== "slack") expect(twins.size).toBeGreaterThan(0);
  });

  it("ships every generated tool, under its own name or curated with a *_full twin", () => {
    for (const tool of generated) {
      expect(byName.has(tool.name), tool.name).toBe(true);
      const curated = byName.get(tool.name)!;
      if (curated === tool) continue;
      const full = byName.get(fullNameOf(tool.name));
      expect(full, fullNameOf(tool.name)).toBeDefined();
      // The twin is the untouched original: same definition but for its name.
      expect({ ...full!.toJSON(), name: tool.name }).toEqual(tool.toJSON());
      expect(full!.binding).toEqual(tool.binding);
    }
    expect(new Set(shipped.map((t) => t.name)).size).toBe(shipped.length);
    expect(shipped.map((t) => t.name)).toEqual([...shipped.map((t) => t.name)].sort());
  });

  it("every tool whose input reaches a recursive type ships curated, acyclic and smaller", () => {
    const recursive = generated.filter(isRecursive);
    for (const tool of recursive) {
      const curated = byName.get(tool.name)!;
      expect(curated, tool.name).not.toBe(tool);
      expect(isRecursive(curated), tool.name).toBe(false);
      expect(resolvedDepth(curated.inputSchema), tool.name).toBeLessThan(Infinity);
      expect(schemaTokens(curated), tool.name).toBeLessThan(schemaTokens(tool));
    }
    if (_pack === "linear") expect(recursive.length).toBeGreaterThanOrEqual(30);
    if (_pack === "github" || _pack === "stripe") expect(recursive).toEqual([]);
  });

  it.runIf(_pack === "linear" || _pack === "github")("every shipped operation document, curated ones included, validates against the vendored schema", () => {
    const schema = loadGraphQLSchema(readFileSync(new URL(`../packs/${_pack}/spec/schema.graphql`, import.meta.url)));
    // The quick tier validates every curated document (written by hand, through curate) and every
    // 8th of the rest (the generator's, all from one code path); the long tier validates them all.
    const generatedAsIs = new Set(generated.filter((tool) => byName.get(tool.name) === tool));
    const sample = LONG ? shipped : shipped.filter((tool, index) => !generatedAsIs.has(tool) || index % 8 === 0);
    const invalid = sample.flatMap((tool) =>
      tool.binding.kind === "graphql" ? validateOperationDocument(schema, tool.binding.document).map((m) => `${tool.name}: ${m}`) : [`${tool.name}: not GraphQL`],
    );
    expect(invalid).toEqual([]);
  });

  it("every curated tool's input schema compiles as JSON Schema 2020-12", async () => {
    // The quick tier compiles as call-time validation does (core's projection/pin-validation.ts: refs not inlined,
    // code not optimized; a schema that compiles one way compiles the other), in a fraction of the time.
    const ajv = LONG ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv2020({ strict: false, allErrors: true, inlineRefs: false, code: { optimize: false } });
    addFormats(ajv);
    for (const [index, tool] of shipped.filter((t) => byName.has(fullNameOf(t.name))).entries()) {
      // Compiling Linear's curated tools takes seconds: vitest's RPC gets a turn now and then.
      if (index % 5 === 4) await new Promise((resolve) => setImmediate(resolve));
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    }
  });

  it("no curated tool accepts an argument its original does not", async () => {
    for (const tool of shipped) {
      if (tool.name.endsWith(FULL_SUFFIX) || byName.get(fullNameOf(tool.name)) === undefined) continue;
      const original = byName.get(fullNameOf(tool.name))!;
      const allowed = new Set((await original.paths({ depth: 3 })).map((p) => p.path));
      for (const { path } of await tool.paths({ depth: 3 })) expect(allowed.has(path), `${tool.name}: ${path}`).toBe(true);
    }
  });
});

describe("curated Linear issues_list", () => {
  it("keeps the filters people use and nothing recursive", async () => {
    const paths = new Set((await linear.curatedTools.issuesList.paths({ depth: 4 })).map((p) => p.path));
    for (const path of ["filter.title", "filter.team.key", "filter.assignee.isMe", "filter.state.type", "filter.labels.some.name", "first", "after"]) {
      expect(paths.has(path), path).toBe(true);
    }
    expect(paths.has("filter.and")).toBe(false);
    expect(paths.has("filter.assignee.assignedIssues")).toBe(false);
  });
});

describe("curated REST tools", () => {
  const tokensOf = (tools: readonly Tool<object>[], name: string) => schemaTokens(tools.find((t) => t.name === name)!);

  it("Google Docs batch update narrowed to the three text edits is at least 75% smaller", async () => {
    const curated = tokensOf(gdocs.tools, "docs_documents_batch_update");
    const full = tokensOf(gdocs.allTools, "docs_documents_batch_update_full");
    expect(1 - curated / full).toBeGreaterThanOrEqual(0.75);
    const kinds = (await gdocs.curatedTools.docsDocumentsBatchUpdate.paths("requests")).map((p) => p.path);
    expect(kinds).toEqual(["requests.deleteContentRange", "requests.insertText", "requests.replaceAllText"]);
  });

  it("Google transport parameters and credentials are never model arguments in curated tools", async () => {
    for (const tool of [...gmail.tools, ...gdocs.tools, ...gsheets.tools].filter((t) => !t.name.endsWith(FULL_SUFFIX))) {
      const args = (await tool.paths()).map((p) => p.path);
      for (const name of ["access_token", "oauth_token", "key", "callback"]) expect(args, `${tool.name}`).not.toContain(name);
    }
  });

  it("Notion curated tools pin the API version and still send it", () => {
    const tool = notion.tools.find((t) => t.name === "post_search")!;
    expect(tool.pins).toEqual({ "Notion-Version": notion.curatedTools.NOTION_VERSION });
    expect(tool.binding.kind === "http" && tool.binding.parameters.some((p) => p.arg === "Notion-Version")).toBe(true);
  });

  it("Slack tools never take the token as an argument; calls fill it from the credential", async () => {
    const carriers = slack.tools.filter((tool) => tool.withheld.some((w) => w.path === "token" && w.reason === "credential"));
    expect(carriers.length).toBeGreaterThan(150);
    for (const tool of slack.tools) expect(Object.keys(tool.inputSchema.properties as object)).not.toContain("token");
    const post = slack.tools.find((tool) => tool.name === "chat_post_message")!;
    const credentials = { slackAuth: { token: "xoxb-real" } };
    await expect(post.request({ channel: "C1", text: "hi", token: "from-the-model" }, { credentials })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
    const request = await post.request({ channel: "C1", text: "hi" }, { credentials, revealCredentials: true });
    expect(request.headers["token"]).toBe("xoxb-real");
    expect(request.headers["authorization"]).toBe("Bearer xoxb-real");
    await expect(post.call({ channel: "C1" }, { baseUrl: "http://127.0.0.1:9" })).rejects.toMatchObject({ code: "AUTH_MISSING" });
    await expect(post.call({ channel: "C1", token: "x" }, { baseUrl: "http://127.0.0.1:9" })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });
});
