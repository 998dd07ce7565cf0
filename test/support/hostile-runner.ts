/**
 * Drives one hostile input through every public operation, in its own process:
 *   node --import tsx test/support/hostile-runner.ts <case> [step,...]
 * A step that hangs or exhausts memory cannot be interrupted inside a test worker, so
 * test/hostile-inputs.test.ts runs this script as a child with a deadline per step. Each
 * step prints one JSON line as it ends (what it returned, or the error's name and code),
 * and the last line gives the process's peak resident memory.
 */
import { pathToFileURL } from "node:url";
import { definePack, egressMap, formatEgressMap, isSluiceError, type PackIR, type Tool } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { check, fit, profile } from "@sluice/catalog";
import { buildGraphQLPackIR, loadGraphQLSchema } from "@sluice/generator-graphql";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";

/** How deep the hostile chains and the hostile arguments nest. */
export const LEVELS = 20_000;
/** How many values the hostile enums have. */
export const ENUM_VALUES = 1_000_000;

export interface HostileCase {
  /** What the input is, for the report. */
  describe: string;
  build(): PackIR;
  /** The tool every step works on. */
  tool: string;
  /** A path selector several levels down, and a type selector. */
  deepSelector: string;
  typeSelector: string;
  /** Arguments nested LEVELS deep (screening must refuse them, not overflow). */
  deepArgs(): Record<string, unknown>;
  /** Small arguments a call should accept. */
  validArgs: Record<string, unknown>;
  /** What the stub API answers. */
  answer: unknown;
}

const SOURCE = { name: "hostile", file: "hostile.spec", sha256: "0".repeat(64) };

/** `{ key: { key: ... { ...leaf } } }`, `levels` deep, built without recursion. */
export function nested(key: string, levels: number, leaf: Record<string, unknown>): Record<string, unknown> {
  let value: Record<string, unknown> = { ...leaf };
  for (let i = 0; i < levels; i++) value = { [key]: value };
  return value;
}

function oas30(schemas: Record<string, unknown>, bodySchema: unknown): Record<string, unknown> {
  return {
    openapi: "3.0.3",
    info: { title: "hostile", version: "1" },
    servers: [{ url: "http://127.0.0.1:9/api" }],
    paths: {
      "/things": {
        post: {
          operationId: "make",
          requestBody: { required: true, content: { "application/json": { schema: bodySchema } } },
          responses: { "200": { description: "ok" } },
        },
      },
    },
    components: { schemas },
  };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function enumValues(prefix: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < ENUM_VALUES; i++) values.push(`${prefix}${i}`);
  return values;
}

