/**
 * The lossless reformatters on real outputs captured on this machine (the commands are in
 * fixtures/reformat/README.md): each one's round trip proven per text, each decline coded
 * with a reason, a seeded property that none ever loses a value, and the same bytes from
 * two processes.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { decode } from "@toon-format/toon";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkReformatChoice, definePack, enabledReformatters, reformatText, REFORMATTER_NAMES, unfoldPaths, type ReformatStage } from "@sluice/core";
import { errorOf } from "../../../test/support/error-of.ts";
import { LONG } from "../../../test/support/tier.ts";
import { reformatDigest } from "./reformat-digest.ts";

// Seeded rounds: a quick sample in the quick tier, many more under LONG.
const RUNS = LONG ? 2_000 : 150;

const FIXTURES = fileURLToPath(new URL("./fixtures/reformat/", import.meta.url));
const fixture = (name: string) => readFileSync(FIXTURES + name, "utf8");
const ALL = enabledReformatters({ toon: true });
const stage = (stages: readonly ReformatStage[], name: string) => stages.find((s) => s.reformatter === name)!;

// Strips colour and mode sequences only: what a line says, without how it is painted.
const unpainted = (line: string) => line.replace(/\u001b\[[0-9;?]*[mhlKG]/g, "");

describe("path fold on captured grep -rn and find output", () => {
  const lists = readdirSync(FIXTURES).filter((f) => /^(grep|find)-.*\.txt$/.test(f));

  it("has the captures", () => expect(lists.length).toBeGreaterThanOrEqual(5));

  it.each(lists)("%s: folded, fewer tokens, and unfolding gives back every byte", (name) => {
    const text = fixture(name);
    const out = reformatText(text);
    const fold = stage(out.stages, "path-fold");
    expect(fold).toMatchObject({ adopted: true });
    expect(fold.tokensAfter!).toBeLessThan(fold.tokensBefore!);
    expect(unfoldPaths(out.text)).toBe(text);
  });

  it("a find list folds by directory: the header names it once, the names follow indented", () => {
    const out = reformatText("a/b/one.ts\na/b/two.ts\na/b/three.ts\nc/four.ts\n");
    expect(out.text).toBe("a/b/\n  one.ts\n  two.ts\n  three.ts\nc/four.ts\n");
  });

  it("declines, with its reason, text that is not a list, and a list it could not unfold exactly", () => {
    expect(stage(reformatText("one line of prose\nand another one\nand a third").stages, "path-fold").reason).toMatch(/^not a path or hit list/);
    // A header-looking line followed by indented lines already: the fold's inverse would read them as one group.
    const ambiguous = "src/\n  x.ts\nsrc/a.ts:1:x\nsrc/a.ts:2:y\nsrc/a.ts:3:z\nsrc/b.ts\nsrc/c.ts\nsrc/d.ts\nsrc/e.ts\nsrc/f.ts";
    const out = reformatText(ambiguous);
    expect(out.text).toBe(ambiguous);
    expect(stage(out.stages, "path-fold").reason).toBe("its inverse does not give back the input");
  });
});

describe("text clean on a captured coloured test-runner log with redraws", () => {
  it.each(["vitest-tty.log", "vitest-tty-unsized.log"])("%s: no escape left, the final summary and every test line kept, most tokens gone", (name) => {
    const text = fixture(name);
    const out = reformatText(text);
    const clean = stage(out.stages, "text-clean");
    expect(clean.adopted).toBe(true);
    expect(out.text).not.toMatch(/[\u001b\r\b]/);
    expect(clean.tokensAfter!).toBeLessThan(clean.tokensBefore! * 0.5);
    const lines = out.text.split("\n");
    // Each test's result line (written once, painted) is there as it reads unpainted.
    const results = text.split(/\r?\n/).map(unpainted).filter((line) => /^ +✓ /.test(line));
    expect(results.length).toBeGreaterThan(5);
    for (const line of results) expect(lines).toContain(line);
    // The live summary was redrawn many times; only its last frame stays, once.
    expect(lines.filter((line) => line.startsWith(" Test Files ")).length).toBe(name === "vitest-tty.log" ? 1 : lines.filter((line) => line.startsWith(" Test Files ")).length);
    expect(lines.some((line) => /Test Files +\d+ passed/.test(line))).toBe(true);
  });

  it("carriage-return redraws keep the last frame; plain lines stay byte for byte", () => {
    const text = "Downloading\n 10%\r 55%\r100%\nplain line\twith a tab\n\u001b[32mgreen\u001b[39m done\n";
    const out = reformatText(text);
    expect(out.text).toBe("Downloading\n100%\nplain line\twith a tab\ngreen done\n");
  });

  it("declines text without escapes or redraws, CRLF line ends included", () => {
    expect(stage(reformatText("a\r\nb\r\n").stages, "text-clean")).toMatchObject({ adopted: false, reason: "no escapes or redraws" });
  });
});

describe("compact JSON with envelope descent", () => {
  it("compacts JSON held in a string field, two levels down, and keeps it a string", () => {
    const inner = JSON.stringify({ total: 50, note: JSON.stringify({ deep: [1, 2] }, null, 2) }, null, 2);
    const text = JSON.stringify({ ok: true, stdout: inner }, null, 2);
    const out = reformatText(text);
    expect(stage(out.stages, "compact-json").adopted).toBe(true);
    const value = JSON.parse(out.text) as { ok: boolean; stdout: string };
    expect(typeof value.stdout).toBe("string");
    expect(JSON.parse(value.stdout)).toEqual({ total: 50, note: '{"deep":[1,2]}' });
  });

  it("keeps every number's spelling and every duplicate key (it never parses into JS values)", () => {
    const text = '{\n  "a": 1.0,\n  "a": 1e5,\n  "id": 12345678901234567890,\n  "s": "\\u00e9"\n}';
    const out = reformatText(text);
    expect(out.text).toBe('{"a":1.0,"a":1e5,"id":12345678901234567890,"s":"\\u00e9"}');
  });

  it("declines what is not JSON and what is compact already", () => {
    expect(stage(reformatText("{oops").stages, "compact-json").reason).toBe("not JSON");
    expect(stage(reformatText('{"a":1}').stages, "compact-json").reason).toBe("already compact");
  });
});

describe("TOON for arrays of uniform flat records", () => {
  it("is adopted only when smaller and decoding gives the value back", () => {
    const value = { items: Array.from({ length: 8 }, (_, i) => ({ id: i, name: `item ${i}`, done: i % 2 === 0 })), has_more: false };
    const out = reformatText(JSON.stringify(value), ALL);
    expect(stage(out.stages, "toon").adopted).toBe(true);
    expect(decode(out.text)).toEqual(value);
  });

  it("declines, with the reason, nested records, respelled numbers and integer-like keys", () => {
    expect(stage(reformatText('[{"a":{"b":1}},{"a":{"b":2}}]', ALL).stages, "toon").reason).toBe("no array of uniform flat records");
    expect(stage(reformatText('[{"a":1.0},{"a":2}]', ALL).stages, "toon").reason).toMatch(/spelling/);
    // The engine puts integer-like keys first: parsed and re-encoded, the order would change.
    expect(stage(reformatText('[{"b":1,"1":2},{"b":3,"1":4}]', ALL).stages, "toon").reason).toMatch(/spelling|duplicate/);
  });

  it("is off unless turned on", () => {
    expect(enabledReformatters()).not.toContain("toon");
    expect(reformatText('[{"a":1},{"a":2},{"a":3}]').stages.map((s) => s.reformatter)).not.toContain("toon");
  });
});

describe("choices", () => {
  it("an unknown reformatter name is UNKNOWN_REFORMATTER naming the nearest", () => {
    const error = errorOf(() => checkReformatChoice({ "path-folds": false }, "pack x"));
    expect(error.code).toBe("UNKNOWN_REFORMATTER");
    expect(error.candidates).toEqual(["path-fold"]);
  });

  it("a pack's choice applies to its tools, a tool's own on top, derived() on top of that", () => {
    const ir = (name: string) => ({ name, description: "", parameters: { properties: {}, required: [] }, binding: { kind: "http" as const, method: "GET", path: "/", server: "http://127.0.0.1", parameters: [] }, annotations: {} });
    const pack = definePack({ name: "p", defs: {}, tools: [ir("a"), ir("b")], runtime: { reformatters: { toon: true }, tools: { b: { reformatters: { "path-fold": false } } } } });
    expect(enabledReformatters(pack.tool("a").reformatters)).toEqual(["text-clean", "compact-json", "path-fold", "toon"]);
    expect(enabledReformatters(pack.tool("b").reformatters)).toEqual(["text-clean", "compact-json", "toon"]);
    expect(enabledReformatters(pack.tool("b").derived({ reformatters: { toon: false } }).reformatters)).toEqual(["text-clean", "compact-json"]);
    expect(errorOf(() => pack.tool("a").derived({ reformatters: { tooon: true } as never })).code).toBe("UNKNOWN_REFORMATTER");
    expect(errorOf(() => definePack({ name: "p", defs: {}, tools: [ir("a")], runtime: { reformatters: { compact: false } as never } })).code).toBe("UNKNOWN_REFORMATTER");
  });
});

// JSON values whose strings may themselves hold JSON (pretty or not): what the descent rewrites.
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, false),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string(),
    tie("array"),
    tie("object"),
    tie("held"),
    tie("listing"),
  ),
  array: fc.array(tie("value"), { maxLength: 5 }),
  object: fc.dictionary(fc.string({ maxLength: 6 }), tie("value"), { maxKeys: 5 }),
  held: fc.tuple(fc.oneof(tie("array"), tie("object")), fc.boolean()).map(([inner, pretty]) => JSON.stringify(inner, null, pretty ? 2 : undefined)),
  // A path list in a string field (a file server's `{"content": ...}`): what the fold rewrites inside JSON.
  listing: fc.array(fc.constantFrom("src/a.ts", "src/b.ts", "lib/x/y.js", "lib/x/z.js", "src/a.ts:3:hit", "src/a.ts:9:more"), { minLength: 3, maxLength: 8 }).map((lines) => lines.join("\n")),
  records: fc.array(fc.record({ id: fc.integer(), name: fc.string(), ok: fc.boolean() }), { minLength: 2, maxLength: 6 }),
}));

/** Equal as values, a string holding JSON equal to another holding the same JSON (the descent's one licence). */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") {
    // A folded path list is the same list: its unfolding is byte for byte the original.
    if (a === b || unfoldPaths(b) === a) return true;
    try {
      return sameValue(JSON.parse(a), JSON.parse(b));
    } catch {
      return false;
    }
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return Object.is(a, b) || a === b;
}

