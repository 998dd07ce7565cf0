/**
 * The egress promise on unions, `allOf` and open objects, on real specs: GitHub REST (the
 * vendored pack) and Discord (a spec from outside the corpus, test/fixtures/discord).
 * Each case was observed to leak or mislead before the rule "withheld means forbidden in
 * every branch" (issue 11, observations 1, 2, 3, 5 and 10).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkEgressMap, definePack, egressMap, formatEgressMap, isSluiceError, SluiceError, Tool, type CallContext, type HttpBinding, type PackDefinition } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { fit, profile } from "@sluice/catalog";
import { createServer, ServedCatalog } from "@sluice/mcp";
import { tools as githubRest } from "@sluice/pack-github-rest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { errorOf } from "./support/error-of.ts";

/** A fetch that records what would have gone on the wire and answers `{}`. */
function recorder() {
  const sent: string[] = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    sent.push(`${String(url)} ${JSON.stringify(init?.headers ?? {})} ${typeof init?.body === "string" ? init.body : String(init?.body ?? "")}`);
    return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  const ctx: CallContext = { baseUrl: "http://127.0.0.1:9", fetch, credentials: () => ({ token: "t0ken-for-tests" }) };
  return { sent, ctx };
}

async function refusal(promise: Promise<unknown>): Promise<SluiceError> {
  try {
    await promise;
  } catch (error) {
    if (isSluiceError(error)) return error;
    throw error;
  }
  throw new Error("expected a SluiceError");
}

const github = (name: string) => githubRest.find((tool) => tool.name === name)! as Tool<object>;

const discord = (() => {
  const file = fileURLToPath(new URL("./fixtures/discord/openapi.json", import.meta.url));
  const document = loadDocument(readFileSync(file), "openapi.json");
  const ir = buildOpenAPIPackIR(document, { name: "discord", file: "openapi.json", sha256: "0".repeat(64) });
  return definePack(ir as unknown as PackDefinition);
})();
const interaction = discord.tool("create_interaction_response");
const MESSAGE = "CreateMessageInteractionCallbackRequest";
const MODAL = "ModalInteractionCallbackRequest";
const interactionArgs = (body: unknown) => ({ interaction_id: "123456789012345678", interaction_token: "tok", body });

