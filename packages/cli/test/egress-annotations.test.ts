/**
 * GitHub annotations of an egress widening land on the map line that shows it: `file=` and
 * `line=` of the committed egress_map.txt. A member added to a type section listed once at
 * the end of the map is one annotation on that section's heading, naming the tools it widens.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkEgressMap } from "@sluice/core";
import { wideningAnnotations } from "../src/egress-report.ts";

const FILE = "packs/gdocs/egress_map.txt";
const now = readFileSync(fileURLToPath(new URL(`../../../${FILE}`, import.meta.url)), "utf8");
const lines = now.split("\n");

/** The committed map: the current one without line `index` (0-based), so that line is the widening. */
const without = (index: number) => [...lines.slice(0, index), ...lines.slice(index + 1)].join("\n");
const annotations = (text: string) => text.split("\n").filter((line) => line !== "");

describe("widening annotations", () => {
  it("a member added to a shared type section: one annotation on the section's heading, naming the tools", () => {
    const heading = lines.indexOf("type Dimension");
    const member = heading + 1;
    expect(lines[member]).toMatch(/^ {2}\+ Dimension\.magnitude: /);
    const check = checkEgressMap(without(member), now, FILE);
    expect(check.widened.length).toBeGreaterThan(1);
    const out = annotations(wideningAnnotations(check, FILE));
    expect(out).toHaveLength(1);
    const what = lines[member]!.trim().slice(2);
    expect(out[0]).toBe(`::warning file=${FILE},line=${heading + 1},title=egress widening::${what} is newly visible to the model in ${check.widened.length} tools (${check.widened.map((d) => d.tool).join(", ")}).`);
    expect(check.widened.every((d) => d.line === heading + 1)).toBe(true);
  });

  it("a member of one tool: its own annotation on the nearest line of that tool (the member's parent)", () => {
    const tool = lines.indexOf("tool docs_documents_create_full");
    const parent = lines.findIndex((line, i) => i > tool && /^ {2}\+ footers\.\*: Footer$/.test(line));
    const member = lines.findIndex((line, i) => i > tool && /^ {2}\+ footers\.\*\.footerId: /.test(line));
    const check = checkEgressMap(without(member), now, FILE);
    const out = annotations(wideningAnnotations(check, FILE));
    // The committed map lacks the member, so lines after it move up by one; the parent is above it.
    expect(out).toEqual([`::warning file=${FILE},line=${parent + 1},title=egress widening::${check.widened[0]!.subject} is newly visible to the model.`]);
    expect(check.widened).toHaveLength(1);
    expect(check.widened[0]!.tool).toBe("docs_documents_create_full");
  });
});
