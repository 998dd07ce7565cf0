import { SluiceError } from "@sluice/schema";
import type { HttpAuthScheme } from "../tool-ir.ts";
import type { HttpRequestAdditions } from "./build-request.ts";

/** A credential for one scheme: a token (bearer, API key) or a user and password (basic). */
export type HttpCredential = { token: string } | { username: string; password: string };

/**
 * The seam where authentication meets a request: the header, query or cookie additions
 * for one security requirement (every scheme of the list), given credentials by scheme
 * name. Pass the result as `buildHttpRequest(..., { additions })`. Choosing among
 * alternative requirements and where credentials come from belong to the call runtime.
 */
export function authAdditions(requirement: readonly HttpAuthScheme[], credentials: Readonly<Record<string, HttpCredential>>): HttpRequestAdditions {
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  const cookies: [string, string][] = [];
  for (const scheme of requirement) {
    const credential = Object.prototype.hasOwnProperty.call(credentials, scheme.scheme) ? credentials[scheme.scheme] : undefined;
    if (credential === undefined) throw new SluiceError("INVALID_OPTION", `no credential for security scheme ${scheme.scheme}`);
    if (scheme.type === "basic") {
      if (!("username" in credential)) throw new SluiceError("INVALID_OPTION", `security scheme ${scheme.scheme} needs a username and password`);
      headers["authorization"] = "Basic " + Buffer.from(`${credential.username}:${credential.password}`, "utf8").toString("base64");
      continue;
    }
    if (!("token" in credential)) throw new SluiceError("INVALID_OPTION", `security scheme ${scheme.scheme} needs a token`);
    if (scheme.type === "bearer") headers["authorization"] = `Bearer ${credential.token}`;
    else if (scheme.in === "header") headers[scheme.name.toLowerCase()] = credential.token;
    else if (scheme.in === "query") query.push([scheme.name, credential.token]);
    else cookies.push([scheme.name, credential.token]);
  }
  return { headers, query, cookies };
}
