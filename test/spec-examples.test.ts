/**
 * The specs' own request examples as an oracle (issue 22, item 1; test/support/spec-examples.ts):
 * every request example of a spec that the reference (Ajv on the spec's own schema, read as
 * OpenAPI means it) accepts must be accepted by the generated tool, and the request it builds
 * must carry exactly the example. Examples the reference refuses are spec faults, listed and
 * never counted. Also: every generated tool takes a minimal valid call (required members only,
 * values built from its own schema), and no tool both offers and withholds one argument.
 *
 * Quick tier (test/support/tier.ts): the hand-written shapes and a fixed sample of specs. The
 * long tier (`pnpm test:long`) runs every OpenAPI spec of ../shared/specs and test/fixtures/outside.
 * PagerDuty's spec has no licence and is not vendored: its shapes are reproduced below, and
 * scripts/bench-examples.ts measures the real one when a local mirror is present.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { definePack, type Tool } from "@sluice/core";
import { buildOpenAPIPackIR, loadDocument } from "../generators/openapi/src/index.ts";
import { collectRequestExamples, CORPUS_OPENAPI, minimalArguments, OUTSIDE_SPECS, ReferenceValidator, replayExample, specExamples, tally, type SpecExamplesReport } from "./support/spec-examples.ts";
import { sweep } from "./support/tier.ts";

const CREDENTIALS = ((scheme: { type: string }) => (scheme.type === "basic" ? { username: "u", password: "p" } : { token: "t" })) as never;
const CONTEXT = { credentials: CREDENTIALS, baseUrl: "http://127.0.0.1:9" };

/** Every OpenAPI document of the corpus and of test/fixtures/outside (GraphQL schemas aside). */
const CORPUS = CORPUS_OPENAPI.map((file) => ({ label: file, url: new URL(`../../shared/specs/${file}`, import.meta.url) }));
const OUTSIDE = OUTSIDE_SPECS.map((name) => ({
  label: `outside/${name}.yaml`,
  url: new URL(`./fixtures/outside/${name}.yaml`, import.meta.url),
}));
const ALL = [...CORPUS, ...OUTSIDE];

/** The quick tier's sample: 3.1 and Swagger 2.0 with examples (3.0 is the hand-written shapes above; every vendored 3.0 spec with examples costs 15 s or more, so it runs under LONG; the offer-and-withhold clash is the hand-written update_user; apideck has it for real, under LONG). */
const QUICK_EXAMPLES = new Set(["petstore/tictactoe-3.1.json", "outside/twitter.yaml"]);

/**
 * Examples really checked (passed as written), at least, per spec that has any: a broken
 * extractor or a replay that skips its work fails here instead of passing on nothing. The
 * figures are bench/EXAMPLES.md's; a spec not listed has no example checked there.
 */
const FLOORS: Record<string, number> = {
  "asana/asana_oas.yaml": 935, "digitalocean/digitalocean-openapi.yaml": 217, "github-rest/api.github.com.json": 135,
  "petstore/tictactoe-3.1.json": 5, "sendgrid/oai_v3_stoplight.json": 93, "twilio/twilio_api_v2010.json": 219,
  "outside/adyen-checkout.yaml": 41, "outside/box.yaml": 415, "outside/twitter.yaml": 11,
};
const QUICK_CALLABLE = new Set(["outside/okta.yaml", "petstore/swagger-petstore-3.0.yaml"]);

/**
 * Tools whose minimal call no value can satisfy, each because of a defect in the spec itself.
 * Keyed `spec: tool`.
 */
const UNSATISFIABLE: Record<string, string> = {
  "jira/jira-openapi.yaml: create_screen_scheme":
    "ScreenTypes requires `defaultScreen` but declares only `default` (and `additionalProperties: false`): no object satisfies it",
};

function load(url: URL, label: string): unknown {
  return loadDocument(readFileSync(url), label);
}

function packOf(document: unknown): ReturnType<typeof definePack> {
  return definePack(buildOpenAPIPackIR(document, { name: "examples", file: "spec", sha256: "0".repeat(64) }));
}

