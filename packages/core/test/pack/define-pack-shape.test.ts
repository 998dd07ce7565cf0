import { describe, expect, it } from "vitest";
import { definePack } from "../../src/pack/define-pack.ts";
import { errorOf } from "../../../../test/support/error-of.ts";

describe("definePack of a definition of the wrong shape", () => {
  // Hand-written or hand-edited packs reach definePack too; each wrong shape is a coded error naming what is wrong, not a TypeError from inside.
  const cases: Array<[string, unknown, RegExp]> = [
    ["no definition", undefined, /got undefined\.$/],
    ["an array", [], /got an array\.$/],
    ["a numeric name", { name: 42, defs: {}, tools: [] }, /`name` is a number\.$/],
    ["an empty name", { name: "", defs: {}, tools: [] }, /`name` is the string ""\.$/],
    ["no defs", { name: "p", tools: [] }, /pack p: `defs` is undefined\.$/],
    ["defs as an array", { name: "p", defs: [], tools: [] }, /pack p: `defs` is an array\.$/],
    ["no tools", { name: "p", defs: {} }, /pack p: `tools` is undefined\.$/],
    ["tools as an object", { name: "p", defs: {}, tools: {} }, /pack p: `tools` is an object\.$/],
  ];
  for (const [label, definition, message] of cases) {
    it(`refuses ${label} with INVALID_OPTION`, () => {
      const error = errorOf(() => definePack(definition as never));
      expect(error).toMatchObject({ code: "INVALID_OPTION" });
      expect((error as Error).message).toMatch(message);
    });
  }

  it("still builds an empty pack", () => {
    expect(definePack({ name: "empty", defs: {}, tools: [] }).tools).toEqual([]);
  });
});
