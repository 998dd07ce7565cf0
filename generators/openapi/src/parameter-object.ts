import type { HttpParameterLocation, HttpParameterStyle } from "@sluice/core";
import { getOwn } from "@sluice/schema";
import type { Dialect, Located } from "@sluice/schema-convert";

/**
 * Parameter Objects of 3.x and Swagger 2.0 (non-body) in one shape, with `style` and
 * `explode` made explicit.
 * https://spec.openapis.org/oas/v3.1.0#parameter-object (style defaults: #style-values)
 * https://swagger.io/specification/v2/#parameter-object (collectionFormat)
 */
export interface NormalizedParameter {
  name: string;
  in: HttpParameterLocation;
  required: boolean;
  /** The schema node (3.x `schema` / `content[*].schema`; 2.0 the parameter itself). */
  schema: Located;
  description?: string;
  deprecated: boolean;
  style: HttpParameterStyle;
  explode: boolean;
  allowReserved: boolean;
  contentType?: string;
}

/** Why an operation cannot be generated because of one parameter. */
export class UnsupportedParameter extends Error {}

const LOCATIONS = new Set(["path", "query", "header", "cookie"]);
/**
 * https://spec.openapis.org/oas/v3.1.0#fixed-fields-9: these header parameters "SHALL be
 * ignored". `Authorization` is ignored too, but not silently: it is withheld as a credential
 * header (see CREDENTIAL_HEADERS), so the egress map says why it is not an argument.
 */
const IGNORED_HEADERS = new Set(["accept", "content-type"]);

/**
 * Headers that carry a credential or a session. A header parameter of one of these names is
 * never an argument: the model would choose whose session or token the call is made with.
 * (The call runtime refuses them too: @sluice/core http/wire-names.ts.)
 */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(["authorization", "proxy-authorization", "cookie"]);

/** Default style per location (3.1 §4.8.12.4): query/cookie `form`, path/header `simple`. */
export function defaultStyle(location: HttpParameterLocation): HttpParameterStyle {
  return location === "query" || location === "cookie" ? "form" : "simple";
}

/** Swagger 2.0 `collectionFormat` -> OpenAPI 3 style and explode; `tsv` has no OpenAPI 3 equivalent. */
export function collectionFormatStyle(format: string, location: HttpParameterLocation | "formData"): { style: HttpParameterStyle; explode: boolean } {
  switch (format) {
    case "csv":
      return { style: location === "path" || location === "header" ? "simple" : "form", explode: false };
    case "ssv":
      return { style: "spaceDelimited", explode: false };
    case "pipes":
      return { style: "pipeDelimited", explode: false };
    case "multi":
      return { style: "form", explode: true };
    case "tsv":
      throw new UnsupportedParameter("collectionFormat tsv has no OpenAPI 3 serialization style");
    default:
      throw new UnsupportedParameter(`unknown collectionFormat ${JSON.stringify(format)}`);
  }
}

/**
 * One Parameter Object (already dereferenced). Returns undefined for parameters that are
 * not arguments: ignored headers, and 2.0 `body` / `formData` (request body, handled there).
 */
export function normalizeParameter(parameter: Located, dialect: Dialect): NormalizedParameter | undefined {
  const value = parameter.value;
  const name = getOwn(value, "name");
  const location = getOwn(value, "in");
  if (typeof name !== "string" || typeof location !== "string" || !LOCATIONS.has(location)) return undefined;
  const where = location as HttpParameterLocation;
  if (where === "header" && IGNORED_HEADERS.has(name.toLowerCase())) return undefined;
  const description = getOwn(value, "description");
  // Built field by field: spreading a partial object of varying shape was the slowest line
  // of Kubernetes' IR (8,000 parameters).
  const required = where === "path" || getOwn(value, "required") === true;
  const deprecated = getOwn(value, "deprecated") === true;
  let normalized: NormalizedParameter;
  if (dialect === "2.0") {
    const format = getOwn(value, "type") === "array" ? getOwn(value, "collectionFormat") ?? "csv" : undefined;
    const serialization = typeof format === "string" ? collectionFormatStyle(format, where) : { style: defaultStyle(where), explode: defaultStyle(where) === "form" };
    normalized = { name, in: where, required, deprecated, schema: parameter, style: serialization.style, explode: serialization.explode, allowReserved: false };
  } else {
    const style = getOwn(value, "style");
    const explode = getOwn(value, "explode");
    const resolvedStyle = typeof style === "string" ? (style as HttpParameterStyle) : defaultStyle(where);
    const content = getOwn(value, "content");
    const mediaType = typeof content === "object" && content !== null ? Object.keys(content)[0] : undefined;
    const schemaNode = mediaType === undefined ? getOwn(value, "schema") : getOwn(getOwn(content, mediaType), "schema");
    const schemaPointer = mediaType === undefined ? `${parameter.pointer}/schema` : `${parameter.pointer}/content/${mediaType.replace(/~/g, "~0").replace(/\//g, "~1")}/schema`;
    normalized = {
      name,
      in: where,
      required,
      deprecated,
      schema: { value: schemaNode ?? {}, document: parameter.document, pointer: schemaPointer },
      style: resolvedStyle,
      explode: typeof explode === "boolean" ? explode : resolvedStyle === "form",
      allowReserved: getOwn(value, "allowReserved") === true,
    };
    if (mediaType !== undefined) normalized.contentType = mediaType;
  }
  if (typeof description === "string" && description !== "") normalized.description = description;
  return normalized;
}

/** Swagger 2.0 keywords of a non-body parameter that describe its value (the rest describe the parameter). */
const SWAGGER2_PARAMETER_ONLY = new Set(["name", "in", "required", "description", "allowEmptyValue", "collectionFormat"]);

/** A Swagger 2.0 non-body parameter's value schema (its items may have their own collectionFormat, ignored). */
export function swagger2ParameterSchema(parameter: unknown): Record<string, unknown> {
  if (typeof parameter !== "object" || parameter === null) return {};
  return Object.fromEntries(Object.entries(parameter).filter(([key]) => !SWAGGER2_PARAMETER_ONLY.has(key)));
}
