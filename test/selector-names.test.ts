/**
 * Selectors and names (issue 22): every selector `paths()` lists is one `derived()` reads,
 * whatever the property names hold. Names with selector syntax (`@odata.type`, `a b`,
 * `x[0]`, `*`, `:`, quotes, line separators) are written quoted and withheld for real;
 * an argument named like its type has two readings, each with its own spelling.
 *
 * Quick tier: a fixed sample of corpus and JSON-Schema-Test-Suite tools; the whole of
 * both with SLUICE_LONG=1 (see ./support/tier.ts).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkEgressMap, definePack, egressMap, formatEgressMap, isSluiceError, suggestProjection, Tool, type PackDefinition } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { tools as stripe } from "@sluice/pack-stripe";
import { tools as linear } from "@sluice/pack-linear";
import { screenArguments } from "../packages/core/src/call/screen-arguments.ts";
import { parseEgressMap } from "../packages/core/src/egress-map/parse-egress-map.ts";
import { errorOf } from "./support/error-of.ts";
import { loadSuite, suiteTool } from "./support/never-widen.ts";
import { LONG, sweep } from "./support/tier.ts";

const BINDING = { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } as const;
const make = (inputSchema: Record<string, unknown>, name = "t") => Tool.create({ name, description: "A tool.", inputSchema, binding: BINDING });
const SUITE = fileURLToPath(new URL("./fixtures/json-schema-test-suite/", import.meta.url));
/** Codes that mean "this selector is not one derived() reads": a listed path must never get them. */
const NOT_READ = new Set(["UNKNOWN_SELECTOR", "AMBIGUOUS_SELECTOR"]);

/** The code of the SluiceError `fn` throws, or undefined when it returns. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (isSluiceError(error)) return error.code;
    throw error;
  }
}

const yieldMacrotask = () => new Promise((resolve) => setImmediate(resolve));

/** The listed paths of `tool` that drop or keep refuses as a selector (a refusal for another reason, such as a required member, is fine). */
async function unreadPaths(tool: Tool, depth: number): Promise<string[]> {
  const out: string[] = [];
  for (const { path } of await tool.paths(undefined, { depth })) {
    for (const option of ["drop", "keep"] as const) {
      const code = codeOf(() => tool.derived({ name: "d", [option]: [path] }));
      if (code !== undefined && NOT_READ.has(code)) out.push(`${tool.name}: ${option} ${path}: ${errorOf(() => tool.derived({ name: "d", [option]: [path] })).message}`);
    }
  }
  return out;
}

function discordTools(): Tool[] {
  const file = fileURLToPath(new URL("./fixtures/discord/openapi.json", import.meta.url));
  const document = loadDocument(readFileSync(file), "openapi.json");
  return [...(definePack(buildOpenAPIPackIR(document, { name: "discord", file: "openapi.json", sha256: "0".repeat(64) }) as unknown as PackDefinition).tools as readonly Tool[])];
}

describe("every path paths() lists derives", () => {
  it("on corpus tools (Stripe, Linear, the Discord fixture)", { timeout: LONG ? 3_600_000 : 120_000 }, async () => {
    const all = [...(stripe as readonly Tool[]), ...(linear as readonly Tool[]), ...discordTools()];
    const quick = new Set(["issues_list", "post_customers", "create_message", "create_interaction_response"]);
    const tools = sweep(all, (tool) => quick.has(tool.name));
    expect(tools.length).toBeGreaterThanOrEqual(LONG ? all.length : 4);
    const unread: string[] = [];
    for (const tool of tools) {
      unread.push(...(await unreadPaths(tool, 2)));
      await yieldMacrotask();
    }
    expect(unread).toEqual([]);
  });

  it("on JSON-Schema-Test-Suite tools (draft 2020-12 and draft 4)", { timeout: LONG ? 3_600_000 : 120_000 }, async () => {
    let checked = 0;
    const unread: string[] = [];
    for (const draft of ["draft2020-12", "draft4"]) {
      const cases = sweep(loadSuite(SUITE + draft), (c) => /properties|anyOf|oneOf|ref|items|required/i.test(c.file) && c.description.length % 3 === 0);
      for (const [index, suiteCase] of cases.entries()) {
        const built = suiteTool(suiteCase.schema, `suite_${index}`);
        if (!("tool" in built)) continue;
        checked++;
        for (const line of await unreadPaths(built.tool, 3)) unread.push(`${draft}/${suiteCase.file} (${suiteCase.description}): ${line}`);
        if (index % 20 === 0) await yieldMacrotask();
      }
    }
    expect(checked).toBeGreaterThan(LONG ? 400 : 20);
    expect(unread).toEqual([]);
  });

  it("lists a root union's branches, and derived() drops and keeps them", async () => {
    const tool = make({
      type: "object",
      properties: { id: { type: "string" }, email: { type: "string" } },
      anyOf: [{ required: ["id"] }, { required: ["email"] }],
    });
    const paths = (await tool.paths()).map((p) => p.path);
    expect(paths).toEqual(["anyOf[0]", "anyOf[1]", "email", "id"]);
    const kept = tool.derived({ name: "by_id", keep: ["anyOf[0]", "id"] });
    expect(kept.inputSchema).toEqual({ type: "object", properties: { id: { type: "string" } }, anyOf: [{ required: ["id"] }] });
    expect(kept.withheld.map((w) => w.path)).toEqual(["anyOf[1]", "email"]);
    const dropped = tool.derived({ name: "by_email", drop: ["anyOf[0]", "id"] });
    expect(Object.keys(dropped.inputSchema.properties as object)).toEqual(["email"]);
  });
});

