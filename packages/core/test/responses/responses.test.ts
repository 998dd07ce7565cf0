/**
 * The generic response passes in responses/shape.ts and the GraphQL connection helpers
 * in responses/graphql.ts.
 */
import { describe, expect, it } from "vitest";
import { collapseHandles, graphqlFieldHandler, neverThrows, omitKeysDeep, relayConnection, relayPagination, type GraphQLBinding, type ResponseInfo } from "../../src/index.ts";

const info: ResponseInfo = { tool: "t", status: 200, headers: {}, args: {} };

function gql(document: string, variables: Record<string, string>, field = "issues"): GraphQLBinding {
  return { kind: "graphql", operationType: "query", field, document, variables };
}

describe("omitKeysDeep", () => {
  it("removes members at every depth, sees the parent, leaves the input alone", () => {
    const body = { url: "a", html_url: "h", items: [{ url: "b", html_url: "i", nested: { url: "c" } }] };
    const copy = structuredClone(body);
    const out = omitKeysDeep((key, _value, parent) => key === "url" && "html_url" in parent)(body, info);
    expect(out).toEqual({ html_url: "h", items: [{ html_url: "i", nested: { url: "c" } }] });
    expect(body).toEqual(copy);
  });

  it("keeps a `__proto__` member as data", () => {
    const body = JSON.parse('{"__proto__": {"x": 1}, "y": 2}');
    const out = omitKeysDeep((key) => key === "y")(body, info) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
  });
});

describe("collapseHandles", () => {
  it("turns id-only and typename-only objects below the root into the handle", () => {
    const body = { id: "root", assignee: { id: "u1" }, labels: [{ id: "l1" }, { id: "l2", name: "bug" }], content: { __typename: "Text" }, empty: {} };
    expect(collapseHandles()(body, info)).toEqual({ id: "root", assignee: "u1", labels: ["l1", { id: "l2", name: "bug" }], content: "Text", empty: {} });
  });

  it("never collapses the root, and leaves non-scalar ids alone", () => {
    expect(collapseHandles()({ id: "x" }, info)).toEqual({ id: "x" });
    expect(collapseHandles()({ a: { id: { nested: true } } }, info)).toEqual({ a: { id: { nested: true } } });
  });
});

describe("neverThrows", () => {
  it("passes the body on unchanged when the handler throws", () => {
    const body = { a: 1 };
    expect(neverThrows(() => {
      throw new Error("boom");
    })(body, info)).toBe(body);
    expect(neverThrows((b) => ({ wrapped: b }))(body, info)).toEqual({ wrapped: body });
  });
});

describe("relayConnection / relayPagination", () => {
  const document = `query Issues($after: String, $first: Int) {
  issues(after: $after, first: $first) {
    nodes { id title }
    pageInfo { hasNextPage endCursor }
  }
}`;

  it("reads the connection from the document", () => {
    expect(relayConnection(gql(document, { after: "String", first: "Int" }))).toEqual({ field: "issues", list: "nodes", afterArg: "after" });
    expect(relayPagination(gql(document, { after: "String", first: "Int" }))).toEqual({
      style: "cursor",
      arg: "after",
      cursor: "data.issues.pageInfo.endCursor",
      hasMore: "data.issues.pageInfo.hasNextPage",
      items: "data.issues.nodes",
    });
  });

  it("edges when nodes are not selected; the alias is the key in data", () => {
    const edges = `query Q($cursor: String) { list: search(after: $cursor) { edges { cursor node { id } } pageInfo { endCursor hasNextPage } } }`;
    expect(relayConnection(gql(edges, { cursor: "String" }, "search"))).toEqual({ field: "list", list: "edges", afterArg: "cursor" });
  });

  it("nothing for documents that do not page: no after variable, pageInfo without the flag, nested connections, garbage", () => {
    expect(relayPagination(gql(`query { issues { nodes { id } pageInfo { hasNextPage endCursor } } }`, {}))).toBeUndefined();
    expect(relayPagination(gql(`query Q($after: String) { issues(after: $after) { nodes { id } pageInfo { endCursor } } }`, { after: "String" }))).toBeUndefined();
    expect(relayPagination(gql(`query Q($after: String) { team { issues(after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } } }`, { after: "String" }, "team"))).toBeUndefined();
    expect(relayPagination(gql("query { pageInfo {", {}))).toBeUndefined();
    expect(relayPagination({ kind: "http", method: "GET", path: "/x", parameters: [] })).toBeUndefined();
  });
});

describe("graphqlFieldHandler", () => {
  const handler = graphqlFieldHandler("issues", { omit: (key) => key === "sortOrder" });

  it("unwraps the field, prunes, collapses handles, keeps pageInfo flags when false", () => {
    const body = { data: { issues: { nodes: [{ id: "1", title: "A", sortOrder: 2, assignee: { id: "u" }, parent: null, labels: [] }, null], pageInfo: { hasNextPage: false, endCursor: null } } } };
    expect(handler(body, info)).toEqual({ nodes: [{ id: "1", title: "A", assignee: "u" }], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  it("a field that is null is null; an answer without the field is pruned as it is", () => {
    expect(handler({ data: { issues: null } }, info)).toBeNull();
    expect(handler({ data: { other: { id: "x", n: null } } }, info)).toEqual({ data: { other: "x" } });
    expect(handler("text", info)).toBe("text");
  });
});