function failures(report: SpecExamplesReport): string[] {
  return report.results
    .filter((r) => !["pass", "spec_fault", "no_tool", "undeclared"].includes(r.outcome.status))
    .map((r) => `${r.example.operation} ${r.example.kind} ${r.example.label}: ${JSON.stringify(r.outcome)}`);
}

// ---------------------------------------------------------------------------------------
// Hand-written shapes: PagerDuty's read-only references, Okta's network zones, Swagger 2.0
// ---------------------------------------------------------------------------------------

/** PagerDuty's shapes (reference/REST/openapiv3.json at 91a06fb3), written anew and cut down. */
const PAGERDUTY_SHAPED = {
  openapi: "3.0.3",
  info: { title: "PagerDuty-shaped", version: "1" },
  servers: [{ url: "https://api.example.test" }],
  paths: {
    "/incidents": {
      post: {
        operationId: "createIncident",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["incident"],
                properties: {
                  incident: {
                    type: "object",
                    required: ["type", "title", "service"],
                    properties: {
                      type: { type: "string", enum: ["incident"] },
                      title: { type: "string" },
                      service: { $ref: "#/components/schemas/ServiceReference" },
                      escalation_policy: { $ref: "#/components/schemas/EscalationPolicyReference" },
                    },
                  },
                },
              },
              examples: {
                request: { value: { incident: { type: "incident", title: "The server is on fire.", service: { id: "PWIXJZS", type: "service_reference" }, escalation_policy: { id: "PT20YPA", type: "escalation_policy_reference" } } } },
              },
            },
          },
        },
        responses: { "201": { description: "created" } },
      },
    },
    "/tags": {
      post: {
        operationId: "createTag",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "object", properties: { tag: { $ref: "#/components/schemas/Tag" } } }, example: { tag: { type: "tag", label: "Batman" } } } },
        },
        responses: { "201": { description: "created" } },
      },
    },
    "/users/{id}": {
      put: {
        operationId: "updateUser",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" }, example: "PXPGF42" }],
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/User" }, example: { name: "Earline Greenholt", email: "125.greenholt.earline@graham.name" } } },
        },
        // The user comes back: `User`'s `required` is (also) a response's, no evidence for the request.
        responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/User" } } } } },
      },
    },
    "/event_orchestrations": {
      post: {
        operationId: "postOrchestration",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "object", properties: { orchestration: { $ref: "#/components/schemas/Orchestration" } } }, example: { orchestration: { name: "Shopping Cart", team: { id: "PQYP5MN" } } } } },
        },
        responses: { "201": { description: "created" } },
      },
    },
  },
  components: {
    schemas: {
      // The base every PagerDuty object extends: all of its members are read-only.
      Object: {
        type: "object",
        properties: {
          id: { type: "string", readOnly: true },
          summary: { type: "string", nullable: true, readOnly: true },
          type: { type: "string", readOnly: true },
          self: { type: "string", nullable: true, readOnly: true, format: "url" },
        },
      },
      Reference: { allOf: [{ $ref: "#/components/schemas/Object" }, { type: "object", required: ["type", "id"] }] },
      ServiceReference: { allOf: [{ $ref: "#/components/schemas/Reference" }, { type: "object", properties: { type: { type: "string", enum: ["service_reference"] } } }] },
      EscalationPolicyReference: { allOf: [{ $ref: "#/components/schemas/Reference" }, { type: "object", properties: { type: { type: "string", enum: ["escalation_policy_reference"] } } }] },
      Tag: { allOf: [{ $ref: "#/components/schemas/Object" }, { type: "object", required: ["label", "type"], properties: { type: { type: "string", enum: ["tag"] }, label: { type: "string" } } }] },
      // The classic shape: a read-only id beside writable members, `required` for the response.
      User: {
        type: "object",
        required: ["id", "name", "email"],
        properties: { id: { type: "string", readOnly: true }, name: { type: "string" }, email: { type: "string", format: "email" }, avatar_url: { type: "string", readOnly: true } },
      },
      Orchestration: {
        type: "object",
        properties: {
          id: { type: "string", readOnly: true },
          name: { type: "string" },
          team: { type: "object", properties: { id: { type: "string" }, type: { type: "string", readOnly: true } } },
        },
      },
    },
  },
};

