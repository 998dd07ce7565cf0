/**
 * In-process HTTP servers for end-to-end tests and benchmarks of the call runtime. Each
 * binds 127.0.0.1 on an ephemeral port, records every request, and closes hard.
 *
 *   startGraphQLServer     a real SDL at POST /graphql, validated, with deterministic mocks
 *   startOpenApiMockServer a REST API from its OpenAPI / Swagger document, validated
 *   startFaultServer       broken upstream behaviours, one per path
 */
export type { LocalServer, RecordedRequest } from "./http.ts";
export { startGraphQLServer, type GraphQLServer, type GraphQLServerOptions } from "./graphql.ts";
export { startOpenApiMockServer, type MockResponse, type OpenApiMockOptions, type OpenApiMockServer, type Violation } from "./openapi.ts";
export { HUGE_BODY_BYTES, startFaultServer } from "./fault.ts";
