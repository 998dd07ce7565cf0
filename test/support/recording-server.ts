/**
 * A recording HTTP server for egress tests: it binds 127.0.0.1 on an ephemeral port,
 * keeps every request exactly as it arrived (method, url, headers, raw body bytes) and
 * answers a plausible JSON 200. What it answers does not matter to the tests that use it:
 * they look only at what reached it.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request as it arrived. */
export interface WireRequest {
  method: string;
  /** Path plus query string, still percent-encoded, as received. */
  url: string;
  /** Header names as received (raw pairs), values unchanged; repeated headers kept apart. */
  headers: Array<[name: string, value: string]>;
  /** The body bytes as received. */
  body: Buffer;
}

export interface RecordingServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Every request in arrival order. */
  received: WireRequest[];
  close(): Promise<void>;
}

/** Everything a request carried, as one text in which a marker string can be searched for. */
export function wireText(request: WireRequest): string {
  const headers = request.headers.map(([name, value]) => `${name}: ${value}`).join("\n");
  // latin1 maps every byte to one character, so an ASCII marker is found in any body encoding.
  return `${request.method} ${request.url}\n${headers}\n\n${request.body.toString("latin1")}`;
}

function headerPairs(raw: IncomingMessage): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.rawHeaders.length; i += 2) pairs.push([raw.rawHeaders[i]!, raw.rawHeaders[i + 1]!]);
  return pairs;
}

export async function startRecordingServer(): Promise<RecordingServer> {
  const received: WireRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on("data", (chunk: Buffer) => chunks.push(chunk));
    raw.on("error", () => res.destroy());
    raw.on("end", () => {
      const url = raw.url ?? "/";
      received.push({ method: raw.method ?? "GET", url, headers: headerPairs(raw), body: Buffer.concat(chunks) });
      const path = url.split("?")[0]!;
      const text = path.endsWith("/graphql") ? '{"data":null}' : "{}";
      res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) });
      res.end(text);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
