// swagger-client ships no types. The reference test loads only its request builder (the
// module `SwaggerClient.buildRequest` re-exports), which halves the import time.
declare module "swagger-client/es/execute/index.js" {
  export function buildRequest(options: Record<string, unknown>): { url: string; method: string; headers: Record<string, unknown>; body?: unknown };
}
