/**
 * The JSON-Schema-Test-Suite (test/fixtures/json-schema-test-suite/, required files) as an
 * oracle for what a tool accepts: every case's schema is made the argument `v` of a tool
 * along one of the paths a schema reaches sluice by, every instance is checked (`check()`:
 * screening and validation, the call path), and the verdict is compared with the suite's
 * `valid`.
 *
 * Paths:
 * - `direct`: a tool built with Tool.create from a draft 2020-12 schema (its root
 *   definitions hoisted to the tool's `$defs`, the only translation the Tool model needs);
 * - `openapi-3.1`: the 2020-12 schema as a component of an OpenAPI 3.1 document, the
 *   request body `{ v: <schema> }` of one operation, generated;
 * - `openapi-3.0` and `swagger-2.0`: the same with a draft-04 schema (OpenAPI 3.0 and
 *   Swagger 2.0 Schema Objects are an extended subset of draft 4);
 * - `mcp`: the 2020-12 schema as the argument `v` of an MCP server's tool (its definitions
 *   in the input schema's `$defs`), snapshotted and generated as `sluice generate` does
 *   (test/mcp-json-schema-suite.test.ts).
 *
 * A schema sluice refuses (a coded error from generate or from the first check) refuses
 * every instance; a case is then "refused" like any other.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { definePack, isSluiceError, type JsonSchemaObject, Tool, type PackIR } from "@sluice/core";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";
import { makeSnapshot } from "@sluice/mcp-client";
import { buildMcpPackIR } from "../../generators/mcp/src/build-pack-ir.ts";
import { screenArguments } from "../../packages/core/src/call/screen-arguments.ts";
import { validateArguments } from "../../packages/core/src/call/validate-arguments.ts";

export type SuitePath = "direct" | "openapi-3.1" | "openapi-3.0" | "swagger-2.0" | "mcp";
export const PATHS_OF_DRAFT: Readonly<Record<string, readonly SuitePath[]>> = {
  "draft2020-12": ["direct", "openapi-3.1"],
  draft4: ["openapi-3.0", "swagger-2.0"],
};

export interface SuiteTest {
  description: string;
  data: unknown;
  valid: boolean;
}
export interface SuiteGroup {
  draft: string;
  file: string;
  description: string;
  schema: unknown;
  tests: SuiteTest[];
}

/** Every group of every JSON file of one draft's folder, in file order. */
export function loadGroups(root: string, draft: string): SuiteGroup[] {
  const dir = join(root, draft);
  const groups: SuiteGroup[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".json")).sort()) {
    for (const group of JSON.parse(readFileSync(join(dir, file), "utf8")) as Array<Omit<SuiteGroup, "draft" | "file">>) {
      groups.push({ draft, file, description: group.description, schema: group.schema, tests: group.tests });
    }
  }
  return groups;
}

export type Outcome = "agree" | "accept-invalid" | "refuse-valid";

export interface CaseResult {
  path: SuitePath;
  file: string;
  group: string;
  test: string;
  valid: boolean;
  accepted: boolean;
  outcome: Outcome;
  /**
   * Why a refused case was refused, for matching it to a deviation: `screen:<code>` when
   * screening alone refuses it, else `validate:<keyword>` when the validator (Ajv) alone
   * does, else `error:<CODE>` for a schema refused with a coded error; "" when accepted.
   */
  cause: string;
}

/** The tool a path makes of a group's schema, or the coded error sluice refused it with. */
export function toolFor(path: SuitePath, schema: unknown): { tool: Tool } | { refused: string } {
  try {
    return path === "direct" ? { tool: directTool(schema) } : path === "mcp" ? mcpTool(schema) : generatedTool(path, schema);
  } catch (error) {
    if (isSluiceError(error)) return { refused: error.code };
    throw error;
  }
}