/** Property names built from selector syntax and the characters that break lines or comments. */
const HOSTILE_PARTS = [".", "[", "]", "*", ":", " ", '"', "'", "\\", "/", "\u2028", "\n", "anyOf[0]", "@odata", "type", "x"];
const hostileName = fc.array(fc.constantFrom(...HOSTILE_PARTS), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));

describe("names holding selector syntax (seeded property)", () => {
  it("paths() spells them so that derived(), the egress map, screening and suggest read them back", async () => {
    const seed = Number(process.env.SLUICE_FUZZ_SEED ?? 20_261_201);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(hostileName, { minLength: 2, maxLength: 4 }), async (names) => {
        // A property named like a branch segment cannot be told from one (see docs/selectors.md).
        fc.pre(names.every((name) => !/^(anyOf|oneOf|allOf)\[[^\]]+\]$/.test(name)));
        const members = Object.fromEntries(names.map((name) => [name, { type: "string" }]));
        const tool = make({ type: "object", properties: { body: { type: "object", properties: members, additionalProperties: true } }, required: ["body"] });
        const listed = (await tool.paths("body")).map((p) => p.path);
        expect(listed).toHaveLength(names.length);
        for (const [index, path] of listed.entries()) {
          const derived = tool.derived({ name: "d", drop: [path] });
          const body = (derived.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>).body!;
          // Gone, or (the object being open) declared `false`.
          const gone = names.filter((name) => !Object.hasOwn(body.properties, name) || body.properties[name] === false);
          expect(gone).toHaveLength(1);
          const name = gone[0]!;
          // The map lists the withheld path as paths() spelled it, and parses back to it.
          const map = formatEgressMap(egressMap([derived]));
          expect(parseEgressMap(map).tools.get("d")!.withheld.map((line) => line.path)).toEqual([path]);
          const visible = parseEgressMap(map).tools.get("d")!.visible.map((line) => line.path);
          expect(visible.filter((line) => line !== "body" && line !== "body.*").sort()).toEqual(listed.filter((p) => p !== path).sort());
          // Screening refuses the name although the object is open.
          const error = await derived.request({ body: { [name]: "v" } }).then(() => undefined, (e: unknown) => e);
          expect((error as { code?: string } | undefined)?.code, `${JSON.stringify(name)} sent`).toBe("EGRESS_DENIED");
          // keep reads the same spelling.
          const kept = tool.derived({ name: "k", keep: [path] });
          const keptMembers = (kept.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>).body!.properties;
          expect(Object.keys(keptMembers).filter((key) => keptMembers[key] !== false)).toEqual([name]);
          if (index > 1) break;
        }
      }),
      { seed, numRuns: LONG ? 300 : 25 },
    );
  });

  it("--check names a quoted member that becomes visible, and one that is withheld", () => {
    const tool = make({ type: "object", properties: { body: { type: "object", properties: { "@odata.type": { type: "string" }, "a.b": { type: "string" }, x: { type: "string" } } } } }, "d");
    const narrow = formatEgressMap(egressMap([tool.derived({ name: "d", drop: ['body."@odata.type"'] })]));
    const wide = formatEgressMap(egressMap([tool.derived({ name: "d", drop: ['body."a.b"'] })]));
    const check = checkEgressMap(narrow, wide);
    expect(check.widened.map((d) => d.path)).toEqual(['body."@odata.type"']);
    expect(check.narrowed.map((d) => d.path)).toEqual(['body."a.b"']);
  });

  it("suggest proposes quoted names that derived() applies", async () => {
    const long = "x".repeat(400);
    const tool = make({
      type: "object",
      properties: {
        query: { type: "string" },
        body: { type: "object", properties: { "@odata.type": { type: "string", description: long }, "odata.etag": { type: "string", description: long }, title: { type: "string" } } },
      },
    });
    const suggestion = await suggestProjection(tool, { budget: 60 });
    expect(suggestion.drop.some((path) => path.startsWith('body."'))).toBe(true);
    const derived = tool.derived({ name: "s", drop: suggestion.drop });
    expect(Object.keys((derived.inputSchema.properties as Record<string, { properties?: object }>).body?.properties ?? {})).not.toContain("@odata.type");
  });

  it("screening refuses a quoted withheld name by the list, not only by the schema (guard quotedNames)", async () => {
    const parent = make({ type: "object", properties: { body: { type: "object", properties: { "@odata.type": { type: "string" }, x: { type: "string" } }, additionalProperties: true } } });
    const derived = parent.derived({ name: "d", drop: ['body."@odata.type"'] });
    expect(derived.withheld.map((w) => w.path)).toEqual(['body."@odata.type"']);
    const withheld = new Map(derived.withheld.map((w) => [w.path, w.reason]));
    // The parent's schema admits the key: only the withheld list can refuse it.
    const screen = () => screenArguments(parent.inputSchema, { body: { "@odata.type": "#x", x: "y" } }, { withheld, pins: {}, origins: new Map(), maxBytes: 1 << 20 }).issues.map((i) => i.code);
    expect(screen()).toEqual(["withheld"]);
    expect(await withoutGuard("quotedNames", screen)).toEqual([]);
  });
});

