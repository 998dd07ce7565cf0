/**
 * What a spec does not say is said once: no server URL (Kubernetes), a relative one, no
 * security at all. `generate` reports each as a coded warning that says how to set what is
 * missing; `serve` says it once on stderr at start; a call with no base URL fails with
 * NO_BASE_URL (never fetch's ERR_INVALID_URL) and sends nothing. Skipped operations are
 * reported once, counted by code, each listed under --verbose. And a bare introspection
 * result (the __schema object, no wrapper) is read as GraphQL.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSchema, introspectionFromSchema } from "graphql";
import { afterAll, describe, expect, it } from "vitest";
import { definePack, isSluiceError, type SluiceError } from "@sluice/core";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";
import { buildPack, detectKind, type PackJob } from "@sluice/pipeline";
import { specSilences } from "../src/serve.ts";
import { runSluice } from "./support/run-in-process.ts";
import { startHttpInProcess } from "../../mcp/test/support.ts";
import { LONG } from "../../../test/support/tier.ts";

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const project = mkdtempSync(join(tmpdir(), "sluice-silences-"));
mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
afterAll(() => rmSync(project, { recursive: true, force: true }));

const ok = { responses: { "200": { description: "ok" } } };
/** Like Kubernetes' swagger.json: no host, no schemes, no security; plus one operation with a dangling $ref. */
const noServer = {
  swagger: "2.0",
  info: { title: "k", version: "1" },
  paths: {
    "/api/v1/namespaces": { get: { operationId: "listNamespaces", ...ok } },
    "/api/v1/pods": { post: { operationId: "createPod", parameters: [{ name: "body", in: "body", schema: { $ref: "#/definitions/Gone" } }], ...ok } },
  },
};
const relative = { openapi: "3.0.3", info: { title: "r", version: "1" }, servers: [{ url: "/api/v3" }], paths: { "/pets": { get: { operationId: "listPets", ...ok } } } };

function write(name: string, document: unknown): string {
  const path = join(project, name);
  writeFileSync(path, JSON.stringify(document));
  return path;
}

function job(spec: string, name: string, extra: Partial<PackJob> = {}): PackJob {
  return { spec, out: join(project, "packs", name), name, regenerate: `sluice generate ${name}`, ...extra };
}

const codes = (warnings: readonly string[]) => warnings.map((warning) => warning.split(":")[0]);

describe("a request schema that requires a member it does not declare", () => {
  // Open, as a webhook body requiring team_id that its properties never list; closed, as a screen
  // scheme requiring defaultScreen where it declares default and forbids any other member.
  const hook = { type: "object", properties: { endpoint: { type: "string" }, passcode: { type: "string" } }, required: ["endpoint", "team_id"] };
  const screens = { type: "object", additionalProperties: false, properties: { default: { type: "integer" }, edit: { type: "integer" } }, required: ["defaultScreen"] };
  const spec = {
    openapi: "3.0.3",
    info: { title: "hooks", version: "1" },
    servers: [{ url: "https://hooks.example.com" }],
    components: {
      securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } },
      schemas: { Hook: hook, Screens: screens, Tagged: { allOf: [{ $ref: "#/components/schemas/Hook" }, { type: "object", properties: { tag: { type: "string" } }, required: ["endpoint"] }] } },
    },
    security: [{ key: [] }],
    paths: {
      "/webhooks": {
        post: { operationId: "createWebhook", requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Hook" } } } }, ...ok },
        put: { operationId: "replaceWebhook", requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Hook" } } } }, ...ok },
      },
      "/tagged": { post: { operationId: "createTagged", requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Tagged" } } } }, ...ok } },
      "/schemes": { post: { operationId: "createScheme", requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: { name: { type: "string" }, screens: { $ref: "#/components/schemas/Screens" } }, required: ["name", "screens"] } } } }, ...ok } },
    },
  };

  it("is said once at generate; an open object offers the member as required, a closed one drops the requirement", async () => {
    const { report, ir } = await buildPack(job(write("hooks.json", spec), "hooks"), "0.0.0");
    // Two operations share Hook: one line for the pack, naming each schema once.
    expect(report.warnings).toEqual([
      "SPEC_REPAIRED: request schemas require members they do not declare: offered as required arguments of any type, so that the call the API demands can be made (PUT /webhooks team_id at /components/schemas/Hook); not required where the object forbids undeclared members (additionalProperties: false), so that it can be sent at all (POST /schemes defaultScreen at /components/schemas/Screens); declare them in the spec copy (or drop the requirement) and regenerate",
    ]);
    const create = ir.tools.find((tool) => tool.name === "create_webhook")!;
    expect(create.parameters.required).toEqual(["endpoint", "team_id"]);
    expect(create.parameters.properties["team_id"]).toEqual({ description: "Required by the API; the spec does not declare this member, so its type is not known." });
    const pack = definePack({ name: "hooks", defs: ir.defs, tools: ir.tools });
    const refused = await pack.tool("create_webhook").request({ endpoint: "https://me.example.com" }).then(() => undefined, (error: unknown) => error as SluiceError);
    expect(refused?.code).toBe("INVALID_ARGUMENTS");
    const sent = await pack.tool("create_webhook").request({ endpoint: "https://me.example.com", team_id: "123" });
    expect(JSON.parse(String(sent.body))).toEqual({ endpoint: "https://me.example.com", team_id: "123" });
    // The closed object: callable with what it declares (before, no value could satisfy it).
    const scheme = await pack.tool("create_scheme").request({ name: "s", screens: { default: 1 } });
    expect(JSON.parse(String(scheme.body))).toEqual({ name: "s", screens: { default: 1 } });
    expect(ir.defs["Screens"]).not.toHaveProperty("required");
    // In an allOf whose other part declares the member (endpoint, declared by Hook), nothing is added.
    const tagged = ir.tools.find((tool) => tool.name === "create_tagged")!;
    expect(JSON.stringify([tagged.parameters, ir.defs])).not.toContain('"endpoint":{"description"');
  });
});

