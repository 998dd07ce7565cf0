/**
 * A spec the corpus lacks: one operation per serialization case OpenAPI 3.1 defines
 * (§4.8.12.4 style values, §4.8.15 Encoding Object), so every `style` x `explode` x
 * location x value shape, `allowReserved`, `content`-serialized parameters, form and
 * multipart bodies with their encodings, and optional parameters left out are all built by
 * both builders. Real specs use few of these; the reference test sweeps them all.
 */

type Json = Record<string, unknown>;

const SHAPES: Record<string, Json> = {
  primitive: { type: "string" },
  array: { type: "array", items: { type: "string" } },
  object: { type: "object", properties: { r: { type: "string" }, g: { type: "string" } }, required: ["r"] },
  map: { type: "object", additionalProperties: { type: "string" } },
};

const STYLES: Record<"path" | "query" | "header" | "cookie", readonly string[]> = {
  path: ["simple", "label", "matrix"],
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
};

/** Shapes a style defines in the 3.1 style table (spaceDelimited and pipeDelimited: arrays and objects; deepObject: objects). */
function shapesOf(style: string): string[] {
  if (style === "spaceDelimited" || style === "pipeDelimited") return ["array", "object"];
  if (style === "deepObject") return ["object", "map"];
  return Object.keys(SHAPES);
}

export interface HardCaseOperation {
  operationId: string;
  method: string;
  path: string;
}

/** The document, OpenAPI 3.1, with one server on 127.0.0.1 (nothing is sent: both builders only build). */
export function hardCaseSpec(): Json {
  const paths: Record<string, Json> = {};
  const add = (path: string, method: string, operation: Json): void => {
    paths[path] = { ...(paths[path] ?? {}), [method]: operation };
  };
  for (const [location, styles] of Object.entries(STYLES)) {
    for (const style of styles) {
      for (const explode of [false, true]) {
        for (const shape of shapesOf(style)) {
          if (style === "deepObject" && !explode) continue; // deepObject is defined for explode true only
          const reserved = location === "query" ? [false, true] : [false];
          for (const allowReserved of reserved) {
            const id = `${location}_${style}_${explode ? "explode" : "flat"}_${shape}${allowReserved ? "_reserved" : ""}`;
            const parameter: Json = { name: `v_${id}`, in: location, style, explode, schema: SHAPES[shape] };
            if (allowReserved) parameter["allowReserved"] = true;
            if (location === "path") parameter["required"] = true;
            // A second, optional parameter beside it: drawn absent as often as present.
            const other: Json = { name: "other", in: "query", schema: { type: "string" } };
            const path = location === "path" ? `/path/${id}/{v_${id}}` : `/${location}/${id}`;
            add(path, "get", { operationId: id, parameters: [parameter, other], responses: { "200": { description: "ok" } } });
          }
        }
      }
    }
  }
  // `content`-serialized parameters (JSON in a query, header and cookie value).
  for (const location of ["query", "header", "cookie"]) {
    add(`/content/${location}`, "get", {
      operationId: `content_${location}`,
      parameters: [{ name: `json_${location}`, in: location, content: { "application/json": { schema: SHAPES["object"] } } }],
      responses: { "200": { description: "ok" } },
    });
  }
  const bodyProperties: Json = {
    text: { type: "string" },
    count: { type: "integer" },
    flag: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    meta: SHAPES["object"],
  };
  const encodings: Record<string, Json | undefined> = {
    default: undefined,
    flat: { tags: { style: "form", explode: false } },
    space: { tags: { style: "spaceDelimited", explode: false } },
    pipe: { tags: { style: "pipeDelimited", explode: false } },
    deep: { meta: { style: "deepObject", explode: true } },
    reserved: { text: { allowReserved: true }, tags: { allowReserved: true } },
    json: { meta: { contentType: "application/json" } },
  };
  for (const media of ["application/x-www-form-urlencoded", "multipart/form-data"]) {
    for (const [name, encoding] of Object.entries(encodings)) {
      if (media === "multipart/form-data" && name !== "default" && name !== "json") continue; // style applies to form bodies only (3.1 §4.8.15.1)
      const id = `body_${media === "multipart/form-data" ? "multipart" : "form"}_${name}`;
      const content: Json = { schema: { type: "object", properties: bodyProperties, required: ["text"] } };
      if (encoding !== undefined) content["encoding"] = encoding;
      add(`/${id}`, "post", { operationId: id, requestBody: { required: true, content: { [media]: content } }, responses: { "200": { description: "ok" } } });
    }
  }
  add("/body_json", "post", {
    operationId: "body_json",
    requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: bodyProperties, required: ["text"] } } } },
    responses: { "200": { description: "ok" } },
  });
  return { openapi: "3.1.0", info: { title: "serialization cases", version: "1" }, servers: [{ url: "http://127.0.0.1:9/v1" }], paths };
}
