import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * A tools/list result whose JSON text is already written (a page copied from a pack's
 * stored list): the stdio transport of `sluice serve` writes its bytes as they are
 * (`responseLine`), where the SDK would turn a page of objects into text and the text into
 * UTF-8 (seconds for the 112 MiB of a 9,000-tool list). Any other transport serializes it
 * as JSON.stringify does, through toJSON (the same bytes either way), or, passing objects
 * (the SDK's in-memory pair), reads its `tools` and `nextCursor`, parsed from the text then.
 */
export class ServedListPage {
  /** The result's JSON text, UTF-8, in pieces (`{"tools":`, the page's array, the cursor and the brace), copied once when written. */
  readonly parts: readonly Buffer[];
  readonly #done: (() => void) | undefined;

  /** `done`, when given, is told once the parts have been written (or read): their memory may be reused then. */
  constructor(parts: readonly Buffer[], done?: () => void) {
    this.parts = parts;
    this.#done = done;
  }

  /** The parts were written (or read as objects): the list may reuse their memory. */
  written(): void {
    this.#done?.();
  }

  #parsed: { tools: unknown[]; nextCursor?: string } | undefined;

  toJSON(): unknown {
    if (this.#parsed === undefined) {
      this.#parsed = JSON.parse(Buffer.concat(this.parts).toString("utf8")) as { tools: unknown[]; nextCursor?: string };
      this.written();
    }
    return this.#parsed;
  }

  get tools(): unknown[] {
    return (this.toJSON() as { tools: unknown[] }).tools;
  }

  get nextCursor(): string | undefined {
    return (this.toJSON() as { nextCursor?: string }).nextCursor;
  }
}

/**
 * The line `JSON.stringify(message) + "\n"` would write for a response whose result is a
 * ServedListPage, as pieces of bytes to write in order (the page's own pieces are not
 * copied together); undefined for any other message.
 */
export function responseLine(message: JSONRPCMessage): { pieces: Buffer[]; page: ServedListPage } | undefined {
  const result = (message as { result?: unknown }).result;
  if (!(result instanceof ServedListPage)) return undefined;
  const members = Object.entries(message);
  const at = members.findIndex(([key]) => key === "result");
  const before = JSON.stringify(Object.fromEntries(members.slice(0, at)));
  const after = JSON.stringify(Object.fromEntries(members.slice(at + 1)));
  const opening = `${before === "{}" ? "{" : `${before.slice(0, -1)},`}"result":`;
  const closing = after === "{}" ? "}\n" : `,${after.slice(1)}\n`;
  return { pieces: [Buffer.from(opening, "utf8"), ...result.parts, Buffer.from(closing, "utf8")], page: result };
}
