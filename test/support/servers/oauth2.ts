/**
 * A local OAuth 2 token server (RFC 6749 client-credentials and rotating refresh-token
 * grants, client authentication by HTTP Basic) and an API that accepts only tokens it
 * issued and has not revoked, for tests of credentials that stay valid. Both on 127.0.0.1.
 */
import { sendJson, startHttpServer, type LocalServer } from "./http.ts";

export interface OAuth2Clients {
  /** client id -> secret */
  [clientId: string]: string;
}

export interface OAuth2TokenServer extends LocalServer {
  /** `<url>/oauth/token` */
  tokenUrl: string;
  /** Access tokens issued, in order, with the client they were issued to. */
  issued: { token: string; clientId: string }[];
  revoked: Set<string>;
  refreshTokens: Map<string, string>;
}

export async function startOAuth2TokenServer(clients: OAuth2Clients, options: { expiresIn?: number } = {}): Promise<OAuth2TokenServer> {
  const issued: { token: string; clientId: string }[] = [];
  const refreshTokens = new Map<string, string>();
  const server = await startHttpServer((request, res) => {
    const form = new URLSearchParams(request.body);
    const basic = /^Basic (.+)$/.exec(request.headers["authorization"] ?? "")?.[1];
    const [id, secret] = basic === undefined ? [] : Buffer.from(basic, "base64").toString("utf8").split(":").map(decodeURIComponent);
    if (id === undefined || !Object.hasOwn(clients, id) || clients[id] !== secret) return sendJson(res, 401, { error: "invalid_client" });
    const grant = form.get("grant_type");
    let refresh: string | undefined;
    if (grant === "refresh_token") {
      const given = form.get("refresh_token") ?? "";
      if (refreshTokens.get(given) !== id) return sendJson(res, 400, { error: "invalid_grant" });
      refreshTokens.delete(given);
      refresh = `rt_${id}_${issued.length + 1}_rotated_000000`;
      refreshTokens.set(refresh, id);
    } else if (grant !== "client_credentials") return sendJson(res, 400, { error: "unsupported_grant_type" });
    const token = `at_${id}_${issued.length + 1}_${"0".repeat(20)}`;
    issued.push({ token, clientId: id });
    sendJson(res, 200, { access_token: token, token_type: "bearer", expires_in: options.expiresIn ?? 3600, ...(refresh === undefined ? {} : { refresh_token: refresh }) });
  });
  return { ...server, tokenUrl: `${server.url}/oauth/token`, issued, revoked: new Set(), refreshTokens };
}

/** An API that answers `{ client, path }` for a live token of the server, 401 otherwise. */
export async function startOAuth2Api(tokens: OAuth2TokenServer): Promise<LocalServer> {
  return startHttpServer((request, res) => {
    const token = /^Bearer (.+)$/.exec(request.headers["authorization"] ?? "")?.[1];
    const entry = tokens.issued.find((issued) => issued.token === token);
    if (entry === undefined || tokens.revoked.has(entry.token)) return sendJson(res, 401, { error: "invalid_token" });
    sendJson(res, 200, { client: entry.clientId, path: request.path });
  });
}
