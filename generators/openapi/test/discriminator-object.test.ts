/**
 * Discriminator Objects select the branch of a union by a tag, as the OpenAPI specs say
 * (https://spec.openapis.org/oas/v3.1.0#discriminator-object, Swagger 2.0's string
 * discriminator on an allOf hierarchy). The shapes are Okta's management API (OASv3
 * release 2026.06.3, dist/current/management-oneOfInheritance.yaml): open objects, so
 * without the tag a valid body matches several branches and `oneOf` refuses it.
 */
import { describe, expect, it } from "vitest";
import { definePack, isSluiceError, type PackDefinition, type Tool } from "@sluice/core";
import { build, oas30, swagger2 } from "./build.ts";

const ctx = { baseUrl: "http://127.0.0.1:9" };
const toolOf = (document: unknown, name: string): Tool<object> => definePack(build(document) as unknown as PackDefinition).tool(name) as Tool<object>;
const sentBody = async (tool: Tool<object>, args: Record<string, unknown>) => JSON.parse(String((await tool.request(args, ctx)).body)) as unknown;
const codes = (tool: Tool<object>, args: unknown) => tool.check(args).map((issue) => issue.code);

/** Okta's NetworkZone: a base with a discriminator mapping, its subtypes `allOf` it (trimmed to the members that matter). */
const networkZones = oas30(
  {
    "/api/v1/zones": {
      post: {
        operationId: "createNetworkZone",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/NetworkZone" } } } },
        responses: { "200": { description: "ok" } },
      },
    },
  },
  {
    components: {
      schemas: {
        NetworkZone: {
          type: "object",
          discriminator: {
            propertyName: "type",
            mapping: { DYNAMIC: "#/components/schemas/DynamicNetworkZone", DYNAMIC_V2: "#/components/schemas/EnhancedDynamicNetworkZone", IP: "#/components/schemas/IPNetworkZone" },
          },
          properties: {
            id: { type: "string", readOnly: true },
            name: { type: "string", maxLength: 128 },
            status: { type: "string", enum: ["ACTIVE", "INACTIVE"] },
            type: { $ref: "#/components/schemas/NetworkZoneType" },
            usage: { type: "string", enum: ["POLICY", "BLOCKLIST"] },
          },
          required: ["name", "type"],
        },
        NetworkZoneType: { type: "string", enum: ["DYNAMIC", "IP", "DYNAMIC_V2"] },
        NetworkZoneAddress: { type: "object", properties: { type: { type: "string", enum: ["CIDR", "RANGE"] }, value: { type: "string" } } },
        IPNetworkZone: {
          allOf: [
            { $ref: "#/components/schemas/NetworkZone" },
            { title: "IP Network Zone" },
            { type: "object", properties: { gateways: { type: "array", items: { $ref: "#/components/schemas/NetworkZoneAddress" } }, proxies: { type: "array", nullable: true, items: { $ref: "#/components/schemas/NetworkZoneAddress" } } } },
          ],
        },
        DynamicNetworkZone: {
          allOf: [
            { $ref: "#/components/schemas/NetworkZone" },
            { type: "object", properties: { asns: { type: "array", items: { type: "string" } }, proxyType: { type: "string", enum: ["null", "Any", "Tor", "NotTorAnonymizer"] } } },
          ],
        },
        EnhancedDynamicNetworkZone: {
          allOf: [{ $ref: "#/components/schemas/NetworkZone" }, { type: "object", properties: { ipServiceCategories: { type: "object" } } }],
        },
      },
    },
  },
);

/** Okta's older createPolicy: `oneOf` of open objects beside the discriminator. */
const policyUnion = (mapping: Record<string, string> | undefined) =>
  oas30(
    {
      "/api/v1/policies": {
        post: {
          operationId: "createPolicy",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  oneOf: [{ $ref: "#/components/schemas/AccessPolicy" }, { $ref: "#/components/schemas/PasswordPolicy" }],
                  discriminator: { propertyName: "type", ...(mapping === undefined ? {} : { mapping }) },
                },
              },
            },
          },
          responses: { "200": { description: "ok" } },
        },
      },
    },
    {
      components: {
        schemas: {
          Policy: { type: "object", properties: { name: { type: "string" }, type: { type: "string" }, priority: { type: "integer" } }, required: ["name", "type"] },
          AccessPolicy: { allOf: [{ $ref: "#/components/schemas/Policy" }, { type: "object", properties: { conditions: { type: "object" } } }] },
          PasswordPolicy: { allOf: [{ $ref: "#/components/schemas/Policy" }, { type: "object", properties: { settings: { type: "object" } } }] },
        },
      },
    },
  );

