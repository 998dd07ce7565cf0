/**
 * A GraphQL endpoint over a real SDL, for calling generated GraphQL tools end to end.
 * Documents are parsed and validated against the schema by graphql-js exactly as a real
 * server would (errors answer HTTP 200 with `errors`), variables are coerced by
 * graphql-js, and execution runs on deterministic mocks (see graphql-mocks.ts).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { graphql, graphqlMock, type GraphQLJs } from "./graphql-runtime.ts";
import { buildMocks } from "./graphql-mocks.ts";
import { sendJson, startHttpServer, type LocalServer, type RecordedRequest } from "./http.ts";

export interface GraphQLServerOptions {
  /** Path to an SDL file (e.g. packs/linear/spec/schema.graphql). */
  sdlFile: string;
  /** Items in every list and connection page (default 10). */
  listLength?: number;
  /** Seeds the value generator (default 1). */
  seed?: number;
}

export interface GraphQLServer extends LocalServer {
  /** Messages of every parse, validation, variable and execution error answered. */
  errors: string[];
}

/** Parsing a multi-megabyte SDL is the slow part; the built schema is immutable, so share it. */
const schemaCache = new Map<string, GraphQLJs.GraphQLSchema>();

function loadSchema(sdlFile: string): GraphQLJs.GraphQLSchema {
  const key = resolve(sdlFile);
  let schema = schemaCache.get(key);
  if (schema === undefined) {
    schema = graphql.buildSchema(readFileSync(key, "utf8"), { assumeValidSDL: true });
    schemaCache.set(key, schema);
  }
  return schema;
}

interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** Reads query/variables/operationName from a POST JSON body or GET query string. */
function readParams(request: RecordedRequest, url: URL): GraphQLParams | string {
  if (request.method === "GET") {
    const query = url.searchParams.get("query");
    if (query === null) return "Must provide query string.";
    const out: GraphQLParams = { query };
    const variables = url.searchParams.get("variables");
    if (variables !== null) {
      try {
        out.variables = JSON.parse(variables) as Record<string, unknown>;
      } catch {
        return "Variables are invalid JSON.";
      }
    }
    const operationName = url.searchParams.get("operationName");
    if (operationName !== null) out.operationName = operationName;
    return out;
  }
  const body = request.json;
  if (body === undefined) return request.body.trim() === "" ? "POST body missing." : "POST body is not valid JSON.";
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "POST body must be a JSON object.";
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== "string") return "Must provide query string.";
  const out: GraphQLParams = { query };
  if (variables !== undefined && variables !== null) {
    if (typeof variables !== "object" || Array.isArray(variables)) return "Variables must be an object.";
    out.variables = variables as Record<string, unknown>;
  }
  if (typeof operationName === "string") out.operationName = operationName;
  return out;
}

/** Starts a GraphQL server for `sdlFile` at `POST /graphql` (GET with `?query=` also works). */
export async function startGraphQLServer(options: GraphQLServerOptions): Promise<GraphQLServer> {
  const schema = loadSchema(options.sdlFile);
  const state = buildMocks(schema, { listLength: options.listLength ?? 10, seed: options.seed ?? 1 });
  const store = graphqlMock.createMockStore({ schema, mocks: state.mocks, mockGenerationBehavior: "deterministic" });
  state.bindStore(store);
  const executable = graphqlMock.addMocksToSchema({ schema, store, preserveResolvers: false });
  const errors: string[] = [];

  const answerErrors = (res: Parameters<typeof sendJson>[0], list: readonly { message: string }[], status = 200) => {
    for (const e of list) errors.push(e.message);
    sendJson(res, status, { errors: list.map((e) => ("toJSON" in e && typeof e.toJSON === "function" ? e.toJSON() : { message: e.message })) });
  };

  const server = await startHttpServer(async (request, res) => {
    const url = new URL(request.path, "http://127.0.0.1");
    if (url.pathname !== "/graphql" && url.pathname !== "/graphql/") {
      sendJson(res, 404, { errors: [{ message: `No GraphQL endpoint at ${url.pathname}; use /graphql` }] });
      return;
    }
    if (request.method !== "POST" && request.method !== "GET") {
      sendJson(res, 405, { errors: [{ message: `Method ${request.method} not allowed; use POST` }] }, { allow: "GET, POST" });
      return;
    }
    const params = readParams(request, url);
    if (typeof params === "string") {
      answerErrors(res, [{ message: params }], 400);
      return;
    }
    let document: GraphQLJs.DocumentNode;
    try {
      document = graphql.parse(params.query);
    } catch (error) {
      answerErrors(res, [error instanceof graphql.GraphQLError ? error : { message: String(error) }]);
      return;
    }
    const invalid = graphql.validate(schema, document);
    if (invalid.length > 0) {
      answerErrors(res, invalid);
      return;
    }
    const result = await graphql.execute({
      schema: executable,
      document,
      variableValues: params.variables ?? null,
      operationName: params.operationName ?? null,
    });
    if (result.errors) for (const e of result.errors) errors.push(e.message);
    sendJson(res, 200, result);
  });

  return Object.assign(server, { errors });
}
