/**
 * A GraphQL endpoint over a real SDL, for calling generated GraphQL tools end to end.
 * Documents are parsed and validated against the schema by graphql-js exactly as a real
 * server would (errors answer HTTP 200 with `errors`), variables are coerced by
 * graphql-js, and execution runs on deterministic mocks (see graphql-mocks.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { graphql, graphqlMock, type GraphQLJs, type GraphQLMock } from "./graphql-runtime.ts";
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

/**
 * The store of the server whose request is executing. The mocked schema is shared by
 * every server on the same SDL, so its resolvers find their server's store here.
 */
const activeStore = new AsyncLocalStorage<GraphQLMock.IMockStore>();

/** Stands in for a MockStore inside addMocksToSchema; every use goes to the active one. */
function forwardingStore(): GraphQLMock.IMockStore {
  return new Proxy({} as GraphQLMock.IMockStore, {
    get(_target, property) {
      const store = activeStore.getStore();
      if (store === undefined) throw new Error("mock store used outside a request");
      const value = (store as unknown as Record<PropertyKey, unknown>)[property];
      return typeof value === "function" ? value.bind(store) : value;
    },
  });
}

interface LoadedSchema {
  schema: GraphQLJs.GraphQLSchema;
  executable: GraphQLJs.GraphQLSchema;
}

/**
 * Building a multi-megabyte SDL and rewriting it with mock resolvers take seconds (the
 * rewrite is most of it), and neither result holds per-server state, so both are made
 * once per file and process.
 */
const schemaCache = new Map<string, LoadedSchema>();

function loadSchema(sdlFile: string): LoadedSchema {
  const key = resolve(sdlFile);
  let loaded = schemaCache.get(key);
  if (loaded === undefined) {
    const schema = graphql.buildSchema(readFileSync(key, "utf8"), { assumeValidSDL: true });
    const executable = graphqlMock.addMocksToSchema({ schema, store: forwardingStore(), preserveResolvers: false });
    loaded = { schema, executable };
    schemaCache.set(key, loaded);
  }
  return loaded;
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
  const { schema, executable } = loadSchema(options.sdlFile);
  const state = buildMocks(schema, { listLength: options.listLength ?? 10, seed: options.seed ?? 1 });
  const store = graphqlMock.createMockStore({ schema, mocks: state.mocks, mockGenerationBehavior: "deterministic" });
  state.bindStore(store);
  const errors: string[] = [];

  const answerErrors = (res: Parameters<typeof sendJson>[0], list: readonly { message: string }[], status = 200) => {
    for (const e of list) errors.push(e.message);
    sendJson(res, status, { errors: list.map((e) => ("toJSON" in e && typeof e.toJSON === "function" ? e.toJSON() : { message: e.message })) });
  };

  const server = await startHttpServer(async (request, res) => {
    const url = new URL(request.path, "http://127.0.0.1");
    if (url.pathname !== "/graphql") {
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
    const result = await activeStore.run(store, () =>
      graphql.execute({
        schema: executable,
        document,
        variableValues: params.variables ?? null,
        operationName: params.operationName ?? null,
      }),
    );
    if (result.errors) for (const e of result.errors) errors.push(e.message);
    sendJson(res, 200, result);
  });

  return Object.assign(server, { errors });
}