/**
 * Okta's network zones as the issue measured them: a `oneOf` with a discriminator, `name`
 * read-only in two branches and required in the other.
 */
const OKTA_SHAPED = {
  openapi: "3.0.3",
  info: { title: "Okta-shaped", version: "1" },
  servers: [{ url: "https://example.okta.test" }],
  paths: {
    "/api/v1/zones": {
      post: {
        operationId: "createNetworkZone",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { $ref: "#/components/schemas/NetworkZone" },
              examples: {
                ip: { value: { type: "IP", name: "newNetworkZone", gateways: [{ type: "CIDR", value: "1.2.3.4/24" }] } },
                dynamic: { value: { type: "DYNAMIC", name: "dynamic zone", asns: ["23457"] } },
                enhanced: { value: { type: "DYNAMIC_V2", name: "enhanced zone", ipServiceCategories: { include: ["ALL_ANONYMIZERS"] } } },
              },
            },
          },
        },
        responses: { "200": { description: "ok" } },
      },
    },
  },
  components: {
    schemas: {
      NetworkZone: {
        oneOf: [{ $ref: "#/components/schemas/IPNetworkZone" }, { $ref: "#/components/schemas/DynamicNetworkZone" }, { $ref: "#/components/schemas/EnhancedDynamicNetworkZone" }],
        discriminator: { propertyName: "type", mapping: { IP: "#/components/schemas/IPNetworkZone", DYNAMIC: "#/components/schemas/DynamicNetworkZone", DYNAMIC_V2: "#/components/schemas/EnhancedDynamicNetworkZone" } },
      },
      IPNetworkZone: {
        type: "object",
        required: ["type", "name"],
        properties: {
          id: { type: "string", readOnly: true },
          type: { type: "string", enum: ["IP"] },
          name: { type: "string", maxLength: 128 },
          gateways: { type: "array", items: { type: "object", properties: { type: { type: "string" }, value: { type: "string" } } } },
        },
      },
      DynamicNetworkZone: {
        type: "object",
        required: ["type", "name"],
        properties: {
          id: { type: "string", readOnly: true },
          type: { type: "string", enum: ["DYNAMIC"] },
          name: { type: "string", readOnly: true },
          asns: { type: "array", items: { type: "string" } },
        },
      },
      EnhancedDynamicNetworkZone: {
        type: "object",
        required: ["type", "name"],
        properties: {
          id: { type: "string", readOnly: true },
          type: { type: "string", enum: ["DYNAMIC_V2"] },
          name: { type: "string", readOnly: true },
          ipServiceCategories: { type: "object", properties: { include: { type: "array", items: { type: "string" } } } },
        },
      },
    },
  },
};

