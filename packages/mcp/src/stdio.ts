import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
// A subpath: serving a pack that proxies nothing need not load the MCP generator.
import { isCommonJsonRpcMessage } from "@sluice/mcp-client/jsonrpc-shape";

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export interface LineTransportOptions {
  /** Longest message (one line) read; a longer one is skipped and answered with an error. Default 4 MiB. */
  maxMessageBytes?: number;
  /** Told about every message refused (parse errors, oversize lines); never given message content. */
  onProblem?: (problem: string) => void;
}

/**
 * Newline-delimited JSON-RPC over a pair of streams (the MCP stdio transport), built to
 * outlive a bad client: a line that is not JSON is answered with a JSON-RPC parse error
 * (`id: null`), a line that is JSON but not JSON-RPC with an invalid-request error (with
 * its id when it has one), and a line longer than the limit is skipped up to its end and
 * answered with an error for its id (read from the start of the line) instead of
 * buffering it or closing the transport. The SDK's own stdio transport closes itself when
 * its buffer overflows, which would leave a server that answers nothing.
 *
 * The transport closes when its input ends (the client went away).
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #max: number;
  readonly #onProblem: ((problem: string) => void) | undefined;
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** Skipping the rest of an oversize line. */
  #discarding = false;
  #closed = false;
  #started = false;

  constructor(input: Readable, output: Writable, options: LineTransportOptions = {}) {
    this.#input = input;
    this.#output = output;
    this.#max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#onProblem = options.onProblem;
  }

  readonly #onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    while (data.length > 0) {
      const newline = data.indexOf(0x0a);
      if (this.#discarding) {
        if (newline === -1) return;
        this.#discarding = false;
        data = data.subarray(newline + 1);
        continue;
      }
      if (newline === -1) {
        this.#chunks.push(data);
        this.#buffered += data.length;
        if (this.#buffered > this.#max) this.#overflow();
        return;
      }
      const head = data.subarray(0, newline);
      data = data.subarray(newline + 1);
      if (this.#buffered + head.length > this.#max) {
        this.#chunks.push(head);
        this.#overflow();
        this.#discarding = false;
        continue;
      }
      const line = this.#chunks.length === 0 ? head : Buffer.concat([...this.#chunks, head]);
      this.#chunks = [];
      this.#buffered = 0;
      this.#line(line);
    }
  };

  readonly #onEnd = (): void => {
    void this.close();
  };

  readonly #onInputError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  readonly #onOutputError = (error: Error): void => {
    // EPIPE: the client closed its end; nothing more can be said to it.
    this.onerror?.(error);
    void this.close();
  };

  /** Too long: answer the id found at the start of the line, drop what was buffered, skip to the newline. */
  #overflow(): void {
    const start = Buffer.concat(this.#chunks).subarray(0, 512).toString("utf8");
    this.#chunks = [];
    this.#buffered = 0;
    this.#discarding = true;
    const id = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/.exec(start)?.[1];
    let parsedId: string | number | null = null;
    if (id !== undefined) {
      try {
        parsedId = JSON.parse(id) as string | number;
      } catch {
        parsedId = null;
      }
    }
    this.#onProblem?.(`refused a message larger than ${this.#max} bytes`);
    this.#writeError(parsedId, ErrorCode.InvalidRequest, `Request too large: messages are limited to ${this.#max} bytes; send smaller arguments.`);
  }

  #line(bytes: Buffer): void {
    const text = bytes.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#onProblem?.("refused a line that is not JSON");
      this.#writeError(null, ErrorCode.ParseError, "Parse error: the line is not valid JSON.");
      return;
    }
    // The SDK's schema's verdict, without its zod union for the common shapes (a quarter of a proxied call's checks).
    const parsed = isCommonJsonRpcMessage(value) ? { success: true as const, data: value as JSONRPCMessage } : JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
      const validId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
      this.#onProblem?.("refused a JSON value that is not a JSON-RPC 2.0 message");
      this.#writeError(validId, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message (jsonrpc \"2.0\", a method or a result, an integer or string id).");
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  #writeError(id: string | number | null, code: number, message: string): void {
    if (this.#closed) return;
    this.#output.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n");
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("LineTransport already started");
    this.#started = true;
    this.#input.on("data", this.#onData);
    this.#input.on("end", this.#onEnd);
    this.#input.on("error", this.#onInputError);
    this.#output.on("error", this.#onOutputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.#output.write(JSON.stringify(message) + "\n")) resolve();
      else this.#output.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onEnd);
    this.#input.off("error", this.#onInputError);
    this.#input.pause();
    this.#chunks = [];
    this.onclose?.();
  }
}
