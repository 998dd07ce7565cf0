import { buildSchema, isScalarType, specifiedScalarTypes, type GraphQLInputType } from "graphql";
import { describe, expect, it } from "vitest";
import { InputSchemaBuilder, scalarSchema } from "../src/input-schema.ts";
import { buildGraphQLPackIR } from "../src/build-pack-ir.ts";

const schema = buildSchema(`
  scalar DateTime
  scalar CreatedDateTime
  scalar Date
  scalar TimelessDate
  scalar UUID
  scalar URI
  scalar URL
  scalar Url
  scalar JSON
  scalar JSONObject
  "Money in minor units"
  scalar Money
  scalar Mystery

  "Issue filter"
  input IssueFilter {
    title: String
    and: [IssueFilter!]
    state: State = OPEN
    constructor: String
    legacy: Int @deprecated(reason: "use title")
  }

  enum State { OPEN CLOSED ARCHIVED @deprecated(reason: "gone") }

  input CreateInput {
    "The title"
    title: String!
    labels: [String!]!
    priority: Int! = 2
    note: String
  }

  type Issue { id: ID! title: String }
  type Query {
    issues(filter: IssueFilter, first: Int = 50): [Issue!]!
  }
  type Mutation {
    issueCreate(input: CreateInput!, legacyFlag: Boolean @deprecated(reason: "ignored")): Issue
    issueArchive(id: ID!): Boolean
  }
`);

describe("scalarSchema", () => {
  it.each([
    ["String", { type: "string" }],
    ["ID", { type: "string" }],
    ["Int", { type: "integer" }],
    ["Float", { type: "number" }],
    ["Boolean", { type: "boolean" }],
    ["DateTime", { type: "string", format: "date-time" }],
    ["CreatedDateTime", { type: "string", format: "date-time" }],
    ["Date", { type: "string", format: "date" }],
    ["TimelessDate", { type: "string", format: "date" }],
    ["UUID", { type: "string", format: "uuid" }],
    ["URI", { type: "string", format: "uri" }],
    ["URL", { type: "string", format: "uri" }],
    ["Url", { type: "string", format: "uri" }],
    ["JSON", {}],
    ["JSONObject", { type: "object" }],
    ["Money", { type: "string", description: "Money in minor units" }],
    ["Mystery", { type: "string", description: "Custom scalar Mystery" }],
  ])("%s", (name, want) => {
    const type = schema.getType(name) ?? specifiedScalarTypes.find((scalar) => scalar.name === name);
    if (!isScalarType(type)) throw new Error(`no scalar ${name}`);
    expect(scalarSchema(type)).toEqual(want);
  });
});

describe("InputSchemaBuilder", () => {
  const build = (typeName: string) => {
    const builder = new InputSchemaBuilder();
    const ref = builder.forType(schema.getType(typeName) as GraphQLInputType);
    return { ref, defs: Object.fromEntries(builder.defs) };
  };

  it("keeps recursive input objects as $ref cycles", () => {
    const { ref, defs } = build("IssueFilter");
    expect(ref).toEqual({ $ref: "#/$defs/IssueFilter" });
    expect(defs.IssueFilter?.properties).toMatchObject({ and: { type: "array", items: { $ref: "#/$defs/IssueFilter" } } });
    expect(defs.IssueFilter?.description).toBe("Issue filter");
  });

  it("carries enums (deprecated values kept) and enum defaults", () => {
    const { defs } = build("IssueFilter");
    expect(defs.State).toEqual({ type: "string", enum: ["OPEN", "CLOSED", "ARCHIVED"] });
    expect(defs.IssueFilter?.properties).toMatchObject({ state: { $ref: "#/$defs/State", default: "OPEN" } });
  });

  it("marks deprecated fields and keeps them; data keys like `constructor` stay plain properties", () => {
    const { defs } = build("IssueFilter");
    const properties = defs.IssueFilter?.properties as Record<string, unknown>;
    expect(properties.legacy).toEqual({ type: "integer", deprecated: true });
    expect(Object.hasOwn(properties, "constructor")).toBe(true);
    expect(properties.constructor).toEqual({ type: "string" });
    expect(Object.hasOwn(properties, "title")).toBe(true);
  });

  it("requires non-null fields without defaults and maps lists to arrays", () => {
    const { defs } = build("CreateInput");
    expect(defs.CreateInput).toEqual({
      type: "object",
      properties: {
        title: { type: "string", description: "The title" },
        labels: { type: "array", items: { type: "string" } },
        priority: { type: "integer", default: 2 },
        note: { type: "string" },
      },
      required: ["title", "labels"],
    });
  });
});

describe("buildGraphQLPackIR arguments", () => {
  const pack = buildGraphQLPackIR(schema, { name: "t", file: "schema.graphql", sha256: "0" });
  const tool = (name: string) => pack.tools.find((t) => t.name === name)!;

  it("flattens arguments, requires non-null ones and carries deprecation", () => {
    expect(tool("issue_create").parameters).toEqual({
      properties: { input: { $ref: "#/$defs/CreateInput" }, legacyFlag: { type: "boolean", deprecated: true } },
      required: ["input"],
    });
    expect(tool("issues").parameters.properties.first).toEqual({ type: "integer", default: 50 });
  });

  it("keeps only reached defs, sorted", () => {
    expect(Object.keys(pack.defs)).toEqual(["CreateInput", "IssueFilter", "State"]);
  });

  it("annotates queries read-only and destructive mutations as such", () => {
    expect(tool("issues").annotations).toEqual({ readOnly: true, idempotent: true });
    expect(tool("issue_archive").annotations).toEqual({ readOnly: false, destructive: true });
    expect(tool("issue_create").annotations).toEqual({ readOnly: false, destructive: false });
  });

  it("declares variables exactly as the schema types them, with the schema's defaults", () => {
    expect(tool("issues").binding).toMatchObject({
      variables: { filter: "IssueFilter", first: "Int" },
      document: "query Issues($filter: IssueFilter, $first: Int = 50) {\n  issues(filter: $filter, first: $first) {\n    id\n    title\n  }\n}",
    });
  });
});
