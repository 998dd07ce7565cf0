/**
 * Reformatter choices in a config: per pack and per tool, checked before anything of the
 * config is trusted (a misspelt name would leave a pass on that the author meant to turn
 * off), and carried into the generated runtime by final tool name.
 */
import { describe, expect, it } from "vitest";
import { enabledReformatters, generatedRuntime, type RuntimeFacts } from "@sluice/core";
import { validateConfig } from "@sluice/pipeline/config-check";
import { reformatterFacts } from "../../../generators/pipeline/src/tool-choices.ts";
import { errorOf } from "../../../test/support/error-of.ts";

const pack = { name: "store", spec: "petstore.json", out: "packs/store" };

describe("reformatters in sluice.config", () => {
  it.each([
    ["a pack's misspelt name", { ...pack, reformatters: { "path-folds": false } }, "packs[0].reformatters.path-folds", ["path-fold"]],
    ["a tool's misspelt name", { ...pack, tools: { find_pets: { reformatters: { tooon: true } } } }, "packs[0].tools.find_pets.reformatters.tooon", ["toon"]],
  ])("%s is CONFIG_INVALID naming the place and the nearest", (_name, given, where, candidates) => {
    const error = errorOf(() => validateConfig({ packs: [given] }, "sluice.config.json"));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain(`${where}: unknown reformatter`);
    expect(error.candidates).toEqual(candidates);
  });

  it("a value that is not a boolean, or a choice that is not an object, is refused", () => {
    expect(() => validateConfig({ packs: [{ ...pack, reformatters: { toon: "yes" } }] }, "c.json")).toThrow(/reformatters\.toon: must be true or false/);
    expect(() => validateConfig({ packs: [{ ...pack, reformatters: ["toon"] }] }, "c.json")).toThrow(/reformatters: must map reformatter names/);
  });

  it("a valid choice passes, and reaches each tool by its final name", () => {
    const config = validateConfig({ packs: [{ ...pack, toolPrefix: "ps_", reformatters: { toon: true }, tools: { find_pets: { name: "search_pets", reformatters: { "path-fold": false } }, get_pet: { reformatters: { "compact-json": false } } } }] }, "c.json");
    const job = config.packs[0]!;
    const facts = reformatterFacts(job, new Map([["find_pets", "ps_find_pets"], ["get_pet", "ps_get_pet"]]));
    expect(facts).toEqual({ pack: { toon: true }, tools: { search_pets: { "path-fold": false }, ps_get_pet: { "compact-json": false } } });
    const runtime = generatedRuntime({ kind: "openapi", credentials: [], pagination: {}, credentialArguments: {}, secretLooking: [], reformatters: facts } as RuntimeFacts);
    expect(runtime.reformatters).toEqual({ toon: true });
    const binding = { kind: "http" as const, method: "GET", path: "/", server: "", parameters: [] };
    expect(enabledReformatters(runtime.reformatters, runtime.forTool?.("search_pets", binding)?.reformatters)).toEqual(["text-clean", "compact-json", "toon"]);
    expect(reformatterFacts({ tools: { find_pets: { name: "x" } } }, new Map())).toBeUndefined();
  });
});
