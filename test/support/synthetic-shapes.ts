/**
 * A corpus of hand-made tools, one per schema shape that egress control has to get
 * right: open and closed objects, unions with open, closed, bare-`required` and nested
 * branches (the GitHub REST idioms among them), `allOf` chains, discriminated unions,
 * free-form maps, arrays of unions, and arguments in every place a request can carry
 * them (path, query, header, cookie, JSON, form and multipart bodies, GraphQL variables).
 *
 * Shapes that today's code cannot even project without hanging (pure `allOf` cycles,
 * mutually recursive unions) are kept apart in `hostileShapeTools`, so a test can run
 * them where a hang is a failure with a time limit rather than a stuck test run.
 */
import { Tool, type Binding, type HttpBinding, type HttpParameter, type JsonSchemaObject, type WithheldPath } from "@sluice/core";

type Place = "path" | "query" | "header" | "cookie" | "body";

interface ShapeSpec {
  name: string;
  properties: Record<string, JsonSchemaObject>;
  required?: string[];
  defs?: Record<string, JsonSchemaObject>;
  /** Where each argument goes; arguments not listed go into the body. */
  places?: Record<string, Place>;
  /** The whole body is this one argument (instead of one body field per argument). */
  wholeBody?: string;
  encoding?: "json" | "form" | "multipart";
  /** Paths the "generator" withheld (inside free-form objects, at the top level). */
  withheld?: WithheldPath[];
  /** Members the "generator" withheld from types, by type name. */
  typeWithheld?: Record<string, WithheldPath[]>;
}

const SERVER = "https://synthetic.invalid/api";

function httpBinding(spec: ShapeSpec): HttpBinding {
  const parameters: HttpParameter[] = [];
  const fields: Record<string, string> = {};
  let path = `/${spec.name}`;
  for (const arg of Object.keys(spec.properties)) {
    const place = spec.places?.[arg] ?? "body";
    if (place === "body") {
      if (spec.wholeBody !== arg) fields[arg] = arg;
      continue;
    }
    if (place === "path") path += `/{${arg}}`;
    parameters.push({
      arg,
      name: place === "header" ? `X-${arg.replace(/_/g, "-")}` : arg,
      in: place,
      style: place === "query" || place === "cookie" ? "form" : "simple",
      explode: place === "query",
      ...(place === "path" || spec.required?.includes(arg) ? { required: true } : {}),
    });
  }
  const mediaType = spec.encoding === "form" ? "application/x-www-form-urlencoded" : spec.encoding === "multipart" ? "multipart/form-data" : "application/json";
  const body = spec.wholeBody !== undefined ? { wholeBodyArg: spec.wholeBody } : Object.keys(fields).length > 0 ? { fields } : undefined;
  return {
    kind: "http",
    method: "POST",
    path,
    server: SERVER,
    parameters,
    ...(body === undefined ? {} : { body: { mediaType, encoding: spec.encoding ?? "json", ...body } }),
    auth: [[{ scheme: "key", type: "bearer" }]],
  };
}

function shape(spec: ShapeSpec, binding?: Binding): Tool {
  const inputSchema: JsonSchemaObject = { type: "object", properties: spec.properties };
  if (spec.required !== undefined) inputSchema.required = spec.required;
  if (spec.defs !== undefined) inputSchema.$defs = spec.defs;
  const typeWithheld = spec.typeWithheld ?? {};
  return Tool.create({
    name: spec.name,
    description: `Synthetic shape ${spec.name}.`,
    inputSchema,
    binding: binding ?? httpBinding(spec),
    ...(spec.withheld === undefined ? {} : { withheld: spec.withheld }),
    typeWithheld: (type) => (Object.prototype.hasOwnProperty.call(typeWithheld, type) ? typeWithheld[type]! : []),
    settings: binding?.kind === "graphql" ? { endpoint: "https://synthetic.invalid/graphql", auth: [[{ scheme: "key", type: "bearer" }]] } : {},
  });
}

const str: JsonSchemaObject = { type: "string" };
const strings: JsonSchemaObject = { type: "array", items: { type: "string" } };
const ref = (name: string): JsonSchemaObject => ({ $ref: `#/$defs/${name}` });

/** Open objects (three ways), a closed one, and arguments in path, query, header and cookie. */
const openObjects = shape({
  name: "open_objects",
  properties: {
    account: str,
    q: str,
    trace: str,
    session: str,
    settings: { type: "object", properties: { theme: str, secret: str }, additionalProperties: true },
    extras: { type: "object", properties: { name: str, code: str }, additionalProperties: { type: "string" } },
    meta: { type: "object" },
    closed: { type: "object", properties: { a: str, b: str }, additionalProperties: false },
  },
  required: ["account"],
  places: { account: "path", q: "query", trace: "header", session: "cookie" },
  withheld: [
    { path: "meta.internal_note", reason: "internal" },
    { path: "meta.audit.actor", reason: "internal" },
    { path: "api_key", reason: "credential" },
  ],
});

