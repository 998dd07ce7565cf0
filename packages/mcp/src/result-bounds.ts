/**
 * The size policy for what one tools/call puts in front of the model. A result whose
 * content is larger than the limit keeps its blocks in order while they fit; the text block
 * that crosses the limit is cut at a boundary (a line end, else a space or comma, else a
 * character), blocks after it and binary blocks that do not fit whole (an image cannot be
 * cut) are left out, and a last text block says how much was left out and why.
 * `structuredContent` is held to the same limit on its own: it cannot be cut and still be
 * what its output schema describes, so one that is too large is left out, and the result is
 * an error (a client checks a tool's output schema against it), saying so.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * About 25,000 tokens: the most Claude Code takes from one MCP tool call by default, and
 * far more than a model can use well in one turn.
 */
export const DEFAULT_MAX_RESULT_BYTES = 100_000;

type Block = CallToolResult["content"][number];

/** A text cut cannot end farther back than this share of the room left, or a boundary is not worth it. */
const BOUNDARY_REACH = 0.5;

/** Bytes of a block as the client reads it. */
function sizeOf(block: Block): number {
  return block.type === "text" ? Buffer.byteLength(block.text, "utf8") : Buffer.byteLength(JSON.stringify(block), "utf8");
}

/**
 * `text` cut to at most `room` UTF-8 bytes, at the last line end in the second half of that
 * room, else the last space or comma there, else the last whole character.
 */
export function cutText(text: string, room: number): string {
  if (room <= 0) return "";
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= room) return text;
  let end = room;
  // Never inside a UTF-8 sequence: back to the first byte of the character that would be split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  const head = bytes.subarray(0, end).toString("utf8");
  const floor = Math.floor(head.length * BOUNDARY_REACH);
  const line = head.lastIndexOf("\n");
  if (line >= floor) return head.slice(0, line + 1);
  const space = Math.max(head.lastIndexOf(" "), head.lastIndexOf(","));
  if (space >= floor) return head.slice(0, space + 1);
  // A lone high surrogate at the end would be half a character.
  const last = head.charCodeAt(head.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? head.slice(0, -1) : head;
}

function formatBytes(bytes: number): string {
  return bytes.toLocaleString("en-US");
}

/** `result` held to `maxBytes` (see the module comment); the result itself when it fits. */
export function boundResult(result: CallToolResult, maxBytes: number): CallToolResult {
  const blocks = result.content;
  const sizes = blocks.map(sizeOf);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  const structured = result.structuredContent === undefined ? 0 : Buffer.byteLength(JSON.stringify(result.structuredContent), "utf8");
  if (total <= maxBytes && structured <= maxBytes) return result;

  const content: Block[] = [];
  const dropped: string[] = [];
  let kept = 0;
  let cut = false;
  if (total <= maxBytes) content.push(...blocks);
  else {
    blocks.forEach((block, i) => {
      const size = sizes[i]!;
      if (!cut && kept + size <= maxBytes) {
        content.push(block);
        kept += size;
      } else if (!cut && block.type === "text") {
        const head = cutText(block.text, maxBytes - kept);
        if (head !== "") content.push({ ...block, text: head });
        kept += Buffer.byteLength(head, "utf8");
        cut = true;
      } else dropped.push(block.type === "text" ? "text" : `${block.type} (${formatBytes(size)} bytes)`);
    });
    // After a cut text nothing more is shown, so what the model reads is a prefix; a binary
    // block that does not fit is left out whole and the blocks after it go on.
  }
  const why = `larger than this server's limit of ${formatBytes(maxBytes)} bytes (--max-result-bytes); ask for less: a narrower query, a page, a range`;
  const notes: string[] = [];
  if (total > maxBytes) {
    const parts = [`${formatBytes(total - kept)} of ${formatBytes(total)} bytes of this result were left out`];
    if (cut) parts.push("the text was cut at the end of what is shown");
    if (dropped.length > 0) parts.push(`${dropped.length} block${dropped.length === 1 ? "" : "s"} left out: ${dropped.join(", ")}`);
    notes.push(`${parts.join("; ")}. The result is ${why}.`);
  }
  const out: CallToolResult = { ...result, content };
  if (structured > maxBytes) {
    delete out.structuredContent;
    out.isError = true;
    notes.push(`Its structuredContent (${formatBytes(structured)} bytes) was left out: it is ${why}.`);
  }
  content.push({ type: "text", text: `[sluice: ${notes.join(" ")}]` });
  return out;
}
