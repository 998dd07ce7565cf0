import type { HttpAuthScheme } from "@sluice/core";
import { getOwn } from "@sluice/schema";
import type { Dialect, RefResolver } from "@sluice/schema-convert";

/**
 * Security Scheme Objects and Security Requirement Objects -> `HttpBinding.auth`.
 * OAuth2 and OpenID Connect are sent as bearer tokens. Operation-level `security` replaces
 * the document's; `[]` means no authentication, `{}` inside the list means optional.
 * https://spec.openapis.org/oas/v3.1.0#security-scheme-object
 * https://spec.openapis.org/oas/v3.1.0#security-requirement-object
 * https://swagger.io/specification/v2/#security-definitions-object
 */
export class SecuritySchemes {
  private readonly schemes = new Map<string, HttpAuthScheme | undefined>();

  constructor(root: unknown, dialect: Dialect, resolver: RefResolver) {
    const table = dialect === "2.0" ? getOwn(root, "securityDefinitions") : getOwn(getOwn(root, "components"), "securitySchemes");
    if (typeof table !== "object" || table === null) return;
    for (const [name, raw] of Object.entries(table)) {
      let definition: unknown;
      try {
        definition = resolver.deref(raw, resolver.main, `/components/securitySchemes/${name}`).value;
      } catch {
        definition = undefined;
      }
      this.schemes.set(name, authScheme(name, definition));
    }
  }

  /**
   * Lower-case names the document's apiKey schemes send in one location, whether or not an
   * operation uses them: a parameter of that name would let the model choose a credential.
   */
  wireNames(location: "query" | "header" | "cookie"): Set<string> {
    const out = new Set<string>();
    for (const scheme of this.schemes.values()) if (scheme?.type === "apiKey" && scheme.in === location) out.add(scheme.name.toLowerCase());
    return out;
  }

  /** Auth alternatives for one operation; undefined when the document says nothing usable. */
  requirementsFor(operationSecurity: unknown, documentSecurity: unknown): HttpAuthScheme[][] | undefined {
    const requirements = Array.isArray(operationSecurity) ? operationSecurity : documentSecurity;
    if (!Array.isArray(requirements)) return undefined;
    const alternatives: HttpAuthScheme[][] = [];
    for (const requirement of requirements) {
      if (typeof requirement !== "object" || requirement === null) continue;
      const schemes = Object.keys(requirement).map((name) => this.schemes.get(name));
      // An alternative naming a scheme sluice cannot send (unknown, or e.g. HTTP digest) is not offered.
      if (schemes.every((scheme): scheme is HttpAuthScheme => scheme !== undefined)) alternatives.push(schemes);
    }
    return requirements.length > 0 && alternatives.length === 0 ? undefined : alternatives;
  }
}

function authScheme(name: string, definition: unknown): HttpAuthScheme | undefined {
  const type = getOwn(definition, "type");
  switch (type) {
    case "http": {
      const scheme = String(getOwn(definition, "scheme") ?? "").toLowerCase();
      if (scheme === "bearer") return { scheme: name, type: "bearer" };
      if (scheme === "basic") return { scheme: name, type: "basic" };
      return undefined;
    }
    case "basic":
      return { scheme: name, type: "basic" };
    case "oauth2":
    case "openIdConnect":
      return { scheme: name, type: "bearer" };
    case "apiKey": {
      const where = getOwn(definition, "in");
      const header = getOwn(definition, "name");
      if ((where === "header" || where === "query" || where === "cookie") && typeof header === "string") return { scheme: name, type: "apiKey", in: where, name: header };
      return undefined;
    }
    default:
      return undefined;
  }
}
