/**
 * A recording HTTP server for egress tests, on the shared local-server plumbing
 * (127.0.0.1, ephemeral port, every request recorded before it is answered, hard close).
 * It answers a plausible JSON 200: what it answers does not matter to the tests that use
 * it, they look only at what reached it.
 */
import { sendJson, startHttpServer, type LocalServer, type RecordedRequest } from "./servers/http.ts";

export type RecordingServer = LocalServer;

/** Everything a request carried, as one text in which a marker string can be searched for. */
export function wireText(request: RecordedRequest): string {
  const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`).join("\n");
  return `${request.method} ${request.path}\n${headers}\n\n${request.body}`;
}

export function startRecordingServer(): Promise<RecordingServer> {
  return startHttpServer((request, res) => {
    const path = request.path.split("?")[0]!;
    sendJson(res, 200, path.endsWith("/graphql") ? { data: null } : {});
  });
}
