import { getOwn } from "@sluice/schema";

/**
 * The base URL calls go to: the first Server Object of the operation, its path item or the
 * document (3.x, variables replaced by their defaults), or `schemes[0]://host basePath` (2.0).
 * https://spec.openapis.org/oas/v3.1.0#server-object
 * https://swagger.io/specification/v2/#swagger-object (host, basePath, schemes)
 */
export function serverUrl(...serverLists: unknown[]): string | undefined {
  for (const servers of serverLists) {
    if (!Array.isArray(servers) || servers.length === 0) continue;
    const server: unknown = servers[0];
    const url = getOwn(server, "url");
    if (typeof url !== "string") continue;
    const variables = getOwn(server, "variables");
    return url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const value = getOwn(getOwn(variables, name), "default");
      return typeof value === "string" ? value : whole;
    });
  }
  return undefined;
}

export function swagger2ServerUrl(root: unknown): string | undefined {
  const host = getOwn(root, "host");
  const basePath = getOwn(root, "basePath");
  const schemes = getOwn(root, "schemes");
  const base = typeof basePath === "string" && basePath !== "/" ? basePath : "";
  if (typeof host !== "string") return base === "" ? undefined : base;
  const scheme = Array.isArray(schemes) && typeof schemes[0] === "string" ? schemes[0] : "https";
  return `${scheme}://${host}${base}`;
}
