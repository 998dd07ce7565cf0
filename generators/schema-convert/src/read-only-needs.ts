import { escapePointerSegment, getOwn } from "@sluice/schema";
import { MAX_SCHEMA_DEPTH } from "./max-schema-depth.ts";
import type { Located, RefResolver, SourceDocument } from "./reference-object.ts";

/**
 * Where a request needs a member its spec marks `readOnly` (docs/openapi-read-only.md, the
 * rules "sent by the spec's own examples" and "an identifier in an array item or a
 * reference"), read from the whole main document: its request bodies and their examples,
 * every operation's, so the answer is the same whichever operations are generated.
 *
 * Keys are `document#pointer` of the schema whose `properties` declares the member, as the
 * converter keys the schema it converts.
 */
export interface ReadOnlyNeeds {
  /** Read-only members a request example of the document sends, by the schema declaring them. */
  sentByExamples: Map<string, Set<string>>;
  /** Schemas reached in a request body as an array item or as a reference-shaped object: their identifiers are offered. */
  identifierHolders: Set<string>;
}

/** `id`, `tag_id`, `tagId`, `uuid`: the names an API identifies an existing thing by. */
export function isIdentifierName(name: string): boolean {
  return /^(?:id|uuid)$/i.test(name) || /[_-](?:id|uuid)$/i.test(name) || /[a-z0-9](?:Id|ID|Uuid|UUID)$/.test(name);
}

/** Nodes a walk visits at most: a bound on a hostile document, far above a real one. */
const MAX_VISITS = 400_000;
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface Place {
  node: unknown;
  document: SourceDocument;
  pointer: string;
}

/** A request body's schema and the examples the document gives of it. */
export interface RequestBodySchema {
  schema: Located;
  examples: unknown[];
}

/**
 * `requestBodies`: the request bodies to read, for a document that is no OpenAPI document
 * (a JSON Schema bundle has no `paths`); by default every operation's, found under `paths`.
 */