export const CASES: Readonly<Record<string, HostileCase>> = {
  "graphql-input-chain": {
    describe: `GraphQL SDL: input types Input0 { next: Input1 } ... ${LEVELS} levels, used as an argument`,
    build() {
      const lines = ["type Query { find(filter: Input0): String }"];
      for (let i = 0; i < LEVELS; i++) lines.push(i + 1 < LEVELS ? `input Input${i} { next: Input${i + 1} v: String }` : `input Input${i} { v: String }`);
      return buildGraphQLPackIR(loadGraphQLSchema(lines.join("\n"), { fileName: "chain.graphql" }), SOURCE);
    },
    tool: "find",
    deepSelector: "filter.next.next.next.v",
    typeSelector: `Input${LEVELS / 2}.v`,
    deepArgs: () => ({ filter: nested("next", LEVELS, { v: "x" }) }),
    validArgs: { filter: { v: "a", next: { v: "b", next: { v: "c" } } } },
    answer: { data: { find: "found" } },
  },
  "graphql-enum-1m": {
    describe: `GraphQL SDL: an enum of ${ENUM_VALUES.toLocaleString("en")} values, and an input holding it`,
    build() {
      const sdl = [
        "type Query { find(e: Big, holder: Holder): String }",
        "input Holder { e: Big, label: String, inner: Holder }",
        `enum Big { ${enumValues("V").join(" ")} }`,
      ].join("\n");
      return buildGraphQLPackIR(loadGraphQLSchema(sdl, { fileName: "enum.graphql" }), SOURCE);
    },
    tool: "find",
    deepSelector: "holder.inner.label",
    typeSelector: "Holder.label",
    deepArgs: () => ({ e: "V999999", holder: nested("inner", LEVELS, { e: "V0" }) }),
    validArgs: { e: "V999999", holder: { e: "V1", inner: { label: "x" } } },
    answer: { data: { find: "found" } },
  },
  "openapi-ref-chain": {
    describe: `OpenAPI 3.0: request body a property chain through ${LEVELS} $ref'ed component schemas`,
    build() {
      const schemas: Record<string, unknown> = {};
      for (let i = 0; i < LEVELS; i++) {
        schemas[`S${i}`] = { type: "object", properties: i + 1 < LEVELS ? { next: ref(`S${i + 1}`), v: { type: "string" } } : { v: { type: "string" } } };
      }
      return buildOpenAPIPackIR(oas30(schemas, ref("S0")), SOURCE);
    },
    tool: "make",
    deepSelector: "next.next.next.v",
    typeSelector: `S${LEVELS / 2}.v`,
    deepArgs: () => nested("next", LEVELS, { v: "x" }),
    validArgs: { v: "a", next: { v: "b", next: { v: "c" } } },
    answer: {},
  },
  "openapi-enum-1m": {
    describe: `OpenAPI 3.0: a component enum of ${ENUM_VALUES.toLocaleString("en")} string values, used in the body twice`,
    build() {
      return buildOpenAPIPackIR(
        oas30(
          {
            Big: { type: "string", enum: enumValues("v") },
            Holder: { type: "object", properties: { e: ref("Big"), label: { type: "string" }, inner: ref("Holder") } },
          },
          { type: "object", properties: { e: ref("Big"), holder: ref("Holder") } },
        ),
        SOURCE,
      );
    },
    tool: "make",
    deepSelector: "holder.inner.label",
    typeSelector: "Holder.label",
    deepArgs: () => ({ e: "v999999", holder: nested("inner", LEVELS, { e: "v0" }) }),
    validArgs: { e: "v999999", holder: { e: "v1", inner: { label: "x" } } },
    answer: {},
  },
  "openapi-circular-allof": {
    describe: "OpenAPI 3.0: circular allOf (A allOf [B, {a, child: A}], B allOf [A, {b}])",
    build() {
      return buildOpenAPIPackIR(
        oas30(
          {
            A: { allOf: [ref("B"), { type: "object", properties: { a: { type: "string" }, child: ref("A") } }] },
            B: { allOf: [ref("A"), { type: "object", properties: { b: { type: "string" } } }] },
          },
          ref("A"),
        ),
        SOURCE,
      );
    },
    tool: "make",
    deepSelector: "body.child.a",
    typeSelector: "A.a",
    deepArgs: () => ({ body: nested("child", LEVELS, { a: "x" }) }),
    validArgs: { body: { a: "x", b: "y" } },
    answer: {},
  },
  "openapi-recursive-unions": {
    describe: "OpenAPI 3.0: mutually recursive unions (A oneOf [B, {a, child: A}], B anyOf [A, {b}])",
    build() {
      return buildOpenAPIPackIR(
        oas30(
          {
            A: { oneOf: [ref("B"), { type: "object", properties: { a: { type: "string" }, child: ref("A") }, required: ["a"] }] },
            B: { anyOf: [ref("A"), { type: "object", properties: { b: { type: "string" } }, required: ["b"] }] },
          },
          { type: "object", properties: { u: ref("A") } },
        ),
        SOURCE,
      );
    },
    tool: "make",
    deepSelector: "u.child.a",
    typeSelector: "A.a",
    deepArgs: () => ({ u: nested("child", LEVELS, { a: "x" }) }),
    validArgs: { u: { b: "y" } },
    answer: {},
  },
  "openapi-root-ref": {
    describe: 'OpenAPI 3.0: a body property whose schema is { $ref: "#" } (the whole document)',
    build() {
      return buildOpenAPIPackIR(oas30({}, { type: "object", properties: { self: { $ref: "#" } } }), SOURCE);
    },
    tool: "make",
    deepSelector: "self",
    typeSelector: "self",
    deepArgs: () => ({ self: nested("x", LEVELS, {}) }),
    validArgs: {},
    answer: {},
  },
};

/** Every step, in the order they run. `generate` must succeed for the others to run. */
export const STEPS = [
  "generate",
  "derived-path",
  "derived-type",
  "paths",
  "tokens",
  "egress",
  "check-deep",
  "check-valid",
  "call-deep",
  "call-valid",
  "profile-check",
  "profile-fit",
] as const;
export type Step = (typeof STEPS)[number];

export interface StepReport {
  step: Step;
  outcome: "ok" | "error";
  /** A SluiceError's code; absent for a result and for an uncoded error. */
  code?: string;
  /** The error's class name (`SluiceError`, `RangeError`, ...). */
  name?: string;
  message?: string;
  /** What a successful step produced, in brief. */
  result?: string;
  ms: number;
  rssMb: number;
}

