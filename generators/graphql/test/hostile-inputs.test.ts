import { describe, expect, it } from "vitest";
import { isSluiceError, type SluiceError } from "@sluice/core";
import { buildGraphQLPackIR, emitPackSources, loadGraphQLSchema } from "../src/index.ts";

const SOURCE = { name: "hostile", file: "hostile.graphql", sha256: "0".repeat(64) };
const LEVELS = 20_000;

/** `input Input0 { next: Input1 v: String }` ... `levels` types, the argument of `find`. */
function inputChain(levels: number, nonNull: boolean): string {
  const lines = ["type Query { find(filter: Input0): String }"];
  for (let i = 0; i < levels; i++) {
    lines.push(i + 1 < levels ? `input Input${i} { next: Input${i + 1}${nonNull ? "!" : ""} v: String }` : `input Input${i} { v: String }`);
  }
  return lines.join("\n");
}

function caught(run: () => unknown): SluiceError {
  try {
    run();
  } catch (error) {
    if (isSluiceError(error)) return error;
    throw error;
  }
  throw new Error("expected a SluiceError");
}

describe("hostile GraphQL schemas: iterative conversion, coded errors", () => {
  it(`an input chain ${LEVELS.toLocaleString("en")} levels deep becomes ${LEVELS.toLocaleString("en")} definitions, each referring to the next`, () => {
    const pack = buildGraphQLPackIR(loadGraphQLSchema(inputChain(LEVELS, false), { fileName: "chain.graphql" }), SOURCE);
    expect(pack.tools.map((tool) => tool.name)).toEqual(["find"]);
    expect(pack.tools[0]!.parameters.properties.filter).toEqual({ $ref: "#/$defs/Input0" });
    expect(Object.keys(pack.defs)).toHaveLength(LEVELS);
    let broken = 0;
    for (let i = 0; i + 1 < LEVELS; i++) {
      const next = (pack.defs[`Input${i}`]!.properties as Record<string, unknown>).next;
      if ((next as { $ref?: string }).$ref !== `#/$defs/Input${i + 1}`) broken++;
    }
    expect(broken).toBe(0);
    expect(pack.defs[`Input${LEVELS - 1}`]).toEqual({ type: "object", properties: { v: { type: "string" } } });

    // The emitted sources carry every definition (one per type: no nesting to recurse into).
    const dataSource = emitPackSources(pack).find((file) => file.path === "src/pack-data.gen.ts")!.text;
    expect(dataSource).toContain(`\n  '["Input${LEVELS - 1}",{`);
  });

  it("a chain of non-null inputs, which graphql-js checks for cycles by recursion, is a coded INTERNAL_LIMIT", () => {
    const error = caught(() => loadGraphQLSchema(inputChain(LEVELS, true), { fileName: "nonnull.graphql" }));
    expect(error.code).toBe("INTERNAL_LIMIT");
    expect(error.message).toMatch(/^loading nonnull\.graphql: /);
  });

  it("an enum of 200,000 values keeps every value, in order", () => {
    const values = Array.from({ length: 200_000 }, (_, i) => `V${i}`);
    const sdl = `type Query { find(e: Big): String }\nenum Big { ${values.join(" ")} }`;
    const pack = buildGraphQLPackIR(loadGraphQLSchema(sdl, { fileName: "enum.graphql" }), SOURCE);
    const big = pack.defs.Big!;
    expect(big.type).toBe("string");
    expect((big.enum as string[]).length).toBe(values.length);
    expect((big.enum as string[])[199_999]).toBe("V199999");
  });

  it(`a cycle through ${LEVELS.toLocaleString("en")} input types stays a finite set of references`, () => {
    const sdl = inputChain(LEVELS, false).replace(`input Input${LEVELS - 1} { v: String }`, `input Input${LEVELS - 1} { v: String back: Input0 }`);
    const pack = buildGraphQLPackIR(loadGraphQLSchema(sdl, { fileName: "cycle.graphql" }), SOURCE);
    expect(Object.keys(pack.defs)).toHaveLength(LEVELS);
    expect((pack.defs[`Input${LEVELS - 1}`]!.properties as Record<string, unknown>).back).toEqual({ $ref: "#/$defs/Input0" });
  });
});