describe("generate says what the spec leaves unsaid, once, coded", () => {
  it("no server URL and no security: NO_SERVER_URL and NO_SECURITY, each saying how to set it; the broken operation is one coded skip", async () => {
    const { report } = await buildPack(job(write("k.json", noServer), "k"), "0.0.0");
    expect(codes(report.warnings)).toEqual(["NO_SERVER_URL", "NO_SECURITY"]);
    expect(report.warnings[0]).toMatch(/baseUrl: "https:\/\/\.\.\." in this pack's sluice\.config entry/);
    expect(report.warnings[0]).toMatch(/--base-url URL \/ SLUICE_BASE_URL/);
    expect(report.tools).toBe(1);
    expect(report.skipped).toEqual([
      { operation: "POST /api/v1/pods", code: "UNRESOLVED_REF", pointer: "/definitions/Gone", reason: "UNRESOLVED_REF: $ref #/definitions/Gone points to nothing: /definitions/Gone does not exist." },
    ]);
  });

  it("a relative server URL: RELATIVE_SERVER_URL naming it; a config baseUrl silences it", async () => {
    const spec = write("r.json", relative);
    const { report } = await buildPack(job(spec, "r"), "0.0.0");
    expect(codes(report.warnings)).toEqual(["RELATIVE_SERVER_URL", "NO_SECURITY"]);
    expect(report.warnings[0]).toContain('"/api/v3" is relative');
    const configured = await buildPack(job(spec, "r", { baseUrl: "https://pets.example.com/api/v3" }), "0.0.0");
    expect(codes(configured.report.warnings)).toEqual(["NO_SECURITY"]);
  });

  it("a spec with a server and security has no such warning", async () => {
    const secured = { ...relative, servers: [{ url: "https://pets.example.com" }], components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } } }, security: [{ key: [] }] };
    const { report } = await buildPack(job(write("s.json", secured), "s"), "0.0.0");
    expect(report.warnings).toEqual([]);
  });

  it("the CLI prints skips once by code (--verbose: each with its pointer), and still fails when no operation survives", async () => {
    // generate writes fresh pack folders the worker never loaded: runSluice runs main in the worker
    // (support/run-in-process.ts), which prints what the bin would; `serve packs/k2` below is the child.
    const spec = write("k2.json", noServer);
    const plain = await runSluice(["generate", spec, "--name", "k2", "--out", "packs/k2"], { cwd: project, timeout: 60_000 });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("  skipped 1 operation (UNRESOLVED_REF 1); --verbose lists them\n");
    expect(plain.stdout).toMatch(/^ {2}warning: NO_SERVER_URL: /m);
    expect(plain.stdout).not.toContain("POST /api/v1/pods");
    const verbose = await runSluice(["generate", spec, "--name", "k2", "--out", "packs/k2v", "--verbose"], { cwd: project, timeout: 60_000 });
    expect(verbose.stdout).toContain("  skipped 1 operation (UNRESOLVED_REF 1):\n    POST /api/v1/pods at /definitions/Gone: UNRESOLVED_REF: $ref #/definitions/Gone points to nothing");
    const broken = { ...noServer, paths: { "/api/v1/pods": noServer.paths["/api/v1/pods"] } };
    const none = await runSluice(["generate", write("k3.json", broken), "--name", "k3", "--out", "packs/k3"], { cwd: project, timeout: 60_000 });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^sluice: UNRESOLVED_REF: /);
  });
});