describe("a discriminator base stands for its mapped subtypes (Okta create_network_zone)", () => {
  const tool = toolOf(networkZones, "create_network_zone");

  it("takes the spec's own IP zone example and sends it as written", async () => {
    // CreateIPPolicyNetworkZone, Okta's request example.
    const zone = { type: "IP", name: "newNetworkZone", gateways: [{ type: "CIDR", value: "1.2.3.4/24" }, { type: "RANGE", value: "2.3.4.5-2.3.4.15" }], proxies: [{ type: "CIDR", value: "2.2.3.4/24" }] };
    expect(tool.check({ body: zone })).toEqual([]);
    expect(await sentBody(tool, { body: zone })).toEqual(zone);
  });

  it("takes a dynamic zone, and selects each subtype by its tag only", async () => {
    const dynamic = { type: "DYNAMIC", name: "z", asns: ["23457"], proxyType: "Any" };
    expect(tool.check({ body: dynamic })).toEqual([]);
    expect(await sentBody(tool, { body: dynamic })).toEqual(dynamic);
    expect(tool.check({ body: { type: "DYNAMIC_V2", name: "z", ipServiceCategories: {} } })).toEqual([]);
  });

  it("refuses a body without the tag, with an unknown tag, or a subtype member of the wrong type", () => {
    expect(codes(tool, { body: { name: "z", gateways: [] } })).toContain("required");
    expect(tool.check({ body: { type: "BOGUS", name: "z" } }).length).toBeGreaterThan(0);
    expect(tool.check({ body: { type: "IP", name: "z", gateways: "1.2.3.4" } }).length).toBeGreaterThan(0);
    expect(tool.check({ body: { type: "IP" } }).length).toBeGreaterThan(0); // name is required in every subtype
  });

  it("keeps the body whole (a union is not flattened) and names each branch by its type", async () => {
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(["body"]);
    const paths = (await tool.paths("body")).map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(["body.oneOf[IPNetworkZone]", "body.oneOf[DynamicNetworkZone]", "body.oneOf[EnhancedDynamicNetworkZone]", "body.gateways"]));
  });

  it("drops a branch by name or position (the mapping's order), and what only that branch takes is refused", () => {
    const union = (tool.inputSchema.properties as Record<string, { oneOf: { $ref: string }[] }>).body!.oneOf;
    expect(union.map((branch) => branch.$ref)).toEqual(["#/$defs/DynamicNetworkZone", "#/$defs/EnhancedDynamicNetworkZone", "#/$defs/IPNetworkZone"]);
    for (const selector of ["body.oneOf[IPNetworkZone]", "body.oneOf[2]"]) {
      const narrowed = tool.derived({ name: "no_ip_zones", drop: [selector] });
      expect(narrowed.check({ body: { type: "IP", name: "z" } }).length).toBeGreaterThan(0);
      expect(narrowed.check({ body: { type: "DYNAMIC", name: "z" } })).toEqual([]);
    }
  });

  it("refuses to withhold the tag while a branch requires it", () => {
    let code: string | undefined;
    try {
      tool.derived({ name: "x", drop: ["body.type"] });
    } catch (error) {
      if (isSluiceError(error)) code = error.code;
    }
    expect(code).toBe("REQUIRED_DROPPED");
  });
});

describe("a oneOf beside a discriminator selects its branch by the tag (Okta create_policy)", () => {
  it("with a mapping: the mapping keys are the tags", async () => {
    const tool = toolOf(policyUnion({ ACCESS_POLICY: "#/components/schemas/AccessPolicy", PASSWORD: "#/components/schemas/PasswordPolicy" }), "create_policy");
    const body = { type: "PASSWORD", name: "Password policy", priority: 1, settings: {} };
    expect(tool.check({ body })).toEqual([]); // matched both open branches before the tags
    expect(await sentBody(tool, { body })).toEqual(body);
    expect(tool.check({ body: { type: "ACCESS_POLICY", name: "a" } })).toEqual([]);
    expect(tool.check({ body: { type: "AccessPolicy", name: "a" } }).length).toBeGreaterThan(0); // mapped: the name is not a tag
    expect(tool.check({ body: { name: "a" } }).length).toBeGreaterThan(0);
  });

  it("without a mapping: each branch's component name is its tag", () => {
    const tool = toolOf(policyUnion(undefined), "create_policy");
    expect(tool.check({ body: { type: "PasswordPolicy", name: "p" } })).toEqual([]);
    expect(tool.check({ body: { type: "AccessPolicy", name: "a" } })).toEqual([]);
    expect(tool.check({ body: { type: "PASSWORD", name: "p" } }).length).toBeGreaterThan(0);
  });

  it("several mapping keys for one branch become an enum", () => {
    const tool = toolOf(policyUnion({ ACCESS_POLICY: "AccessPolicy", ACCESS: "AccessPolicy", PASSWORD: "PasswordPolicy" }), "create_policy");
    expect(tool.check({ body: { type: "ACCESS", name: "a" } })).toEqual([]);
    expect(tool.check({ body: { type: "ACCESS_POLICY", name: "a" } })).toEqual([]);
    const union = (tool.inputSchema.properties as Record<string, { oneOf: unknown[] }>).body!.oneOf;
    expect(union[0]).toEqual({ $ref: "#/$defs/AccessPolicy", properties: { type: { enum: ["ACCESS_POLICY", "ACCESS"] } }, required: ["type"] });
  });
});

