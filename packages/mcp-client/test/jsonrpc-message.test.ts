/**
 * The fast JSON-RPC message check (jsonrpc-message.ts) against the SDK's own schema, seeded
 * fast-check: for values shaped like messages and for near misses (a wrong version, an id
 * of the wrong type, a member too many, a params that is no object, a progress token or a
 * related-task entry of any kind), `parseJsonRpcMessage` accepts exactly what
 * `JSONRPCMessageSchema` accepts and returns what it returns. Quick tier: 200 runs;
 * `pnpm test:long` (test/support/tier.ts) runs 20,000. SLUICE_FUZZ_SEED replays a seed.
 */
import fc from "fast-check";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { deserializeJsonRpc, parseJsonRpcMessage } from "../src/jsonrpc-message.ts";
import { LONG } from "../../../test/support/tier.ts";

const SEED = Number(process.env.SLUICE_FUZZ_SEED ?? 20_261_201);
const RUNS = LONG ? 20_000 : 200;

const anyJson = fc.jsonValue({ maxDepth: 3 });
const id = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(1.5), fc.constant(2 ** 60), fc.constant(null), fc.boolean());
const meta = fc.oneof(
  fc.constant(undefined),
  anyJson,
  fc.record(
    {
      progressToken: id,
      "io.modelcontextprotocol/related-task": fc.oneof(fc.record({ taskId: fc.string() }), fc.record({ taskId: fc.string(), extra: fc.integer() }), anyJson),
      other: anyJson,
      ["__proto__"]: anyJson,
    },
    { requiredKeys: [] },
  ),
);
const looseObject = fc.oneof(
  fc.record({ _meta: meta, name: fc.string({ maxLength: 5 }), arguments: anyJson, content: fc.array(anyJson, { maxLength: 2 }) }, { requiredKeys: [] }),
  anyJson,
);
const message = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), fc.constant("2.0"), fc.constant("1.0"), fc.constant(2)),
      id,
      method: fc.oneof(fc.constantFrom("tools/call", "tools/list", "notifications/progress"), fc.integer()),
      params: looseObject,
      result: looseObject,
      error: fc.oneof(fc.record({ code: fc.integer(), message: fc.string() }), anyJson),
      extra: anyJson,
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown);

describe("parseJsonRpcMessage", () => {
  it("accepts what the SDK's JSONRPCMessageSchema accepts, and returns what it returns", () => {
    fc.assert(
      fc.property(message, (value) => {
        const sdk = JSONRPCMessageSchema.safeParse(value);
        const fast = parseJsonRpcMessage(value);
        expect(fast.success).toBe(sdk.success);
        if (fast.success && sdk.success) expect(fast.data).toEqual(sdk.data);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it.each([
    ["a request", '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":1},"_meta":{"progressToken":"p"}}}', true],
    ["a result", '{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"hi"}]}}', true],
    ["an error", '{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}', true],
    ["a notification with a member too many", '{"jsonrpc":"2.0","method":"n","x":1}', false],
    ["a request with a fractional id", '{"jsonrpc":"2.0","id":1.5,"method":"m"}', false],
    ["a request whose params is a list", '{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}', false],
  ])("%s: %s", (_name, line, valid) => {
    const sdk = JSONRPCMessageSchema.safeParse(JSON.parse(line));
    expect(sdk.success).toBe(valid);
    if (valid) expect(deserializeJsonRpc(line)).toEqual(sdk.data);
    else expect(() => deserializeJsonRpc(line)).toThrow();
  });

  it("leaves a related-task entry to the schema, which strips its unknown members", () => {
    const value = JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t","x":1}}}}');
    const parsed = parseJsonRpcMessage(value);
    expect(parsed).toEqual({ success: true, data: JSONRPCMessageSchema.parse(value) });
    expect(parsed.success && (parsed.data as { params: { _meta: Record<string, unknown> } }).params._meta["io.modelcontextprotocol/related-task"]).toEqual({ taskId: "t" });
  });
});