/** Runs every test of a group along a path. */
export function runGroup(path: SuitePath, group: SuiteGroup): CaseResult[] {
  const made = toolFor(path, group.schema);
  return group.tests.map((test) => {
    let accepted = false;
    let cause = "";
    if ("refused" in made) cause = `error:${made.refused}`;
    else {
      try {
        accepted = made.tool.check({ v: test.data }).length === 0;
        if (!accepted) cause = causeOf(made.tool, { v: test.data });
      } catch (error) {
        if (!isSluiceError(error)) throw error;
        cause = `error:${error.code}`;
      }
    }
    const outcome: Outcome = accepted === test.valid ? "agree" : accepted ? "accept-invalid" : "refuse-valid";
    return { path, file: group.file, group: group.description, test: test.description, valid: test.valid, accepted, outcome, cause };
  });
}

/** Which half of check() refuses `args`: screening (the egress walk) first, as check() runs them, then the validator on the arguments as sent. */
function causeOf(tool: Tool, args: Record<string, unknown>): string {
  const screened = screenArguments(tool.inputSchema, args, { withheld: new Map(), pins: {}, origins: new Map(), maxBytes: Number.MAX_SAFE_INTEGER });
  const codes = (list: readonly { code: string }[], prefix: string) => [...new Set(list.map((issue) => `${prefix}:${issue.code}`))].sort().join(",");
  if (screened.issues.length > 0) return codes(screened.issues, "screen");
  const invalid = validateArguments(tool.inputSchema, args);
  return invalid.length > 0 ? codes(invalid, "validate") : "other";
}

const BINDING = { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } as const;

/**
 * Refs the harness translates: `#` (the schema itself), `#/$defs/Name`, `#/definitions/Name`,
 * and JSON pointers into the schema (`#/properties/foo`), kept as pointers below the hoisted
 * body. Anything else (remote documents, `$id`-relative refs, anchors) is left as written:
 * sluice must refuse it or get it right.
 */
function rewriteRefs(node: unknown, defsKeyword: string, defNames: ReadonlySet<string>, suitePointer: string, defPointer: (name: string) => string): void {
  if (Array.isArray(node)) return node.forEach((child) => rewriteRefs(child, defsKeyword, defNames, suitePointer, defPointer));
  if (typeof node !== "object" || node === null) return;
  const record = node as Record<string, unknown>;
  const ref = record.$ref;
  if (typeof ref === "string" && ref.startsWith("#")) {
    const segments = ref === "#" ? [] : ref.slice(1).split("/").slice(1);
    if (ref === "#" || ref === "#/") record.$ref = suitePointer;
    else if (ref.startsWith("#/") && (segments[0] === "$defs" || segments[0] === "definitions") && segments[1] !== undefined && defNames.has(decode(segments[1]))) {
      record.$ref = defPointer(decode(segments[1])) + segments.slice(2).map((s) => `/${s}`).join("");
    } else if (ref.startsWith("#/")) record.$ref = suitePointer + ref.slice(1);
  }
  for (const [key, value] of Object.entries(record)) {
    if (key === "enum" || key === "const") continue;
    rewriteRefs(value, defsKeyword, defNames, suitePointer, defPointer);
  }
}

const decode = (segment: string): string => decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~");

/** Splits a suite schema into its root definitions and its body, refs rewritten for where they will live. */
function hoist(schema: unknown, suitePointer: string, defPointer: (name: string) => string, suiteName: (defs: Record<string, unknown>) => string): { defs: Record<string, unknown>; body: unknown; name: string } {
  if (typeof schema === "boolean") return { defs: {}, body: schema, name: "Suite" };
  const body = structuredClone(schema) as Record<string, unknown>;
  delete body.$schema;
  const defs: Record<string, unknown> = {};
  for (const keyword of ["$defs", "definitions"]) {
    const group = body[keyword];
    if (typeof group === "object" && group !== null && !Array.isArray(group)) {
      Object.assign(defs, group);
      delete body[keyword];
    }
  }
  const name = suiteName(defs);
  const names = new Set(Object.keys(defs));
  const pointer = suitePointer.replace("{name}", name);
  rewriteRefs(body, "$defs", names, pointer, defPointer);
  for (const def of Object.values(defs)) rewriteRefs(def, "$defs", names, pointer, defPointer);
  return { defs, body, name };
}