describe("a call with no base URL", () => {
  const [tool] = definePack(buildOpenAPIPackIR(noServer, { name: "k", file: "k.json", sha256: "0".repeat(64) })).tools;

  it("fails with NO_BASE_URL saying how to set one, and fetch is never asked", async () => {
    let fetched = 0;
    const fetch = (async () => {
      fetched++;
      return new Response("{}");
    }) as typeof globalThis.fetch;
    const error = await tool!.call({}, { fetch }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isSluiceError(error)).toBe(true);
    expect((error as SluiceError).code).toBe("NO_BASE_URL");
    expect((error as SluiceError).message).toMatch(/ctx\.baseUrl on a call, or sluice serve --base-url URL \(or SLUICE_BASE_URL\)/);
    expect(fetched).toBe(0);
    // Given one, the same call goes out.
    await tool!.call({}, { fetch, baseUrl: "https://k8s.example" });
    expect(fetched).toBe(1);
  });
});

describe("serve says it once at start", () => {
  it("specSilences: one line per API for each silence; a plain --base-url covers the missing server", () => {
    const tools = definePack(buildOpenAPIPackIR(noServer, { name: "k", file: "k.json", sha256: "0".repeat(64) })).tools;
    expect(specSilences(tools, undefined)).toEqual([
      "tools: the spec names no server URL for all 1 tools; their calls answer NO_BASE_URL until one is set (--base-url URL or SLUICE_BASE_URL; or baseUrl in sluice.config, then regenerate)",
      "tools: the spec declares no security; calls go out without a credential",
    ]);
    expect(specSilences(tools, "https://k8s.example")).toEqual(["tools: the spec declares no security; calls go out without a credential"]);
    expect(specSilences(tools, { "k8s.example": "http://127.0.0.1:1" })).toHaveLength(2);
  });

  it("sluice serve of a generated pack prints them on stderr before it is ready", async () => {
    // The pack the CLI test above generated (vitest runs a file's tests in order). The long
    // tier starts a stdio child; the quick tier runs the same serve by main in the worker over
    // HTTP (packages/mcp/test/support.ts startHttpInProcess), ready once it says where it listens.
    if (!LONG) {
      const served = await startHttpInProcess(["packs/k2", "--include-full"], { SLUICE_BASE_URL: undefined, SLUICE_MCP_TOKEN: undefined, SLUICE_USAGE: "off" }, project);
      expect(await served.stop()).toBe(0);
      const lines = served.stderr().split("\n");
      const listening = lines.findIndex((line) => line.startsWith("sluice serve: listening on http://127.0.0.1:"));
      expect(listening).toBeGreaterThan(0);
      expect(lines.slice(0, listening).filter((line) => line.includes("NO_BASE_URL"))).toEqual([
        "sluice serve: k2: the spec names no server URL for all 1 tools; their calls answer NO_BASE_URL until one is set (--base-url URL or SLUICE_BASE_URL; or baseUrl in sluice.config, then regenerate)",
      ]);
      expect(lines.slice(0, listening)).toContain("sluice serve: k2: the spec declares no security; calls go out without a credential");
      return;
    }
    const stderr = await new Promise<string>((resolve, reject) => {
      // stdin is /dev/null: the server starts, says what it says, and stops at once. --include-full loads the pack
      // at start (served from its stored list, serve says these when the pack loads, at the first call).
      const child = spawn(process.execPath, [BIN, "serve", "packs/k2", "--include-full"], { cwd: project, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
      let text = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      child.on("error", reject);
      child.on("close", () => resolve(text));
    });
    const lines = stderr.split("\n");
    const ready = lines.findIndex((line) => line === "sluice serve: ready on stdio");
    expect(ready).toBeGreaterThan(0);
    expect(lines.slice(0, ready).filter((line) => line.includes("NO_BASE_URL"))).toEqual([
      "sluice serve: k2: the spec names no server URL for all 1 tools; their calls answer NO_BASE_URL until one is set (--base-url URL or SLUICE_BASE_URL; or baseUrl in sluice.config, then regenerate)",
    ]);
    expect(lines.slice(0, ready)).toContain("sluice serve: k2: the spec declares no security; calls go out without a credential");
  });
});

describe("a bare introspection result", () => {
  const introspection = introspectionFromSchema(buildSchema("type Query { hello(name: String!): String }"));

  it.each<[string, unknown]>([
    ["{ data: { __schema } }", { data: introspection }],
    ["{ __schema }", introspection],
    ["the __schema object alone", introspection.__schema],
  ])("%s is GraphQL, and generates", async (_, document) => {
    const text = JSON.stringify(document);
    expect(detectKind(Buffer.from(text), "schema.json")).toBe("graphql");
    const { report } = await buildPack(job(write(`g${text.length}.json`, document), `g${text.length}`), "0.0.0");
    expect(report.tools).toBe(1);
  });

  it("an OpenAPI document that mentions queryType is still OpenAPI", () => {
    expect(detectKind(Buffer.from(JSON.stringify({ ...relative, "x-note": { queryType: {}, types: "no" } })), "spec.json")).toBe("openapi");
  });
});
