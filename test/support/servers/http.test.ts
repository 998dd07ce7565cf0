/**
 * The local HTTP server keeps an idle connection open until the test closes it. Node's
 * default closes one after 5 s idle; a test that holds the event loop across that moment
 * sends its next request on the connection the server is closing, and gets ECONNRESET
 * for a request the server never read (the flake of the redaction tests under load).
 */
import { afterAll, describe, expect, it } from "vitest";
import { startHttpServer, type LocalServer } from "./http.ts";

const servers: LocalServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** Holds this thread without using a core, as a long synchronous load does (minus the CPU). */
function holdEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe("startHttpServer", () => {
  it("a request after the event loop was held past Node's 5 s idle timeout is answered on the kept-alive connection", async () => {
    const server = await startHttpServer((_request, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
    servers.push(server);
    const post = async () => {
      const response = await fetch(`${server.url}/echo`, { method: "POST", body: "{}" });
      await response.text();
      return response.status;
    };
    expect(await post()).toBe(200);
    // Idle while undici's own keep-alive timer is still short of its end, then held past the server's:
    // both timers are due when the loop runs again, and the request is written first.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    holdEventLoop(4_000);
    expect(await post()).toBe(200);
  });
});