describe("an argument named like its type", () => {
  const tool = make({
    type: "object",
    properties: { Address: { $ref: "#/$defs/Address" }, billing: { $ref: "#/$defs/Address" } },
    $defs: { Address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  });

  it("Address.street is an error naming both readings", () => {
    const error = errorOf(() => tool.derived({ name: "d", drop: ["Address.street"] }));
    expect(error.code).toBe("AMBIGUOUS_SELECTOR");
    expect(error.candidates).toEqual(['"Address".street', "Address:street"]);
    expect(error.message).toContain("argument path");
    expect(error.message).toContain("type selector");
  });

  it('"Address".street is the argument path; Address:street is the type, everywhere it is reached', () => {
    const path = tool.derived({ name: "p", drop: ['"Address".street'] });
    const map = formatEgressMap(egressMap([path]));
    expect(map).toContain("- \"Address\".street: projection");
    expect(map).toContain("+ billing.street: string");
    const type = tool.derived({ name: "t", drop: ["Address:street"] });
    const typeMap = formatEgressMap(egressMap([type]));
    expect(typeMap).not.toContain("street: string");
    expect(type.withheld.map((w) => w.path)).toEqual(["Address:street"]);
  });

  it("paths() lists the argument path quoted, and the type's members with Type:", async () => {
    expect((await tool.paths(undefined, { depth: 2 })).map((p) => p.path)).toEqual(['"Address".city', '"Address".street', "Address", "billing", "billing.city", "billing.street"]);
    expect((await tool.paths("Address:")).map((p) => p.path)).toEqual(["Address:city", "Address:street"]);
    for (const { path } of await tool.paths("Address:")) expect(() => tool.derived({ name: "d", drop: [path] })).not.toThrow();
  });

  it("existing spellings keep working where there is one reading", async () => {
    const plain = make({
      type: "object",
      properties: { home: { $ref: "#/$defs/Address" } },
      $defs: { Address: { type: "object", properties: { street: { type: "string" } } } },
    });
    expect(plain.derived({ name: "d", drop: ["Address.street"] }).withheld.map((w) => w.path)).toEqual(["Address.street"]);
    expect(plain.derived({ name: "d", drop: ["home.street"] }).withheld.map((w) => w.path)).toEqual(["home.street"]);
    expect(plain.derived({ name: "d", drop: ["street"] }).withheld.map((w) => w.path)).toEqual(["home.street"]);
  });

  it("a type name holding dots is named with Type:", async () => {
    const k8s = make({
      type: "object",
      properties: { pod: { $ref: "#/$defs/io.k8s.api.core.v1.Pod" } },
      $defs: { "io.k8s.api.core.v1.Pod": { type: "object", properties: { spec: { type: "string" }, kind: { type: "string" } } } },
    });
    expect((await k8s.paths("io.k8s.api.core.v1.Pod")).map((p) => p.path)).toEqual(["io.k8s.api.core.v1.Pod:kind", "io.k8s.api.core.v1.Pod:spec"]);
    expect(Object.keys((k8s.derived({ name: "d", drop: ["io.k8s.api.core.v1.Pod:spec"] }).inputSchema.$defs as Record<string, { properties: object }>)["io.k8s.api.core.v1.Pod"]!.properties)).toEqual(["kind"]);
  });
});

describe("malformed selectors are coded errors", () => {
  const tool = make({ type: "object", properties: { a: { type: "string" } } });
  for (const raw of ['"unterminated', 'a."', "a..b", ":a", "a:", '"a"b', "a.\"b\"c"]) {
    it(JSON.stringify(raw), () => {
      expect(codeOf(() => tool.derived({ name: "d", drop: [raw] }))).toBe("UNKNOWN_SELECTOR");
    });
  }
});
