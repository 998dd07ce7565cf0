/**
 * sluice builds what an established OpenAPI client builds. For each operation of each
 * spec (test/support/reference-specs.ts: the corpus's OpenAPI 3.0, 3.1 and Swagger 2.0
 * documents, the outside fixtures, and a made-up spec with every serialization case),
 * argument values are drawn from the generated tool's input schema (seeded), the request
 * is built by the tool's `request()` and by swagger-client's `buildRequest` from the same
 * spec operation, and the two are compared (what "equal" means, and every known
 * difference with its reason: docs/reference-request-builder.md). Any other difference
 * fails. Nothing is sent anywhere.
 *
 * Quick tier: a fixed sample (the serialization cases in full, small 3.0 / 3.1 specs,
 * a few operations of a Swagger 2.0 one); `pnpm test:long` (LONG in
 * test/support/tier.ts) takes every operation of every spec, three draws each.
 * SLUICE_REFERENCE_SEED replays another seed.
 */
import { describe, expect, it } from "vitest";
import { buildHttpRequest, type HttpBinding } from "@sluice/core";
import { differences, referenceRequest, wireOfSluice, type Difference, type WireRequest } from "./support/reference-builder.ts";
import { classify, knownDifferences, RULES, type DifferenceContext } from "./support/reference-differences.ts";
import { HARD_CASES, loadReferenceSpec, REFERENCE_SPECS, sampleTools } from "./support/reference-specs.ts";
import { runSpec, type SpecRun } from "./support/reference-run.ts";
import { hardCaseSpec } from "./support/reference-hard-cases.ts";
import { LONG } from "./support/tier.ts";

const SEED = Number(process.env["SLUICE_REFERENCE_SEED"] ?? 20_261_201);
const DRAWS = LONG ? 3 : 1;
const SPECS = LONG ? REFERENCE_SPECS : REFERENCE_SPECS.filter((s) => s.quick !== "none");

describe("the known differences: one table, one rule each", () => {
  it("every rule has a row in docs/reference-request-builder.md with a verdict and a reason, and every row a rule", () => {
    const rows = knownDifferences();
    expect(rows.map((r) => r.id).sort()).toEqual(Object.keys(RULES).sort());
    for (const row of rows) {
      expect(row.verdict, row.id).toMatch(/^(reference|sluice, deliberate|spec|both valid)$/);
      expect(row.reason.length, row.id).toBeGreaterThan(40);
    }
  });
});

describe("the path rules explain only their own reason", () => {
  const binding = (path: string): HttpBinding => ({
    kind: "http",
    method: "GET",
    path,
    server: "https://api.example.com/v2",
    parameters: [
      { arg: "id", name: "id", in: "path", style: "simple", explode: false, required: true },
      { arg: "sub", name: "sub", in: "path", style: "simple", explode: false, required: true },
      { arg: "fields", name: "fields", in: "query", style: "form", explode: true },
    ],
  });
  const context = (path: string, args: Record<string, unknown>): DifferenceContext => ({ kind: "swagger2", binding: binding(path), args, specParameters: [] });
  const cases: Array<[string, Difference, DifferenceContext, string | undefined]> = [
    ["raw brackets, nothing else", { part: "path", sluice: "/v2/a/%5B0%5D/b", reference: "/v2/a/[0]/b" }, context("/a/{id}/b", { id: "[0]" }), "path-raw-brackets"],
    ["raw brackets beside another value", { part: "path", sluice: "/v2/a/%5B0%5D/b", reference: "/v2/a/[0]/c" }, context("/a/{id}/b", { id: "[0]" }), undefined],
    ["a later template left unexpanded after a bracket", { part: "path", sluice: "/v2/a/%5B0%5D/x", reference: "/v2/a/[0]/%7Bsub%7D" }, context("/a/{id}/{sub}", { id: "[0]", sub: "x" }), "path-brackets-unexpanded"],
    ["an unexpanded template with no bracket in any value", { part: "path", sluice: "/v2/a/y/x", reference: "/v2/a/y/%7Bsub%7D" }, context("/a/{id}/{sub}", { id: "y", sub: "x" }), undefined],
    ["a fragment key: the template left unexpanded", { part: "path", sluice: "/v2/files/7", reference: "/v2/files/%7Bid%7D" }, context("/files/{id}#shared", { id: "7" }), "path-fragment-in-key"],
    ["a fragment key: the query lost to the fragment", { part: "query", name: "fields", sluice: "fields=a", reference: "" }, context("/files/{id}#shared", { id: "7", fields: "a" }), "path-fragment-in-key"],
    ["a fragment key: a query sent with another value", { part: "query", name: "fields", sluice: "fields=a", reference: "fields=b" }, context("/files/{id}#shared", { id: "7", fields: "a" }), undefined],
    ["a fragment key: another path", { part: "path", sluice: "/v2/files/7", reference: "/v2/files/8" }, context("/files/{id}#shared", { id: "7" }), undefined],
  ];
  it.each(cases)("%s", (_, difference, given, want) => {
    expect(classify(difference, given)).toBe(want);
  });
});