/** Swagger 2.0's example keywords, with one example that is wrong against its own schema. */
const SWAGGER2_SHAPED = {
  swagger: "2.0",
  info: { title: "Swagger-2.0-shaped", version: "1" },
  host: "api.example.test",
  schemes: ["https"],
  paths: {
    "/things/{thing_id}": {
      put: {
        operationId: "putThing",
        consumes: ["application/json"],
        parameters: [
          { name: "thing_id", in: "path", required: true, type: "integer", "x-example": "42" },
          { name: "tags", in: "query", type: "array", items: { type: "string" }, collectionFormat: "csv", "x-example": ["a", "b"] },
          { name: "body", in: "body", required: true, schema: { $ref: "#/definitions/Thing" }, "x-examples": { "application/json": { name: "lamp", size: 3 } } },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
    "/things": {
      post: {
        operationId: "postThing",
        parameters: [{ name: "body", in: "body", required: true, schema: { type: "object", properties: { name: { type: "string" }, size: { type: "integer" } }, example: { name: "chair", size: "large" } } }],
        responses: { "200": { description: "ok" } },
      },
    },
  },
  definitions: {
    Thing: { type: "object", required: ["name", "id"], properties: { id: { type: "integer", readOnly: true }, name: { type: "string" }, size: { type: "integer", minimum: 1 } } },
  },
};

function toolNamed(document: unknown, name: string): Tool {
  const tool = packOf(document).tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

describe("spec examples: hand-written shapes", () => {
  it("PagerDuty-shaped: references whose members are all read-only take their examples; a classic read-only id stays withheld", async () => {
    const report = await specExamples(PAGERDUTY_SHAPED, "pagerduty-shaped.json");
    expect(failures(report)).toEqual([]);
    expect(tally(report)).toMatchObject({ examples: 5, specFaults: 0, passed: 5 });

    const incident = toolNamed(PAGERDUTY_SHAPED, "create_incident");
    // The base's members are offered (it says nothing without them), never required by it.
    expect(incident.withheld.filter((w) => w.path.startsWith("Object."))).toEqual([]);
    expect(await incident.request(minimalArguments(incident), CONTEXT)).toMatchObject({ method: "POST" });
    // Offered, never required (docs/openapi-read-only.md rule 1): a `required` naming a read-only
    // member may be a response's, so a reference without its id is the API's to refuse.
    await expect(incident.request({ incident: { type: "incident", title: "t", service: { type: "service_reference" } } }, CONTEXT)).resolves.toMatchObject({ method: "POST" });

    // A flattened body beside a path parameter `id`: the body's read-only `id` is withheld
    // under the argument name it would have had (`body_id`), not under the path's `id`.
    const user = toolNamed(PAGERDUTY_SHAPED, "update_user");
    expect(user.withheld).toEqual([{ path: "body_id", reason: "read_only" }, { path: "avatar_url", reason: "read_only" }]);
    expect(user.inputSchema.required).toEqual(["id", "name", "email"]);
    const sent = await user.request(minimalArguments(user), CONTEXT);
    expect(sent.url).toBe("http://127.0.0.1:9/users/a");
    await expect(user.request({ ...minimalArguments(user), body_id: "P1" }, CONTEXT)).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });

  it("a Type.key withholding applies to the object of that type, not to an object declared inline in it", async () => {
    const tool = toolNamed(PAGERDUTY_SHAPED, "post_orchestration");
    expect(tool.withheld).toEqual(expect.arrayContaining([{ path: "Orchestration.id", reason: "read_only" }, { path: "Orchestration.team.type", reason: "read_only" }]));
    const request = await tool.request({ orchestration: { name: "n", team: { id: "PQYP5MN" } } }, CONTEXT);
    expect(JSON.parse(String(request.body))).toEqual({ orchestration: { name: "n", team: { id: "PQYP5MN" } } });
    await expect(tool.request({ orchestration: { name: "n", id: "P1" } }, CONTEXT)).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });

  it("Okta-shaped create_network_zone: a member read-only in some branches and offered by another is offered in all, required in none where read-only", async () => {
    const report = await specExamples(OKTA_SHAPED, "okta-shaped.json");
    expect(failures(report)).toEqual([]);
    expect(tally(report)).toMatchObject({ examples: 3, specFaults: 0, passed: 3 });
    const tool = toolNamed(OKTA_SHAPED, "create_network_zone");
    expect(tool.withheld.map((w) => w.path)).not.toContain("DynamicNetworkZone.name");
    // `id` is read-only in every branch: still withheld.
    expect(tool.withheld).toEqual(expect.arrayContaining([{ path: "DynamicNetworkZone.id", reason: "read_only" }]));
    await expect(tool.request({ body: { type: "DYNAMIC", asns: ["1"] } }, CONTEXT)).resolves.toMatchObject({ method: "POST" });
    await expect(tool.request({ body: { type: "IP", gateways: [] } }, CONTEXT)).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
  });

  it("the oracle judges an example as written: one refused only for a read-only member is read_only_refused, never a pass", async () => {
    // The same operation twice: the tool from the spec without the example (so `id` stays
    // withheld), the example from the spec that sends it. Nothing is removed before replaying.
    const schema = { type: "object", required: ["name"], properties: { id: { type: "string", readOnly: true }, name: { type: "string" } } };
    const spec = (example?: unknown) => ({
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: { "/widgets": { post: { operationId: "makeWidget", requestBody: { required: true, content: { "application/json": { schema, ...(example === undefined ? {} : { example }) } } }, responses: { "201": { description: "ok", content: { "application/json": { schema } } } } } } },
    });
    const withExample = spec({ id: "W1", name: "cog" });
    const [example] = collectRequestExamples(withExample);
    const verdict = new ReferenceValidator(withExample).judge(example!);
    expect(verdict.ok).toBe(true);
    const outcome = await replayExample(toolNamed(spec(), "make_widget"), example!, verdict, withExample);
    expect(outcome).toEqual({ status: "read_only_refused", members: ["/id"] });
    // Counted apart: neither passed nor hidden among other refusals.
    const report: SpecExamplesReport = { file: "w", dialect: "3.0", results: [{ example: example!, tool: "make_widget", outcome }] };
    expect(tally(report)).toMatchObject({ judged: 1, passed: 0, readOnlyRefused: 1 });
    expect(failures(report)).toHaveLength(1);
  });

  it("Swagger 2.0: x-example and x-examples are replayed, and an example wrong against its own schema is a spec fault, never a pass", async () => {
    const report = await specExamples(SWAGGER2_SHAPED, "swagger2-shaped.json");
    expect(failures(report)).toEqual([]);
    const byLabel = Object.fromEntries(report.results.map((r) => [`${r.example.kind}:${r.example.label}`, r.outcome.status]));
    expect(byLabel).toEqual({ "x-example:thing_id": "pass", "x-example:tags": "pass", "x-examples:application/json": "pass", "schema-example:body": "spec_fault" });
  });
});

// ---------------------------------------------------------------------------------------
// Real specs
// ---------------------------------------------------------------------------------------

it("every spec of the quick sample has a floor above zero of examples checked", () => {
  for (const label of QUICK_EXAMPLES) expect(FLOORS[label] ?? 0, label).toBeGreaterThan(0);
});

describe.each(sweep(ALL, (spec) => QUICK_EXAMPLES.has(spec.label)).map((spec) => [spec.label, spec] as const))("spec examples: %s", (label, spec) => {
  it("takes every example its reference accepts, exactly as written", async () => {
    const report = await specExamples(load(spec.url, label), label);
    console.log(`${label}: ${JSON.stringify(tally(report))}`);
    expect(failures(report)).toEqual([]);
    // A spec with examples checked has a floor; one with none checked (Jira's only example is a spec fault) must stay at none, else add its floor.
    const passed = tally(report).passed;
    if (FLOORS[label] === undefined) expect(passed).toBe(0);
    else expect(passed).toBeGreaterThanOrEqual(FLOORS[label]!);
  }, 600_000);
});

describe.each(sweep(ALL, (spec) => QUICK_CALLABLE.has(spec.label)).map((spec) => [spec.label, spec] as const))("callable tools: %s", (label, spec) => {
  it("no tool both offers and withholds one argument, and every tool takes a minimal valid call", async () => {
    const pack = packOf(load(spec.url, label));
    const clashes: string[] = [];
    const refused: string[] = [];
    for (const [index, tool] of pack.tools.entries()) {
      if (index % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
      const offered = new Set(Object.keys((tool.inputSchema.properties ?? {}) as object));
      for (const entry of tool.withheld) if (offered.has(entry.path)) clashes.push(`${tool.name}: ${entry.path} (${entry.reason})`);
      if (UNSATISFIABLE[`${label}: ${tool.name}`] !== undefined) continue;
      // Required members only: a body sent with every member at its minimal value is measured
      // in bench/EXAMPLES.md ("with body"), where unions of optional members still trip the value builder.
      try {
        await tool.request(minimalArguments(tool), CONTEXT);
      } catch (error) {
        refused.push(`${tool.name}: ${(error as { code?: string }).code} ${JSON.stringify((error as { issues?: unknown }).issues ?? (error as Error).message).slice(0, 300)}`);
      }
    }
    expect(clashes).toEqual([]);
    expect(refused).toEqual([]);
  }, 600_000);
});