const stubFetch = (answer: unknown) => async () =>
  new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });

async function runStep(step: Step, hostile: HostileCase, state: { tool?: Tool<object> }): Promise<string> {
  if (step === "generate") {
    const ir = hostile.build();
    const pack = definePack({ name: ir.name, defs: ir.defs, ...(ir.withheldMembers ? { withheldMembers: ir.withheldMembers } : {}), tools: ir.tools, runtime: { endpoint: "http://127.0.0.1:9/graphql" } });
    state.tool = pack.tool(hostile.tool);
    return `${ir.tools.length} tool(s), ${Object.keys(ir.defs).length} defs, ${Object.keys(state.tool.inputSchema.$defs ?? {}).length} reached by ${hostile.tool}`;
  }
  const tool = state.tool;
  if (tool === undefined) throw new Error("no tool: generation failed");
  const ctx = { fetch: stubFetch(hostile.answer) as unknown as typeof fetch, baseUrl: "http://127.0.0.1:9" };
  switch (step) {
    case "derived-path":
      return `${Object.keys(tool.derived({ name: "narrowed", drop: [hostile.deepSelector] }).inputSchema.$defs ?? {}).length} defs after dropping ${hostile.deepSelector}`;
    case "derived-type":
      return `${Object.keys(tool.derived({ name: "narrowed", drop: [hostile.typeSelector] }).inputSchema.$defs ?? {}).length} defs after dropping ${hostile.typeSelector}`;
    case "paths": {
      const paths = await tool.paths({ byCost: true, depth: 2 });
      return paths.map((p) => `${p.path}=${p.tokens}`).join(" ");
    }
    case "tokens":
      return `${schemaTokens(tool)} tokens`;
    case "egress":
      return `${formatEgressMap(egressMap([tool])).length} characters of egress map`;
    case "check-deep":
    case "check-valid": {
      const issues = tool.check(step === "check-deep" ? hostile.deepArgs() : hostile.validArgs);
      return issues.length === 0 ? "no issues" : issues.slice(0, 3).map((i) => `${i.code} at ${i.path.slice(0, 40)}`).join("; ");
    }
    case "call-deep":
    case "call-valid":
      return JSON.stringify(await tool.call(step === "call-deep" ? hostile.deepArgs() : hostile.validArgs, ctx)).slice(0, 80);
    case "profile-check":
      return check([tool], profile("gemini")).map((f) => f.code).join(" ") || "no findings";
    case "profile-fit": {
      const result = fit([tool], profile("gemini"), { allowLossy: true });
      return `${result.changes.map((c) => c.action).join(" ")}; ${result.remaining.length} remaining`;
    }
  }
  throw new Error(`unknown step ${String(step)}`);
}

async function main(): Promise<void> {
  const [name, only] = process.argv.slice(2);
  const hostile = name === undefined ? undefined : CASES[name];
  if (hostile === undefined) throw new Error(`usage: hostile-runner.ts <${Object.keys(CASES).join("|")}> [step,...]`);
  const wanted = new Set(only === undefined ? STEPS : only.split(","));
  const state: { tool?: Tool<object> } = {};
  const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));
  process.stdout.write(JSON.stringify({ start: true, rssMb: mb(process.memoryUsage().rss) }) + "\n");
  for (const step of STEPS) {
    if (step !== "generate" && !wanted.has(step)) continue;
    const started = performance.now();
    let report: StepReport;
    try {
      const result = await runStep(step, hostile, state);
      report = { step, outcome: "ok", result: result.slice(0, 300), ms: 0, rssMb: 0 };
    } catch (error) {
      const e = error as { name?: unknown; message?: unknown };
      report = {
        step,
        outcome: "error",
        ...(isSluiceError(error) ? { code: error.code } : {}),
        name: typeof e?.name === "string" ? e.name : typeof error,
        message: String(e?.message ?? error).split("\n")[0]!.slice(0, 300),
        ms: 0,
        rssMb: 0,
      };
    }
    report.ms = Math.round(performance.now() - started);
    report.rssMb = mb(process.memoryUsage().rss);
    process.stdout.write(JSON.stringify(report) + "\n");
    if (step === "generate" && report.outcome === "error") break;
  }
  // maxRSS is in kilobytes.
  process.stdout.write(JSON.stringify({ end: true, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }) + "\n");
}

// Run only as a script; the test imports the case list from here.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(String((error as Error)?.stack ?? error) + "\n");
      process.exit(1);
    },
  );
}
