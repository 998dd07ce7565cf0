/**
 * YAML specs load with js-yaml (bench/YAML-PARSE.md: a fraction of the `yaml` package's time and
 * memory on large specs). The oracle is the `yaml` package, which loaded them before, read the
 * way sluice read it (YAML 1.2 core schema, duplicate keys allowed): the same text must give the
 * same data, on real specs and on the corners where YAML parsers differ.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { sweep } from "../../../test/support/tier.ts";
import { loadDocument } from "../src/index.ts";

const asYamlRead = (text: string): unknown => parseDocument(text, { uniqueKeys: false, prettyErrors: false }).toJS() as unknown;

describe("loadDocument reads YAML as the yaml package did", () => {
  it.each<[string, string]>([
    ["core-schema scalars: null, booleans, integers in three bases, floats, infinities", "a: ~\nb: null\nc: true\nd: False\ne: 0x1F\nf: 0o17\ng: 017\nh: -12\ni: 1.5e3\nj: .inf\nk: -.Inf\nl: 1_000\n"],
    ["a date stays a string (no timestamp type), and so does a version", 'created: 2020-01-01\nat: 2020-01-01T10:00:00Z\nversion: "3.0"\nv: 3.0.1\n'],
    ["`<<` is an ordinary key (no merge keys in YAML 1.2)", "base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n"],
    ["the last of duplicate keys wins", "a: 1\nb: 2\na: 3\n"],
    ["`__proto__` is an own key, not the prototype", "__proto__: {polluted: true}\nx: 1\n"],
    ["block scalars, literal and folded, with their chomping", "lit: |\n  one\n  two\nfold: >-\n  one\n  two\nkeep: |+\n  end\n\n"],
    ["quoted strings with escapes, and a key that looks like a number", 'a: "tab\\tand \\u00e9"\nb: \'it\'\'s\'\n"200": ok\n404: missing\n'],
    ["flow collections, nested, with an alias shared", "defs: &d [1, {a: [2, 3]}]\nuses: [*d, *d]\n"],
  ])("%s", (_, text) => {
    expect(loadDocument(text, "case.yaml")).toStrictEqual(asYamlRead(text));
  });

  // The corpus's YAML specs: two small ones in the quick tier, every one in the long tier.
  const specs = "../../../../shared/specs/";
  const corpus = readdirSync(new URL(specs, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) => readdirSync(new URL(`${specs}${dir.name}/`, import.meta.url)).filter((file) => /\.ya?ml$/.test(file)).map((file) => `${dir.name}/${file}`))
    .sort();
  it.each(sweep(corpus, (file) => file === "google/calendar-v3.yaml" || file === "petstore/swagger-petstore-3.0.yaml"))("%s gives the same data", (file) => {
    const text = readFileSync(new URL(`${specs}${file}`, import.meta.url), "utf8");
    expect(loadDocument(text, file)).toStrictEqual(asYamlRead(text));
  });

  it("a `__proto__` key sets no prototype", () => {
    const loaded = loadDocument("__proto__: {polluted: true}\n", "proto.yaml") as Record<string, unknown>;
    expect(Object.getPrototypeOf(loaded)).toBe(Object.prototype);
    expect(Object.keys(loaded)).toEqual(["__proto__"]);
    expect((loaded as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