export function readOnlyNeeds(resolver: RefResolver, isReadOnly: (member: unknown, document: SourceDocument) => boolean, requestBodies?: readonly RequestBodySchema[]): ReadOnlyNeeds {
  const sentByExamples = new Map<string, Set<string>>();
  const identifierHolders = new Set<string>();
  let visits = 0;

  const follow = (place: Place): Place => {
    let { node, document, pointer } = place;
    for (let hops = 0; typeof getOwn(node, "$ref") === "string" && hops < 32; hops += 1) {
      try {
        ({ value: node, document, pointer } = resolver.resolve(getOwn(node, "$ref") as string, document));
      } catch {
        return { node: undefined, document, pointer };
      }
    }
    return { node, document, pointer };
  };

  /** The object schemas one value is checked against: the node and its `allOf` / `oneOf` / `anyOf` parts, refs followed. */
  const parts = (start: Place): Place[] => {
    const out: Place[] = [];
    const seen = new Set<string>();
    const queue = [start];
    while (queue.length > 0 && visits < MAX_VISITS) {
      const place = follow(queue.pop()!);
      visits += 1;
      const key = `${place.document.id}#${place.pointer}`;
      if (typeof place.node !== "object" || place.node === null || seen.has(key)) continue;
      seen.add(key);
      out.push(place);
      for (const keyword of ["allOf", "oneOf", "anyOf"]) {
        const list = getOwn(place.node, keyword);
        if (Array.isArray(list)) list.forEach((branch, index) => queue.push({ node: branch, document: place.document, pointer: `${place.pointer}/${keyword}/${index}` }));
      }
      // A discriminator base stands for the subtypes its mapping names: their members are sent under it.
      const mapping = getOwn(getOwn(place.node, "discriminator"), "mapping");
      if (typeof mapping === "object" && mapping !== null) {
        for (const target of Object.values(mapping)) if (typeof target === "string" && target.includes("#")) queue.push({ node: { $ref: target }, document: place.document, pointer: place.pointer });
      }
    }
    return out;
  };

  const membersOf = (place: Place): [string, unknown][] => {
    const properties = getOwn(place.node, "properties");
    return typeof properties === "object" && properties !== null ? Object.entries(properties) : [];
  };

  // A value sent by an example, against the schema it is sent under: every read-only member it carries is recorded.
  const exampleSends = (value: unknown, schema: Place, depth: number): void => {
    if (depth > MAX_SCHEMA_DEPTH || visits >= MAX_VISITS || typeof value !== "object" || value === null) return;
    const found = parts(schema);
    if (Array.isArray(value)) {
      for (const place of found) {
        const items = getOwn(place.node, "items");
        if (typeof items !== "object" || items === null || Array.isArray(items)) continue;
        for (const item of value) exampleSends(item, { node: items, document: place.document, pointer: `${place.pointer}/items` }, depth + 1);
      }
      return;
    }
    for (const [name, member] of Object.entries(value)) {
      for (const place of found) {
        const declared = getOwn(getOwn(place.node, "properties"), name);
        if (declared === undefined) continue;
        if (isReadOnly(declared, place.document)) {
          const key = `${place.document.id}#${place.pointer}`;
          sentByExamples.set(key, (sentByExamples.get(key) ?? new Set()).add(name));
        }
        exampleSends(member, { node: declared, document: place.document, pointer: `${place.pointer}/properties/${escapePointerSegment(name)}` }, depth + 1);
      }
    }
  };

  // A request body schema, walked for the places where an identifier names an existing thing.
  const seenSchemas = new Set<string>();
  const bodySchema = (start: Place, asItem: boolean, depth: number): void => {
    if (depth > MAX_SCHEMA_DEPTH || visits >= MAX_VISITS) return;
    const found = parts(start);
    const first = follow(start);
    const mark = `${first.document.id}#${first.pointer}|${asItem}`;
    if (seenSchemas.has(mark)) return;
    seenSchemas.add(mark);
    // Reference-shaped: every member it declares is read-only but its identifiers and a `type` tag.
    const members = found.flatMap((place) => membersOf(place).map(([name, member]) => ({ name, readOnly: isReadOnly(member, place.document), place })));
    const reference = members.some((m) => m.readOnly && isIdentifierName(m.name)) && members.every((m) => m.readOnly || m.name === "type" || isIdentifierName(m.name));
    for (const place of found) {
      const key = `${place.document.id}#${place.pointer}`;
      if ((asItem || reference) && membersOf(place).some(([name, member]) => isIdentifierName(name) && isReadOnly(member, place.document))) identifierHolders.add(key);
      for (const [name, member] of membersOf(place)) bodySchema({ node: member, document: place.document, pointer: `${place.pointer}/properties/${escapePointerSegment(name)}` }, false, depth + 1);
      const items = getOwn(place.node, "items");
      if (typeof items === "object" && items !== null && !Array.isArray(items)) bodySchema({ node: items, document: place.document, pointer: `${place.pointer}/items` }, true, depth + 1);
      const more = getOwn(place.node, "additionalProperties");
      if (typeof more === "object" && more !== null) bodySchema({ node: more, document: place.document, pointer: `${place.pointer}/additionalProperties` }, false, depth + 1);
    }
  };

  for (const { schema: located, examples } of requestBodies ?? operationBodies(resolver, follow)) {
    const schema: Place = { node: located.value, document: located.document, pointer: located.pointer };
    const own = getOwn(follow(schema).node, "example");
    for (const example of examples.length > 0 ? examples : own === undefined ? [] : [own]) exampleSends(example, schema, 0);
    bodySchema(schema, false, 0);
  }
  return { sentByExamples, identifierHolders };
}

