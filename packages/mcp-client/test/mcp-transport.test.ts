/**
 * The one transport both `sluice generate` and the proxy reach a server with
 * (mcp-transport.ts), on small node children started here: a malformed source or a missing
 * `fromEnv` variable is CONFIG_INVALID before anything starts; the child gets only the safe
 * variables and what the config names; its stderr is a bounded tail of lines with the
 * secrets redacted; its stdout is read with the fast JSON-RPC check (same messages, same
 * errors); and (long tier) a child is stopped when sluice exits without closing it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { isSluiceError } from "@sluice/schema";
import { ChildTransport, openMcpTransport, OVERSIZED_ERROR_CODE, withDeadline } from "../src/mcp-transport.ts";
import { LONG } from "../../../test/support/tier.ts";

const node = (script: string, env?: Record<string, { fromEnv: string } | string>) => ({ command: process.execPath, args: ["-e", script], ...(env === undefined ? {} : { env }) });

/** Starts the transport by hand (no MCP client) and collects what the child says until it exits. */
async function run(open: ReturnType<typeof openMcpTransport>): Promise<{ messages: JSONRPCMessage[]; errors: string[] }> {
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  const closed = new Promise<void>((resolve) => {
    open.transport.onclose = resolve;
  });
  open.transport.onmessage = (message) => messages.push(message);
  open.transport.onerror = (error) => errors.push(error.message);
  await open.transport.start();
  await withDeadline(closed, 20_000, () => new Error("the child did not exit"));
  return { messages, errors };
}