describe("the comparison is not blind", () => {
  const binding: HttpBinding = {
    kind: "http",
    method: "POST",
    path: "/items/{id}",
    server: "https://api.example.com",
    parameters: [
      { arg: "id", name: "id", in: "path", style: "simple", explode: false, required: true },
      { arg: "tags", name: "tags", in: "query", style: "form", explode: true },
      { arg: "trace", name: "X-Trace", in: "header", style: "simple", explode: false },
      { arg: "session", name: "sid", in: "cookie", style: "form", explode: false },
    ],
    body: { mediaType: "application/json", encoding: "json", fields: { name: "name" } },
  };
  const args = { id: "a b", tags: ["x", "y&z"], trace: "t1", session: "s 1", name: "n" };
  const sluice = (): WireRequest => wireOfSluice(buildHttpRequest(binding, args), binding);

  it("equal requests have no difference; encoding of unreserved characters and the order between names are no difference", () => {
    const a = sluice();
    const b: WireRequest = { ...a, path: a.path.replace("a%20b", "a%20b"), query: [...a.query].reverse().filter(() => true) };
    expect(differences(a, a)).toEqual([]);
    expect(differences(a, { ...b, query: a.query })).toEqual([]);
  });

  const cases: Array<[string, (w: WireRequest) => WireRequest, string]> = [
    ["a raw & that splits a value", (w) => ({ ...w, query: [["tags", "x"], ["tags", "y"], ["z", ""]] }), "query"],
    ["the order of one name's values", (w) => ({ ...w, query: [["tags", "y&z"], ["tags", "x"]] }), "query"],
    ["a path encoded differently", (w) => ({ ...w, path: "/items/a+b" }), "path"],
    ["a header value", (w) => ({ ...w, headers: { ...w.headers, "x-trace": "t2" } }), "header"],
    ["a missing cookie", (w) => ({ ...w, cookies: [] }), "cookie"],
    ["a JSON body member", (w) => ({ ...w, body: { kind: "json", json: { name: "m" } } }), "body"],
  ];
  it.each(cases)("finds %s", (_, change, part) => {
    const a = sluice();
    expect(differences(a, change(a)).map((d) => d.part)).toContain(part);
  });

  it("reads swagger-client's request for the same operation (a spec made here), and it equals sluice's for plain values", async () => {
    const doc = hardCaseSpec();
    const { tools } = loadReferenceSpec(HARD_CASES);
    const tool = tools.find((t) => t.name === "query_form_explode_array")!;
    const values = { v_query_form_explode_array: ["a b", "é"], other: "x" };
    const reference = await referenceRequest(doc, tool.binding as HttpBinding, values);
    expect("error" in reference).toBe(false);
    expect((reference as WireRequest).query).toEqual([
      ["other", "x"],
      ["v_query_form_explode_array", "a b"],
      ["v_query_form_explode_array", "é"],
    ]);
    expect(differences(wireOfSluice(await tool.request(values), tool.binding as HttpBinding), reference as WireRequest)).toEqual([]);
  });
});

const runs: SpecRun[] = [];

describe.each(SPECS.map((s) => [s.label, s] as const))("sluice builds what swagger-client builds: %s", (label, spec) => {
  it(
    "every difference is a known one",
    async () => {
      const { doc, tools } = loadReferenceSpec(label);
      const chosen = LONG || spec.quick === "all" ? tools : sampleTools(tools, spec.quick as number, SEED);
      const run = await runSpec(label, doc, chosen, SEED, DRAWS);
      runs.push(run);
      const unexplained = run.cases.flatMap((c) => c.unexplained.map((d) => `${c.endpoint} ${JSON.stringify(c.args)}: ${d.part}${d.name === undefined ? "" : ` ${d.name}`}: sluice ${d.sluice} | reference ${d.reference}`));
      expect(unexplained.slice(0, 10), `${unexplained.length} unexplained differences`).toEqual([]);
      // A floor on work done: most chosen operations give a case (a tool whose draws both builders refuse gives none).
      expect(run.cases.length, `${run.cases.length} cases of ${chosen.length} operations, ${run.skipped.length} skipped`).toBeGreaterThanOrEqual(Math.ceil((chosen.length * DRAWS) / 2));
      // Most real operations agree outright; a spec where most do not would mean the comparison (or a mapping) broke.
      if (label !== HARD_CASES && label.includes("petstore")) expect(run.cases.every((c) => c.differences.length === 0)).toBe(true);
    },
    // The quick tier's work is bounded by its sample (a count), not by a deadline; the long
    // tier's sweep of a large spec takes minutes, and this is only its hang backstop.
    LONG ? 900_000 : undefined,
  );
});

describe("the serialization cases reach the rows they were made for", () => {
  it("the made-up spec shows differences of several kinds and agreements", async () => {
    // Its own run when the sweep above was filtered out (`-t`), never a silent pass.
    const run = runs.find((r) => r.spec === HARD_CASES) ?? (await (async () => {
      const { doc, tools } = loadReferenceSpec(HARD_CASES);
      return runSpec(HARD_CASES, doc, tools, SEED, DRAWS);
    })());
    expect(run.cases.length).toBeGreaterThanOrEqual(loadReferenceSpec(HARD_CASES).tools.length);
    const seen = new Set(run.cases.flatMap((c) => c.known));
    for (const id of ["label-flat-delimiter", "delimited-object", "allow-reserved-delimiters", "cookie-exploded", "form-nested-brackets", "path-empty"]) expect([...seen]).toContain(id);
    expect(run.cases.filter((c) => c.differences.length === 0).length).toBeGreaterThan(run.cases.length / 2);
  });
});