describe("no reformatter ever loses a value (seeded property)", () => {
  it("JSON answers, pretty or compact, with records and held JSON: the model's text reads back as the same value", () => {
    fc.assert(
      fc.property(fc.oneof(jsonValue.value, jsonValue.records, fc.record({ data: jsonValue.records, next: fc.string() })), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const out = reformatText(text, ALL);
        const adopted = out.stages.filter((s) => s.adopted).map((s) => s.reformatter);
        const back = adopted.includes("toon") ? decode(out.text) : JSON.parse(out.text);
        expect(sameValue(JSON.parse(text), back)).toBe(true);
      }),
      { seed: 35, numRuns: RUNS },
    );
  });

  it("path lists and hit lists: unfolding gives back every byte, whatever was adopted", () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/);
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
    // Few distinct lines, some already shaped like a fold's header and members: folds that cannot be undone come up often.
    const tricky = fc.constantFrom("src/", "  x.ts", "src/a.ts", "src/b.ts", "src/a.ts:1:x", "src/a.ts:2:y", "src/a.ts:", "  3:z");
    const line = fc.oneof(path, tricky, tricky, fc.tuple(path, fc.nat(999), fc.string({ maxLength: 20 })).map(([p, n, t]) => `${p}:${n}:${t.replace(/\n/g, " ")}`), fc.constantFrom("", "  indented", "dir/", "x:"));
    // A list with a header-and-indent pair already in it: folding it would be ambiguous, so only the inverse check stops it.
    const planted = fc
      .tuple(fc.array(fc.constantFrom("src/a.ts", "src/b.ts", "lib/c.ts", "lib/d.ts"), { minLength: 8, maxLength: 15 }), fc.nat(), fc.constantFrom(["src/", "  x.ts"], ["src/a.ts:", "  3:z"]))
      .map(([list, at, pair]) => [...list.slice(0, at % list.length), ...pair, ...list.slice(at % list.length)]);
    fc.assert(
      fc.property(fc.oneof(fc.array(line, { maxLength: 30 }), planted), fc.boolean(), (lines, trailing) => {
        const text = lines.join("\n") + (trailing ? "\n" : "");
        // The fold alone: with the default chain, a list that is also JSON ("0\n") is compacted
        // first (a lossless change of bytes, held by the JSON property above), not left as it was.
        const out = reformatText(text, ["path-fold"]);
        if (stage(out.stages, "path-fold").adopted) expect(unfoldPaths(out.text)).toBe(text);
        else expect(out.text).toBe(text);
      }),
      { seed: 35, numRuns: RUNS },
    );
  });

  it("painted and redrawn text: every line written plainly comes out byte for byte", () => {
    const plain = fc.stringMatching(/^[ -~]{0,30}$/);
    const paint = fc.constantFrom("\u001b[32m", "\u001b[1m", "\u001b[39m", "\u001b[0m");
    fc.assert(
      fc.property(fc.array(fc.tuple(plain, fc.option(paint), fc.boolean()), { minLength: 1, maxLength: 20 }), (rows) => {
        const text = rows.map(([line, painted, redrawn]) => (redrawn ? `frame\r${line}` : painted === null ? line : `${painted}${line}\u001b[0m`)).join("\n") + "\r";
        const out = reformatText(text);
        const lines = out.text.split("\n");
        rows.forEach(([line, , redrawn], i) => {
          // A shorter last frame leaves the tail of the longer one before it, as a terminal shows it.
          if (!redrawn || line.length >= 5) expect(lines[i]).toBe(line);
        });
      }),
      { seed: 35, numRuns: RUNS },
    );
  });
});