describe("withheld fields never reach the wire, whatever a union branch says (observation 1)", () => {
  const cases: Array<[string, string[], Record<string, unknown>, string]> = [
    ["pulls_request_reviewers", ["body.team_reviewers"], { owner: "o", repo: "r", pull_number: 1, body: { reviewers: ["a"], team_reviewers: ["LEAK"] } }, "/body/team_reviewers"],
    ["checks_create", ["body.output", "body.actions", "body.details_url"], { owner: "o", repo: "r", body: { name: "n", head_sha: "s", output: { title: "LEAK", summary: "x" } } }, "/body/output"],
    ["checks_create", ["body.output", "body.actions", "body.details_url"], { owner: "o", repo: "r", body: { name: "n", head_sha: "s", status: "completed", conclusion: "success", details_url: "LEAK" } }, "/body/details_url"],
    ["checks_update", ["body.output"], { owner: "o", repo: "r", check_run_id: 1, body: { name: "n", output: { summary: "LEAK" } } }, "/body/output"],
    ["gists_update", ["body.description"], { gist_id: "g", body: { files: { "a.txt": { content: "x" } }, description: "LEAK" } }, "/body/description"],
    ["repos_update_information_about_pages_site", ["body.cname"], { owner: "o", repo: "r", body: { public: true, cname: "LEAK" } }, "/body/cname"],
  ];

  it.each(cases)("%s without %j: check, request and call refuse it, nothing is sent", async (name, drop, args, pointer) => {
    const tool = github(name).derived({ name: `${name}_narrow`, drop });
    const { sent, ctx } = recorder();
    expect(tool.check(args)).toContainEqual(expect.objectContaining({ code: "withheld", path: pointer }));
    expect((await refusal(tool.request(args, ctx))).code).toBe("EGRESS_DENIED");
    expect((await refusal(tool.call(args, ctx))).code).toBe("EGRESS_DENIED");
    expect(sent).toEqual([]);
    const map = formatEgressMap(egressMap([tool]));
    expect(map).toContain(`  - ${drop[0]}: projection`);
    expect(map).not.toMatch(new RegExp(`^  \\+ ${drop[0]!.replace(/\./g, "\\.")}[.:]`, "m"));
  });

  it("the projected schema does not invite a withheld field: open branches forbid it, bare branches that require it go", () => {
    const reviewers = github("pulls_request_reviewers").derived({ drop: ["body.team_reviewers"] });
    const body = (reviewers.inputSchema.properties as Record<string, Record<string, unknown>>).body!;
    expect(body.anyOf).toEqual([{ required: ["reviewers"] }]);
    const checks = github("checks_create").derived({ drop: ["body.output"] });
    const branches = (checks.inputSchema.properties as Record<string, { oneOf: Array<{ properties: Record<string, unknown>; additionalProperties?: unknown }> }>).body!.oneOf;
    for (const branch of branches) {
      expect(branch.additionalProperties).toBe(true);
      expect(branch.properties.output).toBe(false);
    }
  });

  it("served over MCP (a module of projections), the withheld field is refused and nothing is sent", async () => {
    const narrowed = github("pulls_request_reviewers").derived({ name: "request_reviewers", drop: ["body.team_reviewers"] });
    const { sent, ctx } = recorder();
    const server = createServer(new ServedCatalog([narrowed]), { call: { fetch: ctx.fetch!, env: { GITHUB_TOKEN: "ghp_test_token" } } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "test", version: "0" });
    await client.connect(clientSide);
    try {
      const result = (await client.callTool({ name: "request_reviewers", arguments: { owner: "o", repo: "r", pull_number: 1, body: { reviewers: ["a"], team_reviewers: ["LEAK"] } } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toMatch(/^EGRESS_DENIED: /);
      expect(sent).toEqual([]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a forbidden key is not offered to strict providers either: fit drops it from closed objects, losslessly", () => {
    const checks = github("checks_create").derived({ drop: ["body.output"] });
    const fitted = fit([checks], profile("openai-strict"), { allowLossy: true });
    expect(JSON.stringify(fitted.tools[0]!.inputSchema)).not.toContain('"output"');
    expect(fitted.changes).toContainEqual(expect.objectContaining({ action: "remove-keyword", kind: "lossless" }));
  });

  it("the same call goes through once the withheld field is left out", async () => {
    const tool = github("pulls_request_reviewers").derived({ drop: ["body.team_reviewers"] });
    const { sent, ctx } = recorder();
    await tool.call({ owner: "o", repo: "r", pull_number: 1, body: { reviewers: ["a"] } }, ctx);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('{"reviewers":["a"]}');
  });

  it("guard withheldScreening: switched off, a withheld key that an open object admits gets through screening", async () => {
    // A generator-withheld member (say, documented as internal) of an object that is also
    // open: nothing in the schema forbids the key, only the withheld list does.
    const tool = Tool.create({
      name: "settings_update",
      description: "Updates settings.",
      binding: { kind: "http", method: "PATCH", path: "/settings", server: "https://api.example.test", parameters: [], body: { mediaType: "application/json", encoding: "json", wholeBodyArg: "body", required: true } },
      inputSchema: { type: "object", properties: { body: { type: "object", properties: { theme: { type: "string" } }, additionalProperties: { type: "string" } } }, required: ["body"] },
      withheld: [{ path: "body.internal_flag", reason: "internal" }],
    });
    const args = { body: { theme: "dark", internal_flag: "LEAK" } };
    expect(tool.check(args)).toEqual([expect.objectContaining({ code: "withheld", path: "/body/internal_flag" })]);
    await withoutGuard("withheldScreening", () => expect(tool.check(args)).toEqual([]));
    // The request builder's own check still stops it on the way out.
    const { sent, ctx } = recorder();
    await withoutGuard("withheldScreening", async () => expect((await refusal(tool.call(args, ctx))).code).toBe("EGRESS_DENIED"));
    expect(sent).toEqual([]);
  });
});

describe("union branches in the egress map (observation 2)", () => {
  const map = formatEgressMap(egressMap([interaction]));

  it("lists every branch's members, qualified by branch", () => {
    expect(map).toContain(`  + body.anyOf[${MESSAGE}].data.content: string | null`);
    expect(map).toContain(`  + body.anyOf[${MESSAGE}].data.tts: boolean | null`);
    expect(map).toContain(`  + body.anyOf[${MESSAGE}].type: enum: 4 | 5`);
    expect(map).toContain(`  + body.anyOf[${MODAL}].data.custom_id: string`);
    expect(map).toContain("  + body.anyOf[ApplicationCommandAutocompleteCallbackRequest].type: enum: 8");
    // Two branches with the same property name and different types are both shown.
    expect(map).toContain(`  + body.anyOf[${MODAL}].type: enum: 9`);
  });

  it("what request() sends from any branch is listed in the map", async () => {
    const { ctx } = recorder();
    const request = await interaction.request(interactionArgs({ type: 4, data: { content: "hello", tts: false } }), ctx);
    expect(String(request.body)).toBe('{"type":4,"data":{"content":"hello","tts":false}}');
    for (const member of ["type", "data", "data.content", "data.tts"]) expect(map).toContain(`  + body.anyOf[${MESSAGE}].${member}:`);
  });

  it("--check names a widening inside a branch", () => {
    const both = [`body.anyOf[${MESSAGE}]`, "body.anyOf[UpdateMessageInteractionCallbackRequest]"];
    const narrow = interaction.derived({ keep: both, drop: [`body.anyOf[${MESSAGE}].data.tts`] });
    const before = formatEgressMap(egressMap([narrow]));
    expect(before).toContain(`  - body.anyOf[${MESSAGE}].data.tts: projection`);
    const after = formatEgressMap(egressMap([interaction.derived({ keep: both })]));
    const check = checkEgressMap(before, after);
    expect(check.same).toBe(false);
    expect(check.widenings).toEqual([`tool create_interaction_response: body.anyOf[${MESSAGE}].data.tts: boolean | null (was withheld: projection)`]);
  });

  it("structured paths carry their segments and the sections they continue into", () => {
    const entry = egressMap([interaction])[0]!;
    const content = entry.visible.find((p) => p.path === `body.anyOf[${MESSAGE}].data.content`)!;
    expect(content.segments).toEqual(["body", `anyOf[${MESSAGE}]`, "data", "content"]);
    const mentions = entry.visible.find((p) => p.path === `body.anyOf[${MESSAGE}].data.allowed_mentions`)!;
    expect(mentions.continues ?? []).toEqual(entry.types.some((t) => t.name === "MessageAllowedMentionsRequest") ? ["MessageAllowedMentionsRequest"] : []);
  });
});

describe("union branches as selectors (observation 3)", () => {
  it("narrows the interaction callback to a text reply: one branch kept, its rich members dropped", async () => {
    const reply = interaction.derived({
      name: "reply_with_text",
      keep: [`body.anyOf[${MESSAGE}]`],
      drop: ["body.data.components", "body.data.attachments", "body.data.embeds", "body.data.poll"],
    });
    const map = formatEgressMap(egressMap([reply]));
    expect(map).not.toMatch(/\+ .*Modal/);
    expect(map).toContain(`  - body.anyOf[${MODAL}]: projection`);
    const { sent, ctx } = recorder();
    await reply.call(interactionArgs({ type: 4, data: { content: "hi" } }), ctx);
    expect(sent).toHaveLength(1);
    const modal = interactionArgs({ type: 9, data: { custom_id: "c", title: "t", components: [] } });
    expect((await refusal(reply.call(modal, ctx))).code).toMatch(/EGRESS_DENIED|INVALID_ARGUMENTS/);
    expect((await refusal(reply.call(interactionArgs({ type: 4, data: { content: "hi", embeds: [] } }), ctx))).code).toBe("EGRESS_DENIED");
    expect(sent).toHaveLength(1);
  });

  it("a member required in one branch only blocks its own removal, with the branch to drop named", () => {
    const error = errorOf(() => interaction.derived({ drop: ["body.data.components"] }));
    expect(error.code).toBe("REQUIRED_DROPPED");
    expect(error.candidates).toContain(`body.anyOf[${MODAL}]`);
    const withoutModal = interaction.derived({ drop: [`body.anyOf[${MODAL}]`, "body.data.components"] });
    expect(formatEgressMap(egressMap([withoutModal]))).not.toMatch(/\+ body\.[^\n]*\.components:/);
  });

  it("branches are named by type or by position, resolved against the parent's positions", () => {
    const byType = interaction.derived({ drop: [`body.anyOf[${MODAL}]`, "body.anyOf[PongInteractionCallbackRequest]"] });
    const byPosition = interaction.derived({ drop: ["body.anyOf[3]", "body.anyOf[4]"] });
    expect(byPosition.canonical()).toBe(byType.canonical());
  });

  it("unknown branches list candidates; removing every branch is LAST_BRANCH; allOf parts are not selectable", async () => {
    const unknown = errorOf(() => interaction.derived({ drop: ["body.anyOf[ModalCallback]"] }));
    expect(unknown.code).toBe("UNKNOWN_SELECTOR");
    expect(unknown.candidates?.[0]).toBe(`body.anyOf[${MODAL}]`);
    const all = (await interaction.paths("body")).map((p) => p.path).filter((p) => p.startsWith("body.anyOf["));
    expect(all).toHaveLength(7);
    expect(errorOf(() => interaction.derived({ drop: all })).code).toBe("LAST_BRANCH");
    expect(errorOf(() => interaction.derived({ drop: ["body.allOf[0]"] })).code).toBe("UNKNOWN_SELECTOR");
  });

  it("paths --by-cost prices each branch by removing it", async () => {
    const costs = await interaction.paths("body", { byCost: true });
    const modal = costs.find((p) => p.path === `body.anyOf[${MODAL}]`)!;
    expect(modal.tokens).toBeGreaterThan(100);
  });
});

/** A small HTTP tool whose body is a discriminated union with an open branch. */
function unionTool(): Tool {
  const binding: HttpBinding = {
    kind: "http",
    method: "POST",
    path: "/v1/things",
    server: "https://api.example.test",
    parameters: [{ arg: "limit", name: "limit", in: "query", required: false, style: "form", explode: true }],
    body: { mediaType: "application/json", encoding: "json", wholeBodyArg: "body", required: true },
  };
  return Tool.create({
    name: "things_create",
    description: "Creates a thing.",
    binding,
    inputSchema: {
      type: "object",
      properties: {
        limit: { type: "integer" },
        constructor: { type: "string" },
        toString: { type: "string" },
        body: { oneOf: [{ $ref: "#/$defs/Note" }, { $ref: "#/$defs/Link" }], discriminator: { propertyName: "kind" } },
      },
      required: ["body"],
      $defs: {
        Note: { type: "object", properties: { kind: { const: "note" }, text: { type: "string" }, secret: { type: "string" } }, required: ["kind"] },
        Link: { type: "object", properties: { kind: { const: "link" }, url: { type: "string" }, type: { type: "string" } }, required: ["kind"], additionalProperties: true },
      },
    },
  });
}

describe("request() refuses exactly what call() refuses (observation 5)", () => {
  const tool = unionTool().derived({ drop: ["body.type", "Note.secret"] });
  const cases: Array<[string, Record<string, unknown>]> = [
    ["a withheld key declared by a sibling branch", { body: { kind: "note", text: "x", type: "LEAK" } }],
    ["a withheld key in the open branch", { body: { kind: "link", url: "u", type: "LEAK" } }],
    ["a withheld type member", { body: { kind: "note", secret: "LEAK" } }],
    ["JSON text where the schema wants an object", { body: '{"kind":"note","secret":"LEAK"}' }],
    ["a string where the schema wants an integer", { body: { kind: "note" }, limit: "10" }],
  ];

  it.each(cases)("%s", async (_name, args) => {
    const { sent, ctx } = recorder();
    const viaRequest = await refusal(tool.request(args, ctx));
    const viaCall = await refusal(tool.call(args, ctx));
    expect(viaRequest.code).toBe(viaCall.code);
    expect(viaRequest.issues).toEqual(viaCall.issues);
    expect(sent).toEqual([]);
  });

  it("an open branch still takes keys nobody withheld", async () => {
    const { sent, ctx } = recorder();
    await tool.call({ body: { kind: "link", url: "u", extra: 1 } }, ctx);
    expect(sent[0]).toContain('{"kind":"link","url":"u","extra":1}');
  });
});

describe("validation reads own properties only (observation 10)", () => {
  it("an optional argument named constructor or toString, left out, is not reported", () => {
    const tool = unionTool();
    expect(tool.check({ body: { kind: "note" } })).toEqual([]);
    expect(tool.check({ body: { kind: "note" }, constructor: 1 })).toEqual([expect.objectContaining({ path: "/constructor" })]);
  });
});
