/**
 * A server that misbehaves on purpose, one way per path, for testing how the call runtime
 * copes with broken upstreams. Any method works on every path.
 *
 *   /non-json      200, says application/json, sends HTML
 *   /truncated     200 JSON cut off mid-object
 *   /error-500     500 {"message":"boom"}
 *   /rate-limited  429, retry-after: 7, JSON body
 *   /hang          never answers (the socket stays open until close())
 *   /slow-body     headers and a first chunk, then nothing more
 *   /huge          200, about 40 MB of JSON, streamed
 *   /empty         204, no body
 *
 * close() destroys every socket, so a hung request never outlives its test.
 */
import type { ServerResponse } from "node:http";
import { sendJson, startHttpServer, type LocalServer } from "./http.ts";

/** Size /huge aims for; the body is valid JSON of at least this many bytes. */
export const HUGE_BODY_BYTES = 40 * 1024 * 1024;

/** Streams `{"items":[...]}` of about HUGE_BODY_BYTES, honouring backpressure, stopping if the client goes away. */
function streamHuge(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
  const record = (i: number) =>
    JSON.stringify({ id: `item_${String(i).padStart(8, "0")}`, title: "A reasonably long title so that each record weighs a few hundred bytes", body: "x".repeat(300), index: i });
  const perRecord = Buffer.byteLength(record(0)) + 1;
  const total = Math.ceil(HUGE_BODY_BYTES / perRecord);
  let i = 0;
  let first = true;
  const pump = () => {
    if (res.destroyed) return;
    if (first) {
      res.write('{"items":[');
      first = false;
    }
    while (i < total) {
      let chunk = "";
      for (let n = 0; n < 256 && i < total; n++, i++) chunk += (i === 0 ? "" : ",") + record(i);
      if (!res.write(chunk)) {
        res.once("drain", pump);
        return;
      }
    }
    res.end(`],"count":${total}}`);
  };
  pump();
}

export async function startFaultServer(): Promise<LocalServer> {
  return startHttpServer((request, res) => {
    const path = new URL(request.path, "http://127.0.0.1").pathname;
    switch (path) {
      case "/non-json":
        res.writeHead(200, { "content-type": "application/json" });
        res.end("<html>oops</html>");
        return;
      case "/truncated":
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"data":[{"id":"cus_0001","name":"Ada Lovelace"},{"id":"cus_0002","na');
        return;
      case "/error-500":
        sendJson(res, 500, { message: "boom" });
        return;
      case "/rate-limited":
        sendJson(res, 429, { error: { type: "rate_limited", message: "Too many requests; retry after 7 seconds" } }, { "retry-after": "7" });
        return;
      case "/hang":
        return; // never answered; close() destroys the socket
      case "/slow-body":
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"data":[');
        return; // the body never finishes
      case "/huge":
        streamHuge(res);
        return;
      case "/empty":
        res.writeHead(204);
        res.end();
        return;
      default:
        sendJson(res, 404, { error: { message: `no fault at ${path}` } });
    }
  });
}
