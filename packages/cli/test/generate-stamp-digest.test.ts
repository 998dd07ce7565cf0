/**
 * The stamp's digest of a text (generate-stamp.ts `sha256`) hashes it in slices, each as
 * Latin-1 when it is ASCII and as UTF-8 otherwise: it must be the sha256 of the text's UTF-8
 * bytes, what the file written from it holds, whatever sits at a slice's edge (a surrogate
 * pair, a lone surrogate, a character beyond ASCII or Latin-1), and a byte array's digest
 * must not outlive its bytes' identity.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256 } from "../src/generate-stamp.ts";

const utf8Digest = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
const SLICE = 64 * 1024;
const edge = ["a", "\u00e9", "\u00ff", "\u0100", "\u20ac", "😀", "\ud83d", "\ude00", "\ud800\udc00", "\n", "\u2028"];

describe("the stamp's digest of a text", () => {
  it("property: the sha256 of its UTF-8 bytes, with any characters around the slice edges (seeded)", () => {
    const around = fc.string({ unit: fc.constantFrom(...edge), maxLength: 6 });
    fc.assert(
      fc.property(around, around, fc.integer({ min: 1, max: 3 }), fc.integer({ min: -3, max: 3 }), (before, after, slices, shift) => {
        // ASCII up to just before a slice edge, then the hard characters across it.
        const text = `${"x".repeat(Math.max(0, slices * SLICE + shift - before.length))}${before}${after}${"y".repeat(shift + 3)}`;
        expect(sha256(text)).toBe(utf8Digest(text));
      }),
      { seed: 20261201, numRuns: 120 },
    );
  });

  it("is the same for short texts, empty, all ASCII and none of it", () => {
    for (const text of ["", "a", "— header", "plain ASCII\n", "😀".repeat(SLICE), "\ud800".repeat(SLICE + 1), `${"a".repeat(SLICE - 1)}😀`]) expect(sha256(text)).toBe(utf8Digest(text));
  });

  it("of bytes: each array hashed once, and another array with other bytes hashed anew", () => {
    const bytes = new TextEncoder().encode("spec bytes");
    expect(sha256(bytes)).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(sha256(bytes)).toBe(sha256(bytes));
    const other = new TextEncoder().encode("spec bytes, edited");
    expect(sha256(other)).toBe(createHash("sha256").update(other).digest("hex"));
  });
});