/** A union of a closed named branch, an open named branch, an inline branch and a bare-required branch. */
const unionBranches = shape({
  name: "union_branches",
  properties: {
    id: str,
    target: { oneOf: [ref("UserTarget"), ref("TeamTarget"), { type: "object", properties: { email: str, email_secret: str } }] },
    assignee: { type: "object", properties: { login: str, note: str }, anyOf: [{ required: ["login"] }, { type: "object", additionalProperties: true }] },
  },
  required: ["id"],
  places: { id: "path" },
  defs: {
    UserTarget: { type: "object", properties: { user: str, user_token: str }, required: ["user"], additionalProperties: false },
    TeamTarget: { type: "object", properties: { team: str, team_secret: str }, additionalProperties: true },
  },
});

/** GitHub REST `pulls_request_reviewers`: the parent lists properties, bare `anyOf` branches only require. */
const reviewersIdiom = shape({
  name: "reviewers_idiom",
  properties: {
    owner: str,
    pull_number: { type: "integer" },
    body: { type: "object", properties: { reviewers: strings, team_reviewers: strings }, anyOf: [{ required: ["reviewers"] }, { required: ["team_reviewers"] }] },
  },
  required: ["owner", "pull_number"],
  places: { owner: "path", pull_number: "path" },
  wholeBody: "body",
});

/** GitHub REST `checks_create`: `oneOf` branches that each say `additionalProperties: true`. */
const checksIdiom = shape({
  name: "checks_idiom",
  properties: {
    repo: str,
    body: {
      type: "object",
      properties: {
        name: str,
        head_sha: str,
        details_url: str,
        status: { enum: ["queued", "in_progress", "completed"] },
        conclusion: { enum: ["success", "failure", "neutral"] },
        output: { type: "object", properties: { title: str, summary: str, text: str }, required: ["title", "summary"] },
        actions: { type: "array", items: { type: "object", properties: { label: str, description: str, identifier: str }, required: ["label", "identifier"] } },
      },
      required: ["name", "head_sha"],
      oneOf: [
        { properties: { status: { enum: ["completed"] } }, required: ["status", "conclusion"], additionalProperties: true },
        { properties: { status: { enum: ["queued", "in_progress"] } }, additionalProperties: true },
      ],
    },
  },
  required: ["repo", "body"],
  places: { repo: "path" },
  wholeBody: "body",
});

/** Unions inside unions, with a scalar branch beside object branches. */
const nestedUnions = shape({
  name: "nested_unions",
  properties: {
    rule: {
      anyOf: [
        { oneOf: [ref("RuleA"), ref("RuleB")] },
        { type: "object", properties: { c: { anyOf: [{ type: "object", properties: { x: str, y: str } }, { type: "string" }] }, c_note: str } },
      ],
    },
  },
  defs: {
    RuleA: { type: "object", properties: { kind: { const: "a" }, a1: str, a_hidden: str }, required: ["kind"] },
    RuleB: { type: "object", properties: { kind: { const: "b" }, b1: { type: "object", properties: { deep: str, deep_hidden: str } } }, required: ["kind"] },
  },
});

/** `allOf` chains three deep, and a cycle that runs through properties. */
const allOfChains = shape({
  name: "allof_chains",
  properties: { item: ref("Level3"), tree: ref("Node") },
  defs: {
    Level1: { type: "object", properties: { a: str, a_secret: str } },
    Level2: { allOf: [ref("Level1"), { type: "object", properties: { b: str, b_secret: str } }] },
    Level3: { allOf: [ref("Level2"), { type: "object", properties: { c: str, c_secret: str } }] },
    Node: { type: "object", properties: { name: str, hidden: str, child: ref("NodeMore") } },
    NodeMore: { allOf: [ref("Node"), { type: "object", properties: { extra: str } }] },
  },
});

/** Discriminated unions: an OpenAPI discriminator with const tags, and an interaction callback with enum tags. */
const discriminated = shape({
  name: "discriminated",
  properties: {
    event: {
      oneOf: [ref("Created"), ref("Deleted"), ref("Updated")],
      discriminator: { propertyName: "kind", mapping: { created: "#/$defs/Created", deleted: "#/$defs/Deleted", updated: "#/$defs/Updated" } },
    },
    response: { oneOf: [ref("MessageReply"), ref("ModalReply"), ref("AutocompleteReply")] },
  },
  required: ["response"],
  defs: {
    Created: { type: "object", properties: { kind: { const: "created" }, id: str, payload: { type: "object", properties: { title: str, draft_note: str } } }, required: ["kind"] },
    Deleted: { type: "object", properties: { kind: { const: "deleted" }, id: str, reason: str }, required: ["kind", "id"], additionalProperties: false },
    Updated: { type: "object", properties: { kind: { enum: ["updated"] }, id: str }, required: ["kind"], additionalProperties: true },
    MessageReply: { type: "object", properties: { type: { enum: [4] }, data: { type: "object", properties: { content: str, tts: { type: "boolean" }, flags: { type: "integer" } } } }, required: ["type"] },
    ModalReply: { type: "object", properties: { type: { const: 9 }, data: { type: "object", properties: { custom_id: str, title: str, components: { type: "array", items: { type: "object" } } }, required: ["custom_id", "title", "components"] } }, required: ["type", "data"] },
    AutocompleteReply: { type: "object", properties: { type: { const: 8 }, data: { type: "object", properties: { choices: { type: "array", items: { type: "object", properties: { name: str, value: str } } } } } }, required: ["type"] },
  },
});