const suiteNameFor = (defs: Record<string, unknown>) => (Object.hasOwn(defs, "Suite") ? "Suite_" : "Suite");
/** A definition name as a JSON-pointer segment inside a URI fragment (`percent%field` -> `percent%25field`). */
const escape = (name: string) => encodeURIComponent(name.replace(/~/g, "~0").replace(/\//g, "~1"));

function directTool(schema: unknown): Tool {
  const { defs, body, name } = hoist(schema, "#/$defs/{name}", (def) => `#/$defs/${escape(def)}`, suiteNameFor);
  const inputSchema: JsonSchemaObject = { type: "object", properties: { v: { $ref: `#/$defs/${name}` } }, required: ["v"], $defs: { ...defs, [name]: body } };
  return Tool.create({ name: "suite", description: "suite", inputSchema, binding: BINDING });
}

/** The tool generated from an MCP snapshot whose one tool takes `{ v: <schema> }` (v required), or the code it was skipped or refused with. */
function mcpTool(schema: unknown): { tool: Tool } | { refused: string } {
  const { defs, body, name } = hoist(schema, "#/$defs/{name}", (def) => `#/$defs/${escape(def)}`, suiteNameFor);
  const inputSchema = { type: "object", properties: { v: { $ref: `#/$defs/${name}` } }, required: ["v"], $defs: { ...defs, [name]: body } };
  const snapshot = makeSnapshot({ name: "suite", version: "1" }, "2025-06-18", [{ name: "suite", inputSchema }]);
  const ir = buildMcpPackIR(snapshot, { name: "suite", file: "tools.snapshot.json", sha256: "0".repeat(64) });
  const tool = definePack(ir).tools.find((t) => t.name === "suite");
  if (tool !== undefined) return { tool: tool as unknown as Tool };
  const code = /^([A-Z_]+):/.exec(ir.skipped[0]?.reason ?? "")?.[1];
  if (code === undefined) throw new Error(`no tool generated and no coded reason: ${JSON.stringify(ir.skipped)}`);
  return { refused: code };
}

/** An OpenAPI document with one operation whose JSON body is `{ v: <schema> }` (v required). */
export function suiteDocument(path: Exclude<SuitePath, "direct" | "mcp">, schema: unknown): unknown {
  const where = path === "swagger-2.0" ? "#/definitions/" : "#/components/schemas/";
  const { defs, body, name } = hoist(schema, `${where}{name}`, (def) => `${where}${escape(def)}`, suiteNameFor);
  const components = { ...defs, [name]: body };
  const bodySchema = { type: "object", properties: { v: { $ref: `${where}${name}` } }, required: ["v"] };
  if (path === "swagger-2.0") {
    return {
      swagger: "2.0",
      info: { title: "suite", version: "1" },
      host: "127.0.0.1",
      consumes: ["application/json"],
      paths: { "/suite": { post: { operationId: "suite", parameters: [{ in: "body", name: "body", required: true, schema: bodySchema }], responses: { "200": { description: "ok" } } } } },
      definitions: components,
    };
  }
  return {
    openapi: path === "openapi-3.1" ? "3.1.0" : "3.0.3",
    info: { title: "suite", version: "1" },
    servers: [{ url: "http://127.0.0.1" }],
    paths: { "/suite": { post: { operationId: "suite", requestBody: { required: true, content: { "application/json": { schema: bodySchema } } }, responses: { "200": { description: "ok" } } } } },
    components: { schemas: components },
  };
}

/** The generated IR of a group's document (for tests that look at what the generator reported). */
export function suiteIR(path: Exclude<SuitePath, "direct" | "mcp">, schema: unknown): PackIR {
  return buildOpenAPIPackIR(suiteDocument(path, schema), { name: "suite", file: "suite.json", sha256: "0".repeat(64) });
}

/** The generated tool, or the code of the reason the generator skipped the operation (`EXTERNAL_REF: ...`). */
function generatedTool(path: Exclude<SuitePath, "direct" | "mcp">, schema: unknown): { tool: Tool } | { refused: string } {
  const ir = suiteIR(path, schema);
  const tool = definePack(ir).tools.find((t) => t.name === "suite");
  if (tool !== undefined) return { tool: tool as unknown as Tool };
  const code = /^([A-Z_]+):/.exec(ir.skipped[0]?.reason ?? "")?.[1];
  if (code === undefined) throw new Error(`no tool generated and no coded reason: ${JSON.stringify(ir.skipped)}`);
  return { refused: code };
}
