/**
 * The dispatch helper: a provider's tool call in (as the provider's API sends it, the
 * message shapes of the OpenAI, Anthropic, Gemini and MCP docs), the answer out in the
 * provider's shape. The tools are the Swagger Petstore 3.0's, generated in process; the
 * API is a mock on 127.0.0.1 that validates every request against that same document.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePack, type Tool } from "@sluice/core";
import { dispatchLevel3, fit, profile, toolCallRouter, toGemini, type ToolCallRouter } from "@sluice/catalog";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { startOpenApiMockServer, type OpenApiMockServer } from "./support/servers/index.ts";

const SPEC = new URL("../../shared/specs/petstore/swagger-petstore-3.0.yaml", import.meta.url);
const ir = buildOpenAPIPackIR(loadDocument(readFileSync(SPEC), "swagger-petstore-3.0.yaml") as never, { name: "petstore", file: "swagger-petstore-3.0.yaml", sha256: "0".repeat(64) });
const tools = [...definePack(ir).tools] as Tool<object>[];
const TOKEN = "petstore-oauth-token-0123456789";

let api: OpenApiMockServer;
let router: ToolCallRouter;

beforeAll(async () => {
  api = await startOpenApiMockServer({ specFile: new URL(SPEC).pathname, listLength: 2 });
  router = toolCallRouter(tools, { ctx: { baseUrl: api.url, credentials: { petstore_auth: { token: TOKEN }, api_key: { token: TOKEN } } } });
});
afterAll(async () => api?.close());

const sentSince = (before: number) => api.received.slice(before);

describe("one round trip per provider, against the mock API", () => {
  it("OpenAI Chat Completions: tool_calls[] entry in, role tool message out", async () => {
    const before = api.received.length;
    // message.tool_calls[0] of a chat.completion, as the API reference shows it.
    const call = { id: "call_abc123", type: "function" as const, function: { name: "find_pets_by_status", arguments: '{"status":"available"}' } };
    const answer = await router.openAIChat(call);
    expect(answer).toMatchObject({ role: "tool", tool_call_id: "call_abc123" });
    expect(Array.isArray(JSON.parse(answer.content))).toBe(true);
    const [sent] = sentSince(before);
    expect(sent?.method).toBe("GET");
    expect(sent?.path).toBe("/pet/findByStatus?status=available");
    expect(sent?.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
    expect(api.violations).toEqual([]);
  });

  it("OpenAI Responses: function_call item in, function_call_output item out", async () => {
    const before = api.received.length;
    const item = { type: "function_call" as const, id: "fc_12345xyz", call_id: "call_12345xyz", name: "add_pet", arguments: '{"name":"doggie","photoUrls":["https://example.com/d.png"],"status":"available"}', status: "completed" };
    const answer = await router.openAIResponses(item);
    expect(answer).toMatchObject({ type: "function_call_output", call_id: "call_12345xyz" });
    expect(typeof JSON.parse(answer.output)).toBe("object");
    const [sent] = sentSince(before);
    expect(sent?.method).toBe("POST");
    expect(JSON.parse(sent!.body)).toEqual({ name: "doggie", photoUrls: ["https://example.com/d.png"], status: "available" });
    expect(api.violations).toEqual([]);
  });

  it("Anthropic Messages: tool_use block in, tool_result block out", async () => {
    const before = api.received.length;
    const block = { type: "tool_use" as const, id: "toolu_01A09q90qw90lq917835lq9", name: "get_pet_by_id", input: { petId: 10 } };
    const answer = await router.anthropic(block);
    expect(answer).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9" });
    expect(answer.is_error).toBeUndefined();
    expect(sentSince(before)[0]?.path).toBe("/pet/10");
    expect(api.violations).toEqual([]);
  });

  it("Gemini: functionCall part in, functionResponse part out (response.output)", async () => {
    const before = api.received.length;
    const part = { functionCall: { id: "call-7", name: "get_inventory", args: {} } };
    const answer = await router.gemini(part);
    expect(answer.functionResponse.name).toBe("get_inventory");
    expect(answer.functionResponse.id).toBe("call-7");
    expect(answer.functionResponse.response).toHaveProperty("output");
    expect(sentSince(before)[0]?.headers["api_key"]).toBe(TOKEN);
    expect(api.violations).toEqual([]);
  });

  it("MCP: tools/call params in, CallToolResult out", async () => {
    const before = api.received.length;
    const answer = await router.mcp({ name: "get_order_by_id", arguments: { orderId: 3 } });
    expect(answer.isError).toBeUndefined();
    expect(answer.content[0]?.type).toBe("text");
    expect(sentSince(before)[0]?.path).toBe("/store/order/3");
    expect(api.violations).toEqual([]);
  });
});

describe("model-correctable errors come back as tool results", () => {
  it.each([
    ["malformed JSON (cut off)", '{"status": "avail', "INVALID_ARGUMENTS", /not valid JSON/],
    ["an array for the arguments", "[1, 2]", "INVALID_ARGUMENTS", /must be a JSON object/],
    ["a value the enum refuses", '{"status": "sold out"}', "INVALID_ARGUMENTS", /status/],
  ])("%s", async (_label, args, code, text) => {
    const before = api.received.length;
    const answer = await router.openAIChat({ id: "call_x", type: "function", function: { name: "find_pets_by_status", arguments: args } });
    expect(answer.content.startsWith(`${code}: `)).toBe(true);
    expect(answer.content).toMatch(text);
    expect(sentSince(before)).toEqual([]);
  });

  it("an unknown name says which tools are near, per provider shape", async () => {
    const anthropic = await router.anthropic({ type: "tool_use", id: "toolu_1", name: "get_pet_byid", input: {} });
    expect(anthropic.is_error).toBe(true);
    expect(anthropic.content).toMatch(/^TOOL_NOT_FOUND: .*Did you mean get_pet_by_id/);
    const gemini = await router.gemini({ name: "nope", args: {} });
    expect(gemini.functionResponse.response).toEqual({ error: expect.stringMatching(/^TOOL_NOT_FOUND/) });
    const mcp = await router.mcp({ name: "add_pets", arguments: {} });
    expect(mcp.isError).toBe(true);
    const missing = await router.openAIChat({ id: "c", type: "function", function: { name: "", arguments: "{}" } });
    expect(missing.content).toMatch(/^INVALID_ARGUMENTS/);
  });

  it("a withheld field is EGRESS_DENIED and never sent", async () => {
    const narrow = tools.find((t) => t.name === "add_pet")!.derived({ name: "add_pet", drop: ["status"] });
    const narrowRouter = toolCallRouter([narrow], { ctx: { baseUrl: api.url, credentials: { petstore_auth: { token: TOKEN } } } });
    const before = api.received.length;
    const answer = await narrowRouter.anthropic({ type: "tool_use", id: "t", name: "add_pet", input: { name: "x", photoUrls: [], status: "sold" } });
    expect(answer.is_error).toBe(true);
    expect(answer.content).toMatch(/^EGRESS_DENIED/);
    expect(sentSince(before)).toEqual([]);
  });

  it("a missing credential is a tool result naming the scheme", async () => {
    const failing = toolCallRouter(tools, { ctx: { baseUrl: api.url, credentials: {} } });
    const answer = await failing.anthropic({ type: "tool_use", id: "t", name: "add_pet", input: { name: "x", photoUrls: [] } });
    expect(answer.is_error).toBe(true);
    expect(answer.content).toMatch(/^AUTH_MISSING: .*petstore_auth/);
  });
});

describe("the name mapping of fit and the dispatcher levels", () => {
  it("routes a fitted, renamed tool back through nameMap", async () => {
    // Gemini wants a letter or an underscore first: fit renames the tool.
    const renamed = tools.find((t) => t.name === "get_order_by_id")!.derived({ name: "2_get_order" });
    const fitted = fit([renamed], profile("gemini"));
    const [seen] = Object.keys(fitted.nameMap);
    expect(seen).not.toBe(renamed.name);
    expect(toGemini(fitted.tools, { form: "parameters" })[0]?.name).toBe(seen);
    const mapped = toolCallRouter([renamed], { nameMap: fitted.nameMap, ctx: { baseUrl: api.url } });
    const before = api.received.length;
    const answer = await mapped.gemini({ functionCall: { name: seen!, args: { orderId: 5 } } });
    expect(answer.functionResponse).toMatchObject({ name: seen, response: { output: expect.any(Object) } });
    expect(sentSince(before)[0]?.path).toBe("/store/order/5");
  });

  it("level 3: call_tool and describe_tool resolve through the dispatcher, slips tolerated", async () => {
    const dispatcher = dispatchLevel3(tools);
    const level3 = toolCallRouter(tools, { dispatcher, ctx: { baseUrl: api.url } });
    const code = [...dispatcher.codes].find(([, name]) => name === "get_order_by_id")![0];
    const describe = await level3.anthropic({ type: "tool_use", id: "d", name: "describe_tool", input: { code } });
    expect(JSON.parse(describe.content)).toMatchObject({ code, name: "get_order_by_id" });
    const before = api.received.length;
    // Arguments as JSON text beside the code: two slips resolve() tolerates.
    const answer = await level3.openAIChat({ id: "c", type: "function", function: { name: "call_tool", arguments: JSON.stringify({ code, orderId: 4 }) } });
    expect(answer.content).not.toMatch(/^[A-Z_]+: /);
    expect(sentSince(before)[0]?.path).toBe("/store/order/4");
    const wrong = await level3.openAIChat({ id: "c", type: "function", function: { name: "call_tool", arguments: JSON.stringify({ code: "t999", args: {} }) } });
    expect(wrong.content).toMatch(/^TOOL_NOT_FOUND/);
  });

  it("refuses a nameMap naming a tool it was not given", () => {
    expect(() => toolCallRouter(tools, { nameMap: { a: "no_such_tool" } })).toThrow(expect.objectContaining({ code: "TOOL_NOT_FOUND" }));
  });
});