/** Free-form maps: values of a named type, pattern keys, and anything-goes objects. */
const freeFormMaps = shape({
  name: "free_form_maps",
  properties: {
    labels: { type: "object", additionalProperties: ref("Label") },
    attrs: { type: "object", properties: { name: str, name_hidden: str }, patternProperties: { "^x-": { type: "string" } } },
    tags: { type: "object", additionalProperties: true },
    blob: {},
  },
  defs: { Label: { type: "object", properties: { name: str, color: str, label_secret: str } } },
  withheld: [
    { path: "tags.internal", reason: "internal" },
    { path: "blob.token", reason: "credential" },
  ],
  typeWithheld: { Label: [{ path: "Label.owner_only", reason: "internal" }] },
});

/** Arrays whose items are unions, and a tuple. Sent as a form body. */
const arrayUnions = shape({
  name: "array_unions",
  properties: {
    ops: { type: "array", items: { oneOf: [ref("Insert"), ref("Delete"), { type: "object", additionalProperties: true }] } },
    pair: { type: "array", prefixItems: [{ type: "string" }, ref("Insert")], items: false },
  },
  defs: {
    Insert: { type: "object", properties: { text: str, at: { type: "integer" }, insert_hidden: str }, required: ["text"] },
    Delete: { type: "object", properties: { from: { type: "integer" }, to: { type: "integer" }, delete_hidden: str } },
  },
});

/** The same shapes in a form and in a multipart body. */
const formBody = shape({
  name: "form_body",
  properties: { title: str, options: { anyOf: [{ type: "object", properties: { color: str, hue: str } }, { type: "object", additionalProperties: true }] }, notes: str },
  encoding: "form",
});
const multipartBody = shape({
  name: "multipart_body",
  properties: { file_name: str, detail: { type: "object", properties: { caption: str, alt: str }, additionalProperties: true } },
  encoding: "multipart",
});

/** A GraphQL tool with a recursive filter type and members the generator withheld by type. */
const graphqlFilter = shape(
  {
    name: "graphql_filter",
    properties: { filter: ref("IssueFilter"), first: { type: "integer" }, label: { anyOf: [ref("LabelInput"), { type: "null" }] } },
    defs: {
      IssueFilter: {
        type: "object",
        properties: {
          title: ref("StringComparator"),
          and: { type: "array", items: ref("IssueFilter") },
          or: { type: "array", items: ref("IssueFilter") },
          team: { type: "object", properties: { key: ref("StringComparator"), archived: { type: "boolean" } } },
        },
        additionalProperties: false,
      },
      StringComparator: { type: "object", properties: { eq: str, contains: str, internalMatch: str }, additionalProperties: false },
      LabelInput: { type: "object", properties: { name: str, color: str, privateColor: str }, additionalProperties: false },
    },
    typeWithheld: { IssueFilter: [{ path: "IssueFilter.internalFlag", reason: "internal" }], StringComparator: [{ path: "StringComparator.regex", reason: "internal" }] },
  },
  {
    kind: "graphql",
    operationType: "query",
    field: "issues",
    document: "query issues($filter: IssueFilter, $first: Int, $label: LabelInput) { issues(filter: $filter, first: $first, label: $label) { nodes { id } } }",
    variables: { filter: "IssueFilter", first: "Int", label: "LabelInput" },
  },
);

/** Every synthetic shape whose projection terminates on today's code. */
export function syntheticTools(): Tool[] {
  return [openObjects, unionBranches, reviewersIdiom, checksIdiom, nestedUnions, allOfChains, discriminated, freeFormMaps, arrayUnions, formBody, multipartBody, graphqlFilter];
}

/**
 * Cycles with no property between them: `allOf` parts that include each other, and
 * unions whose branches are each other. Every operation on them must terminate (issue 11,
 * observation 9); today `derived()` on them never returns, so tests run them under a time limit.
 */
export function hostileShapeTools(): Tool[] {
  return [
    shape({
      name: "allof_cycle",
      properties: { node: ref("A"), other: str },
      defs: {
        A: { allOf: [ref("B"), { type: "object", properties: { a: str, a_secret: str } }] },
        B: { allOf: [ref("A"), { type: "object", properties: { b: str, b_secret: str } }] },
      },
    }),
    shape({
      name: "union_cycle",
      properties: { node: ref("P"), other: str },
      defs: {
        P: { oneOf: [ref("Q"), { type: "object", properties: { p: str, p_secret: str }, additionalProperties: true }] },
        Q: { anyOf: [ref("P"), { type: "object", properties: { q: str, q_secret: str } }] },
      },
    }),
  ];
}
