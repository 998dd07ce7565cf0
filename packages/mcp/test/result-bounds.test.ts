/**
 * The size policy of one call's result: blocks kept in order while they fit, the text that
 * crosses the limit cut at a boundary, binary blocks that do not fit left out whole, and a
 * last note saying how much was left out and why; structuredContent over the limit is left
 * out and the result becomes an error.
 */
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { boundResult, cutText } from "../src/result-bounds.ts";

describe("cutText", () => {
  it.each([
    ["fits: unchanged", { text: "abc\ndef", room: 100 }, "abc\ndef"],
    ["at the last line end in reach", { text: "line one\nline two\nline three", room: 22 }, "line one\nline two\n"],
    ["at a space when no line end is in reach", { text: "one two three four five", room: 15 }, "one two three "],
    ["at a comma in compact JSON", { text: '{"a":1,"b":22,"c":333}', room: 16 }, '{"a":1,"b":22,'],
    ["never inside a UTF-8 sequence", { text: "ééééé", room: 5 }, "éé"],
    ["never half a surrogate pair", { text: "😀😀😀", room: 6 }, "😀"],
    ["no room: nothing", { text: "abc", room: 0 }, ""],
  ])("%s", (_name, { text, room }, want) => {
    const got = cutText(text, room);
    expect(got).toBe(want);
    expect(Buffer.byteLength(got, "utf8")).toBeLessThanOrEqual(room);
  });
});

const text = (t: string) => ({ type: "text" as const, text: t });
const image = (bytes: number) => ({ type: "image" as const, data: "A".repeat(bytes), mimeType: "image/png" });

describe("boundResult", () => {
  it("a result within the limit is returned as it is", () => {
    const result: CallToolResult = { content: [text("hello"), image(10)], structuredContent: { a: 1 } };
    expect(boundResult(result, 1000)).toBe(result);
  });

  it("cuts the text that crosses the limit at a line end, leaves the rest out, and says how much and why", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const out = boundResult({ content: [text(lines), image(50)] }, 300);
    expect(out.content.map((block) => block.type)).toEqual(["text", "text"]);
    const shown = (out.content[0] as { text: string }).text;
    expect(lines.startsWith(shown)).toBe(true);
    expect(shown.endsWith("\n")).toBe(true);
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(300);
    const note = (out.content[1] as { text: string }).text;
    const total = Buffer.byteLength(lines) + JSON.stringify(image(50)).length;
    expect(note).toContain(`${(total - Buffer.byteLength(shown)).toLocaleString("en-US")} of ${total.toLocaleString("en-US")} bytes`);
    expect(note).toMatch(/1 block left out: image \(\d+ bytes\)/);
    expect(note).toContain("--max-result-bytes");
  });

  it("an image too large to fit is left out whole (never cut); text after it still shown", () => {
    const out = boundResult({ content: [text("before"), image(5000), text("after")] }, 1000);
    expect(out.content.slice(0, 2)).toEqual([text("before"), text("after")]);
    expect((out.content[2] as { text: string }).text).toMatch(/image \(5,\d+ bytes\)/);
  });

  it("structuredContent over the limit is left out and the result is an error saying so", () => {
    const out = boundResult({ content: [text("small")], structuredContent: { rows: "x".repeat(2000) } }, 1000);
    expect(out.structuredContent).toBeUndefined();
    expect(out.isError).toBe(true);
    expect((out.content.at(-1) as { text: string }).text).toMatch(/structuredContent \(2,0\d\d bytes\) was left out/);
  });
});
