/**
 * `sluice usage --apply`'s edit of a config: the entry added where the pack is, everything
 * else byte for byte as it was, in every config form sluice loads; and a coded refusal
 * where the pack is not literal text.
 */
import { describe, expect, it } from "vitest";
import { isSluiceError } from "@sluice/schema";
import { excludeToolsEdit } from "../src/exclude-tools-edit.ts";

const TS_CONFIG = `// the project's packs
import { defineConfig } from "@sluice/cli/config";

export default defineConfig({
  packs: [
    { name: "github", spec: "specs/github.graphql", out: "packs/github" },
    {
      name: "pets",
      spec: "specs/pets.json", // vendored
      out: "packs/pets",
    },
  ],
});
`;

describe("excludeToolsEdit", () => {
  it.each([
    [
      "a .ts config through defineConfig: a new exclude on its own line",
      { file: "sluice.config.ts", text: TS_CONFIG, index: 1, pack: "pets", tools: ["deletePet"] },
      TS_CONFIG.replace(`      out: "packs/pets",\n`, `      out: "packs/pets",\n      exclude: { tools: ["deletePet"] },\n`),
    ],
    [
      "a one-line pack entry",
      { file: "sluice.config.ts", text: TS_CONFIG, index: 0, pack: "github", tools: ["a", "b"] },
      TS_CONFIG.replace(`out: "packs/github" }`, `out: "packs/github", exclude: { tools: ["a", "b"] } }`),
    ],
    [
      "an existing exclude.tools list grows (a name already in it is not added again)",
      { file: "sluice.config.mts", text: `export default { packs: [{ name: 'p', out: 'x', exclude: { tools: ['old'], tags: ['t'] } }] };\n`, index: 0, pack: "p", tools: ["old", "new"] },
      `export default { packs: [{ name: 'p', out: 'x', exclude: { tools: ['old', "new"], tags: ['t'] } }] };\n`,
    ],
    [
      "an exclude without tools gets them",
      { file: "sluice.config.js", text: `export const config = { packs: [{ name: "p", out: "x", exclude: { tags: ["t"] } }] };\n`, index: 0, pack: "p", tools: ["n"] },
      `export const config = { packs: [{ name: "p", out: "x", exclude: { tags: ["t"], tools: ["n"] } }] };\n`,
    ],
    [
      "a CommonJS config; the rename of an excluded tool is removed (generate refuses a choice for a tool left out)",
      {
        file: "sluice.config.cjs",
        text: `module.exports = {\n  packs: [\n    {\n      name: "p",\n      out: "x",\n      tools: {\n        gone: { name: "shown_gone" },\n        kept: { description: "d" },\n      },\n    },\n  ],\n};\n`,
        index: 0,
        pack: "p",
        tools: ["gone"],
      },
      `module.exports = {\n  packs: [\n    {\n      name: "p",\n      out: "x",\n      tools: {\n        kept: { description: "d" },\n      },\n      exclude: { tools: ["gone"] },\n    },\n  ],\n};\n`,
    ],
    [
      "a config held in a const and exported by name",
      { file: "sluice.config.mjs", text: `const config = { packs: [{ name: "p", out: "x" }] };\nexport default config;\n`, index: 0, pack: "p", tools: ["n"] },
      `const config = { packs: [{ name: "p", out: "x", exclude: { tools: ["n"] } }] };\nexport default config;\n`,
    ],
    [
      "a .json config keeps its indentation",
      { file: "sluice.config.json", text: `{\n    "packs": [\n        { "name": "p", "out": "x", "tools": { "gone": { "name": "g2" } } }\n    ]\n}\n`, index: 0, pack: "p", tools: ["gone"] },
      `{\n    "packs": [\n        {\n            "name": "p",\n            "out": "x",\n            "tools": {},\n            "exclude": {\n                "tools": [\n                    "gone"\n                ]\n            }\n        }\n    ]\n}\n`,
    ],
  ])("%s", async (_name, given, want) => {
    const edit = await excludeToolsEdit(given.file, given.text, [{ index: given.index, pack: given.pack, tools: given.tools }]);
    expect(edit.text).toBe(want);
    expect(edit.changes.filter((line) => line.includes("exclude.tools +="))).toHaveLength(given.tools.filter((tool) => !given.text.includes(`'${tool}'`)).length);
  });

  it.each([
    ["packs built by a spread", `const base = []; export default { packs: [...base] };`],
    ["a pack that is not where the config says", `export default { packs: [{ name: "other", out: "x" }] };`],
    ["an exclude held in a variable", `const ex = {}; export default { packs: [{ name: "p", out: "x", exclude: ex }] };`],
    ["no exported object", `export default makeConfig;`],
  ])("refuses %s with USAGE_APPLY_UNSUPPORTED", async (_name, text) => {
    const error = await excludeToolsEdit("sluice.config.ts", text, [{ index: 0, pack: "p", tools: ["n"] }]).catch((thrown: unknown) => thrown);
    expect(isSluiceError(error) ? error.code : error).toBe("USAGE_APPLY_UNSUPPORTED");
  });
});
