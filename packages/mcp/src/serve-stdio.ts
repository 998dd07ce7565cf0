import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineTransport, type LineTransportOptions } from "./stdio.ts";

export interface StdioHandle {
  /** Resolves when the client closes its end (stdin ends) or `close` is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Connects one server to the process's stdin/stdout (or the streams given). */
export async function serveStdio(
  server: Server,
  options: LineTransportOptions & { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream } = {},
): Promise<StdioHandle> {
  const input = (options.input ?? process.stdin) as import("node:stream").Readable;
  const output = (options.output ?? process.stdout) as import("node:stream").Writable;
  const transport = new LineTransport(input, output, options);
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  const previous = server.onclose;
  server.onclose = () => {
    previous?.();
    done();
  };
  await server.connect(transport);
  dispatchByShape(server, transport);
  return {
    closed,
    async close() {
      await server.close();
    },
  };
}

type Handlers = {
  _onrequest?: (message: JSONRPCMessage, extra?: unknown) => void;
  _onnotification?: (message: JSONRPCMessage) => void;
  _onresponse?: (message: JSONRPCMessage) => void;
};

/**
 * The SDK's Protocol sorts each incoming message by trying its response schemas first: a
 * request fails two zod parses (their issues built, then dropped) before it is taken for one,
 * about a tenth of a millisecond of every proxied call. LineTransport hands on checked
 * JSON-RPC messages only, whose kind follows from their members, so each goes straight to
 * the Protocol's handler for its kind, the one the SDK's sorting would pick. Those handlers
 * are the SDK's private methods: when they are not there (an SDK that renamed them), the
 * SDK's own sorting stays, and test/serve-stdio-dispatch.test.ts fails. Returns whether the
 * shortcut is on.
 */
export function dispatchByShape(server: Server, transport: LineTransport): boolean {
  const handlers = server as unknown as Handlers;
  const { _onrequest: request, _onnotification: notification, _onresponse: response } = handlers;
  if (typeof request !== "function" || typeof notification !== "function" || typeof response !== "function") return false;
  const sorted = transport.onmessage;
  transport.onmessage = (message) => {
    if ("method" in message) {
      if ("id" in message) request.call(server, message, undefined);
      else notification.call(server, message);
    } else if ("result" in message || "error" in message) {
      response.call(server, message);
    } else {
      sorted?.(message);
    }
  };
  return true;
}
