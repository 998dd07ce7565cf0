import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
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
  return {
    closed,
    async close() {
      await server.close();
    },
  };
}
