// One YAML parser on one file, in a process of its own (scripts/bench-yaml-parse.ts runs it through
// bench/spawn-measured.cjs, which records the process's peak RSS):
//
//   node bench/yaml-parse-child.mjs <candidate> <file>
//
// Prints {"parseMs"} (the parse alone, after the module is loaded and the file read) on stdout.
// With the candidate `same`, prints {"same"}: whether sluice's loadDocument gives the data the
// `yaml` package gave (parseDocument + toJS, as sluice used it), by isDeepStrictEqual.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const require = createRequire(join(ROOT, "package.json"));
const [candidate, file] = process.argv.slice(2);
const text = readFileSync(file, "utf8");

/** js-yaml 5 is in the workspace only as a dependency of dependencies: found in pnpm's store. */
function jsYaml5() {
  return createRequire(join(ROOT, "node_modules/.pnpm/js-yaml@5.5.0/node_modules/js-yaml/package.json"))("./dist/js-yaml.cjs.js");
}

const loadDocument = async () => (await import(join(ROOT, "generators/openapi/dist/index.js"))).loadDocument;

/** Each candidate: load its module (untimed), then the parse to plain data (timed). */
const candidates = {
  read: async () => () => text.length,
  "yaml-document": async () => {
    const { parseDocument } = require("yaml");
    return () => parseDocument(text, { uniqueKeys: false, prettyErrors: false }).toJS();
  },
  // The lowest layer of `yaml`'s API: the CST tokens alone, before any document or data is
  // built. Any composer of our own on top of it (to skip the Document) would cost more than this.
  "yaml-cst": async () => {
    const { Parser } = require("yaml");
    return () => {
      let tokens = 0;
      for (const _ of new Parser().parse(text)) tokens += 1;
      return tokens;
    };
  },
  "js-yaml-4": async () => {
    const { load } = require("js-yaml");
    return () => load(text);
  },
  "js-yaml-5": async () => {
    const { load } = jsYaml5();
    return () => load(text);
  },
  sluice: async () => {
    const load = await loadDocument();
    return () => load(text, "spec.yaml");
  },
};

if (candidate === "same") {
  const before = require("yaml").parseDocument(text, { uniqueKeys: false, prettyErrors: false }).toJS();
  const after = (await loadDocument())(text, "spec.yaml");
  process.stdout.write(JSON.stringify({ same: isDeepStrictEqual(before, after) }));
} else {
  const make = candidates[candidate];
  if (make === undefined) throw new Error(`unknown candidate ${candidate}`);
  const parse = await make();
  const started = performance.now();
  const result = parse();
  const parseMs = performance.now() - started;
  if (result === undefined) throw new Error("nothing parsed");
  process.stdout.write(JSON.stringify({ parseMs }));
}
