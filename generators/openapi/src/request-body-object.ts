import type { HttpBody, HttpBodyPropertyEncoding, HttpParameterStyle } from "@sluice/core";
import { escapePointerSegment, getOwn } from "@sluice/schema";
import { collectionFormatStyle, swagger2ParameterSchema } from "./parameter-object.ts";
import type { Located } from "@sluice/schema-convert";

/**
 * Request Body Objects (3.x) and Swagger 2.0 `in: body` / `in: formData` parameters in one
 * shape: the media type sent, how it is encoded, and the schema or the form fields.
 * https://spec.openapis.org/oas/v3.1.0#request-body-object
 * https://spec.openapis.org/oas/v3.1.0#encoding-object
 * https://swagger.io/specification/v2/#parameter-object (body, formData)
 */
export interface NormalizedBody {
  mediaType: string;
  encoding: HttpBody["encoding"];
  required: boolean;
  /** The body schema (3.x and 2.0 `in: body`). */
  schema?: Located;
  /** 2.0 `formData` parameters: already one field per parameter. */
  formFields?: { name: string; schema: Located; required: boolean; description?: string }[];
  propertyEncoding: Record<string, HttpBodyPropertyEncoding>;
}

/** Preference when a body offers several media types: JSON first, then forms, then the rest. */
function mediaRank(mediaType: string): number {
  const type = mediaType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") return 0;
  if (/[/+]json$/.test(type)) return 1;
  if (type === "application/x-www-form-urlencoded") return 2;
  if (type === "multipart/form-data") return 3;
  return 4;
}

export function bodyEncoding(mediaType: string): HttpBody["encoding"] {
  const type = mediaType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/json" || /[/+]json$/.test(type) || type === "*/*") return "json";
  if (type === "application/x-www-form-urlencoded") return "form";
  if (type.startsWith("multipart/")) return "multipart";
  if (type.startsWith("text/")) return "text";
  return "binary";
}

function pickMediaType(types: readonly string[]): string | undefined {
  return [...types].sort((a, b) => mediaRank(a) - mediaRank(b))[0];
}

/** OpenAPI 3.x `requestBody` (already dereferenced). */
export function normalizeRequestBody(body: Located): NormalizedBody | undefined {
  const content = getOwn(body.value, "content");
  if (typeof content !== "object" || content === null) return undefined;
  const mediaType = pickMediaType(Object.keys(content));
  if (mediaType === undefined) return undefined;
  const media = getOwn(content, mediaType);
  const encoding = bodyEncoding(mediaType);
  const propertyEncoding: Record<string, HttpBodyPropertyEncoding> = {};
  const encodingObject = getOwn(media, "encoding");
  if ((encoding === "form" || encoding === "multipart") && typeof encodingObject === "object" && encodingObject !== null) {
    for (const [property, spec] of Object.entries(encodingObject)) {
      const entry: HttpBodyPropertyEncoding = {};
      const style = getOwn(spec, "style");
      const explode = getOwn(spec, "explode");
      const contentType = getOwn(spec, "contentType");
      if (typeof style === "string") entry.style = style as HttpParameterStyle;
      if (typeof explode === "boolean") entry.explode = explode;
      if (typeof contentType === "string") entry.contentType = contentType;
      if (getOwn(spec, "allowReserved") === true) entry.allowReserved = true;
      if (Object.keys(entry).length > 0) Object.defineProperty(propertyEncoding, property, { value: entry, enumerable: true, writable: true, configurable: true });
    }
  }
  const schema = getOwn(media, "schema");
  return {
    mediaType,
    encoding,
    required: getOwn(body.value, "required") === true,
    ...(schema === undefined
      ? {}
      : { schema: { value: schema, document: body.document, pointer: `${body.pointer}/content/${escapePointerSegment(mediaType)}/schema` } }),
    propertyEncoding,
  };
}

/** Swagger 2.0: the `in: body` parameter, or the `in: formData` parameters, of one operation. */
export function swagger2Body(parameters: readonly Located[], consumes: readonly string[]): NormalizedBody | undefined {
  const body = parameters.find((p) => getOwn(p.value, "in") === "body");
  if (body !== undefined) {
    const mediaType = pickMediaType(consumes.length > 0 ? consumes : ["application/json"]) ?? "application/json";
    const schema = getOwn(body.value, "schema");
    return {
      mediaType,
      encoding: bodyEncoding(mediaType),
      required: getOwn(body.value, "required") === true,
      ...(schema === undefined ? {} : { schema: { value: schema, document: body.document, pointer: `${body.pointer}/schema` } }),
      propertyEncoding: {},
    };
  }
  const form = parameters.filter((p) => getOwn(p.value, "in") === "formData" && typeof getOwn(p.value, "name") === "string");
  if (form.length === 0) return undefined;
  const hasFile = form.some((p) => getOwn(p.value, "type") === "file");
  const urlencoded = consumes.some((type) => bodyEncoding(type) === "form");
  const mediaType = hasFile || !urlencoded ? "multipart/form-data" : "application/x-www-form-urlencoded";
  const propertyEncoding: Record<string, HttpBodyPropertyEncoding> = {};
  const formFields = form.map((p) => {
    const name = getOwn(p.value, "name") as string;
    const format = getOwn(p.value, "collectionFormat");
    if (getOwn(p.value, "type") === "array" && typeof format === "string") {
      Object.defineProperty(propertyEncoding, name, { value: collectionFormatStyle(format, "formData"), enumerable: true, writable: true, configurable: true });
    }
    const description = getOwn(p.value, "description");
    return {
      name,
      schema: { value: swagger2ParameterSchema(p.value), document: p.document, pointer: p.pointer },
      required: getOwn(p.value, "required") === true,
      ...(typeof description === "string" && description !== "" ? { description } : {}),
    };
  });
  return { mediaType, encoding: bodyEncoding(mediaType), required: formFields.some((f) => f.required), formFields, propertyEncoding };
}
