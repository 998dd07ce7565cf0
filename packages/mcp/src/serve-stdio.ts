import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { responseLine } from "./served-list-page.ts";
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
  const input = (options.input ?? process.stdin) as Readable;
  const output = (options.output ?? process.stdout) as Writable;
  const transport = new PageWritingTransport(input, output, options);
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

/**
 * The stdio transport, but a tools/list page copied from a stored list (a ServedListPage
 * result) goes out as the bytes it already is; every other message is
 * serialized by the LineTransport as before. The same bytes either way.
 */
class PageWritingTransport extends LineTransport {
  readonly #output: Writable;
  #closed = false;

  constructor(input: Readable, output: Writable, options: LineTransportOptions) {
    super(input, output, options);
    this.#output = output;
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const line = responseLine(message);
    if (line === undefined) return super.send(message);
    if (this.#closed) {
      line.page.written();
      return Promise.resolve();
    }
    const output = this.#output;
    // A socket's (a pipe's, a terminal's) write callback means the bytes have left; another stream
    // (a PassThrough in a program running serve inside itself) may still hold them after it, so
    // it gets a copy, and the page's memory is given back at once.
    const lentUntilWritten = output instanceof Socket;
    const pieces = lentUntilWritten ? line.pieces : [Buffer.concat(line.pieces)];
    if (!lentUntilWritten) line.page.written();
    return new Promise((resolve) => {
      // One write of the pieces where the stream can (writev), and nothing written between them.
      output.cork();
      let flowing = true;
      const last = pieces.length - 1;
      pieces.forEach((piece, i) => {
        // Written (or failed): the page's memory is the list's again.
        flowing = i === last && lentUntilWritten ? output.write(piece, () => line.page.written()) : output.write(piece);
      });
      output.uncork();
      if (flowing) resolve();
      else output.once("drain", resolve);
    });
  }

  override async close(): Promise<void> {
    this.#closed = true;
    return super.close();
  }
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