describe("openMcpTransport", () => {
  it.each([
    ["an empty command", { command: "" }, /mcp.command must be a non-empty string/],
    ["a URL that is no URL", { url: "not a url" }, /mcp.url is not a URL/],
    ["a URL that is not http(s)", { url: "file:///etc/passwd" }, /mcp.url must be http\(s\)/],
    ["a fromEnv variable that is not set", { command: "x", env: { TOKEN: { fromEnv: "SLUICE_TEST_UNSET_VARIABLE" } } }, /SLUICE_TEST_UNSET_VARIABLE, which is not set/],
  ])("refuses %s with CONFIG_INVALID before starting anything", (_name, source, message) => {
    let error: unknown;
    try {
      openMcpTransport(source as never, { env: {} });
    } catch (caught) {
      error = caught;
    }
    expect(isSluiceError(error, "CONFIG_INVALID")).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it("gives the child the safe variables and the configured ones only; its stderr is a tail of lines, secrets redacted", async () => {
    const lines: string[] = [];
    process.env.SLUICE_TEST_PARENT_ONLY = "must-not-reach-the-child";
    const open = openMcpTransport(
      node(
        `const e = process.env; process.stderr.write(JSON.stringify({ token: e.TOKEN, plain: e.PLAIN, leaked: e.SLUICE_TEST_PARENT_ONLY ?? null }) + "\\n");
         for (let i = 0; i < 20; i++) process.stderr.write("line " + i + "\\n");
         process.stderr.write("no newline at the end " + e.TOKEN);`,
        { TOKEN: { fromEnv: "SLUICE_TEST_TOKEN" }, PLAIN: "plain-value" },
      ),
      { env: { SLUICE_TEST_TOKEN: "s3cret-token-value", SLUICE_TEST_PARENT_ONLY: "x" }, onStderrLine: (line) => lines.push(line) },
    );
    try {
      await run(open);
    } finally {
      delete process.env.SLUICE_TEST_PARENT_ONLY;
    }
    expect(open.stdio).toBe(true);
    expect(open.secrets).toEqual(["s3cret-token-value"]);
    expect(lines[0]).toBe(JSON.stringify({ token: "[redacted]", plain: "plain-value", leaked: null }));
    expect(lines).toHaveLength(21);
    const tail = open.stderrTail().split("\n");
    expect(tail).toEqual(["line 14", "line 15", "line 16", "line 17", "line 18", "line 19", "no newline at the end [redacted]"]);
    expect(open.redact("a s3cret-token-value b")).toBe("a [redacted] b");
    expect(open.pid()).toBeUndefined();
  });

  it("reads the child's stdout with the fast JSON-RPC check: the same messages as the SDK, a bad line an error", async () => {
    const open = openMcpTransport(
      node(`process.stdout.write('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\\n{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\\r\\n{"jsonrpc":"2.0","id":2,"bad":true}\\n{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}\\n');`),
    );
    const { messages, errors } = await run(open);
    expect(messages).toEqual([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      { jsonrpc: "2.0", id: 1, result: { tools: [] } },
      { jsonrpc: "2.0", id: 3, error: { code: -1, message: "no" } },
    ]);
    expect(errors).toHaveLength(1);
  });

  it("a message past the 10 MiB read limit fails its own request (id found at either end); the connection and the messages around it stay", async () => {
    const script = `
      const big = "x".repeat(11 * 1024 * 1024);
      const out = [
        '{"jsonrpc":"2.0","id":1,"result":{}}',
        '{"result":{"content":[{"type":"text","text":"' + big + '"}]},"jsonrpc":"2.0","id":7}',
        '{"jsonrpc":"2.0","id":"s-1","result":{"text":"' + big + '"}}',
        '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + big + '"}}',
        '{"jsonrpc":"2.0","id":2,"result":{}}',
      ].join("\\n") + "\\n";
      // Written in uneven pieces, as a pipe delivers them.
      for (let at = 0; at < out.length; at += 65_521) process.stdout.write(out.slice(at, at + 65_521));`;
    const { messages, errors } = await run(openMcpTransport(node(script)));
    expect(messages.map((message) => ("error" in message ? { id: message.id, code: message.error.code } : { id: (message as { id: unknown }).id }))).toEqual([
      { id: 1 },
      { id: 7, code: OVERSIZED_ERROR_CODE },
      { id: "s-1", code: OVERSIZED_ERROR_CODE },
      { id: 2 },
    ]);
    expect((messages[1] as { error: { message: string } }).error.message).toMatch(/^the server's answer was 11534\d{3} bytes, more than the 10485760 bytes one message may have/);
    // The notification has no id to answer: an error of the transport, not its end.
    expect(errors).toEqual([expect.stringMatching(/no request id was found/)]);
  });

  it("replaces the SDK's line buffer (a private field of its stdio transport: an SDK upgrade that renames it fails here)", () => {
    expect(new ChildTransport({ command: process.execPath }).fastRead).toBe(true);
  });

  // Long tier (test/support/tier.ts): a second node with tsx costs seconds on a loaded machine.
  it.runIf(LONG)("stops the child when sluice exits without closing it", () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-transport-exit-"));
    try {
      const parent = join(dir, "parent.mjs");
      // The parent opens a child that ignores stdin's end, prints its pid, and exits at once.
      writeFileSync(
        parent,
        `const { openMcpTransport } = await import(${JSON.stringify(new URL("../src/mcp-transport.ts", import.meta.url).href)});
         const open = openMcpTransport({ command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] });
         await open.transport.start();
         console.log(open.pid());
         process.exit(0);`,
      );
      const result = spawnSync(process.execPath, ["--conditions=@sluice/source", "--import", "tsx", parent], { encoding: "utf8", timeout: 60_000 });
      expect(result.status).toBe(0);
      const pid = Number(result.stdout.trim());
      expect(pid).toBeGreaterThan(0);
      // A zombie (killed, not yet reaped by whoever adopted it) is stopped too.
      const alive = () => {
        try {
          return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
        } catch {
          return false;
        }
      };
      const deadline = Date.now() + 10_000;
      while (alive() && Date.now() < deadline) spawnSync("sleep", ["0.05"]);
      expect(alive()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