/** Every operation's request body schemas (and their examples) of an OpenAPI 3.x or Swagger 2.0 document, by `paths`. */
function operationBodies(resolver: RefResolver, follow: (place: Place) => Place): RequestBodySchema[] {
  const out: RequestBodySchema[] = [];
  const main = resolver.main;
  const paths = getOwn(main.root, "paths");
  const swagger2 = typeof getOwn(main.root, "swagger") === "string";
  for (const [path, rawItem] of Object.entries(typeof paths === "object" && paths !== null ? paths : {})) {
    const item = follow({ node: rawItem, document: main, pointer: `/paths/${escapePointerSegment(path)}` });
    for (const method of HTTP_METHODS) {
      const operation = getOwn(item.node, method);
      if (typeof operation !== "object" || operation === null) continue;
      const at = `${item.pointer}/${method}`;
      if (swagger2) {
        for (const [owner, ownerAt] of [[item.node, item.pointer], [operation, at]] as const) {
          const list = getOwn(owner, "parameters");
          if (!Array.isArray(list)) continue;
          list.forEach((raw, index) => {
            const parameter = follow({ node: raw, document: item.document, pointer: `${ownerAt}/parameters/${index}` });
            if (getOwn(parameter.node, "in") !== "body" || getOwn(parameter.node, "schema") === undefined) return;
            const xExamples = getOwn(parameter.node, "x-examples");
            out.push({
              schema: { value: getOwn(parameter.node, "schema"), document: parameter.document, pointer: `${parameter.pointer}/schema` },
              examples: typeof xExamples === "object" && xExamples !== null ? Object.values(xExamples) : [],
            });
          });
        }
      } else {
        const body = follow({ node: getOwn(operation, "requestBody"), document: item.document, pointer: `${at}/requestBody` });
        const content = getOwn(body.node, "content");
        for (const [type, media] of Object.entries(typeof content === "object" && content !== null ? content : {})) {
          if (getOwn(media, "schema") === undefined) continue;
          const examples: unknown[] = [];
          if (getOwn(media, "example") !== undefined) examples.push(getOwn(media, "example"));
          const named = getOwn(media, "examples");
          for (const raw of Object.values(typeof named === "object" && named !== null ? named : {})) {
            const example = follow({ node: raw, document: body.document, pointer: "" });
            if (getOwn(example.node, "value") !== undefined) examples.push(getOwn(example.node, "value"));
          }
          out.push({ schema: { value: getOwn(media, "schema"), document: body.document, pointer: `${body.pointer}/content/${escapePointerSegment(type)}/schema` }, examples });
        }
      }
    }
  }
  return out;
}

/**
 * Every schema object a response reaches (refs followed, every nested object): a `required`
 * written on one of these may be a response's, so it is no evidence that a request needs a
 * read-only member. Identity-keyed: the resolver answers with the document's own objects.
 */
export function reachedFromResponses(resolver: RefResolver): WeakSet<object> {
  const reached = new WeakSet<object>();
  const stack: { node: unknown; document: SourceDocument }[] = [];
  const main = resolver.main;
  const paths = getOwn(main.root, "paths");
  for (const rawItem of Object.values(typeof paths === "object" && paths !== null ? paths : {})) {
    for (const method of HTTP_METHODS) {
      const responses = getOwn(getOwn(rawItem, method), "responses");
      if (typeof responses === "object" && responses !== null) stack.push({ node: responses, document: main });
    }
  }
  const components = getOwn(main.root, "components");
  if (getOwn(components, "responses") !== undefined) stack.push({ node: getOwn(components, "responses"), document: main });
  // 2.0 response definitions; webhooks and callbacks answer too, but their bodies are requests the API sends: left out.
  if (getOwn(main.root, "responses") !== undefined) stack.push({ node: getOwn(main.root, "responses"), document: main });
  let visits = 0;
  while (stack.length > 0 && visits < MAX_VISITS * 4) {
    let { node, document } = stack.pop()!;
    visits += 1;
    if (typeof node !== "object" || node === null) continue;
    const ref = getOwn(node, "$ref");
    if (typeof ref === "string") {
      try {
        ({ value: node, document } = resolver.resolve(ref, document));
      } catch {
        continue;
      }
      if (typeof node !== "object" || node === null) continue;
    }
    if (reached.has(node)) continue;
    reached.add(node);
    // Keys and indexed reads: no entry arrays and iterators per node of the responses' schemas.
    const keys = Object.keys(node);
    for (let k = 0; k < keys.length; k += 1) {
      const key = keys[k]!;
      const child = (node as Record<string, unknown>)[key];
      if (key !== "example" && key !== "examples" && typeof child === "object" && child !== null) stack.push({ node: child, document });
    }
  }
  return reached;
}
