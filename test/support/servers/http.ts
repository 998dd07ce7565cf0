/**
 * Plumbing shared by every local test server: bind 127.0.0.1 on an ephemeral port, record
 * each request before the handler sees it, turn handler bugs into a 500 (a test should see
 * a failed call, not a crashed worker), and close hard so a hanging socket never holds a
 * test run open.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  /** Path plus query string, exactly as received (still percent-encoded). */
  path: string;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The raw body as UTF-8 text ("" when there was none). */
  body: string;
  /** The parsed body, when it is JSON. */
  json?: unknown;
}

export interface LocalServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Every request in arrival order, recorded before it is answered. */
  received: RecordedRequest[];
  /** Stops listening and destroys every open socket. Safe to call more than once. */
  close(): Promise<void>;
}

export type RequestHandler = (request: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

/** Sends a JSON value with a status; a no-op once the response has started. */
export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function headerRecord(raw: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function readBody(raw: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    raw.on("data", (chunk: Buffer) => chunks.push(chunk));
    raw.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    raw.on("error", reject);
  });
}

/** JSON when the content type says so, or when an untyped body looks like JSON. */
function parseJsonBody(body: string, contentType: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (body.trim() === "") return { ok: false };
  const typed = contentType !== undefined && /json/i.test(contentType);
  const looksJson = contentType === undefined && /^\s*[[{]/.test(body);
  if (!typed && !looksJson) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Starts a server for `handler`. The request is recorded (body read in full) before the
 * handler runs; a thrown or rejected handler answers 500 JSON if nothing was sent yet,
 * otherwise the socket is destroyed so the client sees the failure.
 */
export async function startHttpServer(handler: RequestHandler): Promise<LocalServer> {
  const received: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((raw, res) => {
    void (async () => {
      try {
        const body = await readBody(raw);
        const headers = headerRecord(raw);
        const request: RecordedRequest = { method: (raw.method ?? "GET").toUpperCase(), path: raw.url ?? "/", headers, body };
        const parsed = parseJsonBody(body, headers["content-type"]);
        if (parsed.ok) request.json = parsed.value;
        received.push(request);
        await handler(request, res, raw);
      } catch (error) {
        if (!res.headersSent && !res.destroyed) {
          sendJson(res, 500, { error: { message: `local test server bug: ${error instanceof Error ? error.message : String(error)}` } });
        } else {
          res.destroy();
        }
      }
    })();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  // Never close an idle kept-alive connection (Node's default is after 5 s): a test that holds
  // the event loop past that (a tokenizer load under a busy machine) lets the server's idle
  // timer and the next request on that connection race, and the request is reset unread.
  // close() ends every connection itself.
  server.keepAliveTimeout = 0;
  // A client that resets mid-request must not surface as an unhandled error.
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