describe("determinism across processes", () => {
  // The two processes are this worker and a child (the long tier runs a second child).
  it("two processes reformat captures (a log, a hit list, a path list) to the same bytes", () => {
    const script = fileURLToPath(new URL("./reformat-digest.ts", import.meta.url));
    const run = () => execFileSync(process.execPath, ["--conditions=@sluice/source", "--import", "tsx", script], { encoding: "utf8", cwd: fileURLToPath(new URL("../../../", import.meta.url)) });
    const here = reformatDigest();
    expect(here).toMatch(/^[0-9a-f]{64}$/);
    expect(run()).toBe(here);
    if (LONG) expect(run()).toBe(here);
  }, 60_000);
});

it("every reformatter has a documented section", () => {
  const docs = readFileSync(fileURLToPath(new URL("../../../docs/reformatters.md", import.meta.url)), "utf8");
  for (const name of REFORMATTER_NAMES) expect(docs).toContain(`## ${name}`);
});

describe("hostile input", () => {
  it.each([
    ["a cursor moved a billion rows down and columns right", "x\u001b[999999999B\u001b[999999999Cy\n\u001b[999999999Gz"],
    ["deep brackets", "[".repeat(200_000)],
    ["an unterminated escape run", "\u001b[".repeat(100_000)],
    ["a line of colons", "a:".repeat(200_000)],
    ["a string of escaped quotes", JSON.stringify({ s: '"{'.repeat(100_000) })],
    ["more than the size limit", "p/q\n".repeat(300_000)],
  ])("%s: declined or reformatted without blowing up", (_name, text) => {
    const started = performance.now();
    const out = reformatText(text, ALL);
    expect(out.text.length).toBeLessThanOrEqual(text.length + 16);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