describe("Swagger 2.0: a string discriminator on an allOf hierarchy", () => {
  const document = swagger2(
    {
      "/pets": {
        post: {
          operationId: "addPet",
          consumes: ["application/json"],
          parameters: [{ in: "body", name: "pet", required: true, schema: { $ref: "#/definitions/Pet" } }],
          responses: { "200": { description: "ok" } },
        },
      },
    },
    {
      definitions: {
        Pet: { type: "object", discriminator: "petType", properties: { name: { type: "string" }, petType: { type: "string" } }, required: ["name", "petType"] },
        Cat: { allOf: [{ $ref: "#/definitions/Pet" }, { type: "object", properties: { huntingSkill: { type: "string", enum: ["clueless", "lazy", "aggressive"] } }, required: ["huntingSkill"] }] },
        Dog: { allOf: [{ $ref: "#/definitions/Pet" }, { type: "object", properties: { packSize: { type: "integer", minimum: 0 } }, required: ["packSize"] }] },
      },
    },
  );
  const tool = toolOf(document, "add_pet");

  it("the tag is the definition's name, the base's own included", async () => {
    const cat = { petType: "Cat", name: "Tom", huntingSkill: "lazy" };
    expect(tool.check({ body: cat })).toEqual([]);
    expect(await sentBody(tool, { body: cat })).toEqual(cat);
    expect(tool.check({ body: { petType: "Dog", name: "Rex", packSize: 2 } })).toEqual([]);
    expect(tool.check({ body: { petType: "Pet", name: "Generic" } })).toEqual([]);
  });

  it("what the tag selects is checked: a cat without its required member, a dog with a cat's tag", () => {
    expect(tool.check({ body: { petType: "Cat", name: "Tom" } }).length).toBeGreaterThan(0);
    expect(tool.check({ body: { petType: "Cat", name: "Rex", packSize: 2 } }).length).toBeGreaterThan(0);
    expect(tool.check({ body: { petType: "Bird", name: "Tweety" } }).length).toBeGreaterThan(0);
  });

  it("a subtype referenced directly is itself, not the union", () => {
    const direct = swagger2(
      { "/cats": { post: { operationId: "addCat", parameters: [{ in: "body", name: "cat", schema: { $ref: "#/definitions/Cat" } }], responses: { "200": { description: "ok" } } } } },
      { definitions: (document as { definitions: unknown }).definitions },
    );
    const addCat = toolOf(direct, "add_cat");
    expect(addCat.check({ body: { petType: "Cat", name: "Tom", huntingSkill: "lazy" } })).toEqual([]);
    expect(addCat.check({ body: { petType: "Dog", name: "Rex", packSize: 2 } }).length).toBeGreaterThan(0);
  });
});

/**
 * Azure's Swagger 2.0 hierarchies (azure-kusto 2019-05-15, containerregistry 2018-09-01, from
 * the public API directory, trimmed): subtypes say their tag with `x-ms-discriminator-value`,
 * the base's tag property lists the tags in an `enum` or marks itself read-only. A tag the
 * tag property refuses must never be required, and the tag property is never withheld.
 */
describe("tags as Azure writes them", () => {
  const azure = (kind: Record<string, unknown>, subtypeExtra: Record<string, unknown>) =>
    swagger2(
      {
        "/connections": {
          put: {
            operationId: "createConnection",
            parameters: [{ name: "body", in: "body", required: true, schema: { $ref: "#/definitions/DataConnection" } }],
            responses: { "200": { description: "ok" } },
          },
        },
      },
      {
        definitions: {
          DataConnection: { type: "object", discriminator: "kind", required: ["kind"], properties: { kind: kind, location: { type: "string" } } },
          EventHubDataConnection: { allOf: [{ $ref: "#/definitions/DataConnection" }], ...subtypeExtra, properties: { eventHubResourceId: { type: "string" } }, required: ["eventHubResourceId"] },
        },
      },
    );

  it("x-ms-discriminator-value is the subtype's tag", async () => {
    const tool = toolOf(azure({ type: "string", enum: ["EventHub", "IotHub"] }, { "x-ms-discriminator-value": "EventHub" }), "create_connection");
    expect(codes(tool, { body: { kind: "EventHub", eventHubResourceId: "r" } })).toEqual([]);
    expect(await sentBody(tool, { body: { kind: "EventHub", eventHubResourceId: "r" } })).toEqual({ kind: "EventHub", eventHubResourceId: "r" });
    expect(codes(tool, { body: { kind: "EventHubDataConnection", eventHubResourceId: "r" } })).not.toEqual([]);
  });

  it("a component name the tag's enum refuses is not required: the body the enum allows is taken", () => {
    // No tag can be told for the subtype, so no union: the base's members are the arguments, as before tags.
    const tool = toolOf(azure({ type: "string", enum: ["EventHub", "IotHub"] }, {}), "create_connection");
    expect(codes(tool, { kind: "EventHub", location: "west" })).toEqual([]);
  });

  it("a read-only tag property is offered: the request must say its type", () => {
    const tool = toolOf(azure({ type: "string", readOnly: true }, {}), "create_connection");
    expect(codes(tool, { body: { kind: "EventHubDataConnection", eventHubResourceId: "r" } })).toEqual([]);
    expect(tool.withheld.map((w) => w.path)).not.toContain("body.kind");
  });
});
