import type { HttpAuthScheme, HttpBinding, HttpBody, HttpParameter, HttpParameterLocation, ToolAnnotations, ToolIR, WithheldParameter, WithheldPath, WithheldReason } from "@sluice/core";
import { escapePointerSegment, getOwn, setOwn, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { compareText, fitToolName, shortHash } from "@sluice/emit";
import { CREDENTIAL_HEADERS, normalizeParameter, swagger2ParameterSchema, type NormalizedParameter } from "./parameter-object.ts";
import { normalizeRequestBody, swagger2Body, type NormalizedBody } from "./request-body-object.ts";
import { flatteningLoses, withheldMember, type Dialect, type Located, type RefResolver, type SchemaConverter, type SourceDocument } from "@sluice/schema-convert";
import type { SecuritySchemes } from "./security-scheme-object.ts";
import { serverUrl, swagger2ServerUrl } from "./server-object.ts";

/**
 * One Operation Object (path item x method) -> one tool with flat arguments.
 * https://spec.openapis.org/oas/v3.1.0#operation-object
 * https://spec.openapis.org/oas/v3.1.0#path-item-object (parameters shared by the operations)
 */
export interface OperationContext {
  resolver: RefResolver;
  converter: SchemaConverter;
  security: SecuritySchemes;
  dialect: Dialect;
  root: unknown;
  /** Parameter name -> security scheme whose credential fills it (see BuildOpenAPIOptions). */
  credentialParameters: Readonly<Record<string, string>>;
  /** Parameters already normalized in this build, by parameter object and place (see normalizedParameter). */
  normalized?: WeakMap<object, { document: SourceDocument; pointer: string; normalized: NormalizedParameter | undefined }[]>;
}

export interface OperationSource {
  method: string;
  path: string;
  pathItem: Located;
  operation: Located;
}

const READ_ONLY_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);
const LOCATION_ORDER: readonly HttpParameterLocation[] = ["path", "query", "header", "cookie"];

/** Argument names providers accept as property keys (and which dotted selectors can address). */
function argumentName(name: string): string {
  return fitToolName(name.replace(/[^A-Za-z0-9_-]/g, "_") || "_");
}

export function buildOperationTool(source: OperationSource, name: string, context: OperationContext): ToolIR {
  const { resolver, converter, dialect } = context;
  const { method, path, pathItem, operation } = source;
  const label = `operation ${method} ${path}`;

  // Path-item parameters apply unless the operation redefines the same name and location.
  // Indexed loops and no callbacks in this function: it runs once per operation, mostly
  // unoptimised, where each for-of, forEach and some() makes objects of its own.
  const declared = new Map<string, Located>();
  for (let o = 0; o < 2; o += 1) {
    const owner = o === 0 ? pathItem : operation;
    const list = getOwn(owner.value, "parameters");
    if (!Array.isArray(list)) continue;
    for (let index = 0; index < list.length; index += 1) {
      const located = resolver.deref(list[index], owner.document, `${owner.pointer}/parameters/${index}`);
      declared.set(`${String(getOwn(located.value, "in"))}:${String(getOwn(located.value, "name"))}`, located);
    }
  }
  const rawParameters = [...declared.values()];
  const parameters: NormalizedParameter[] = [];
  for (let i = 0; i < rawParameters.length; i += 1) {
    const normalized = normalizedParameter(rawParameters[i]!, context);
    if (normalized !== undefined) parameters.push(normalized);
  }

  const inTemplate = new Set<string>();
  for (const match of path.matchAll(/\{([^}]*)\}/g)) {
    const placeholder = match[1]!;
    inTemplate.add(placeholder);
    let declaredInPath = false;
    for (let i = 0; i < parameters.length && !declaredInPath; i += 1) declaredInPath = parameters[i]!.in === "path" && parameters[i]!.name === placeholder;
    if (!declaredInPath) {
      throw new SluiceError("SPEC_INVALID", `${label}: path parameter ${placeholder} is not declared.`, {
        pointer: `/paths/${escapePointerSegment(path)}/${method.toLowerCase()}`,
      });
    }
  }

  const body = dialect === "2.0" ? swagger2Body(rawParameters, consumesOf(operation.value, context.root)) : requestBodyOf(operation, resolver);

  const taken = new Set<string>();
  const claim = (wanted: string, prefix: string, wireKey: string): string => {
    const plain = argumentName(wanted);
    let candidate = taken.has(plain) ? argumentName(`${prefix}_${wanted}`) : plain;
    if (taken.has(candidate)) candidate = fitToolName(`${candidate}_${shortHash(wireKey)}`);
    taken.add(candidate);
    return candidate;
  };

  const properties: [string, JsonSchemaObject][] = [];
  const required: string[] = [];
  const withheld: WithheldPath[] = [];
  const httpParameters: HttpParameter[] = [];

  const withheldParameters: WithheldParameter[] = [];
  const ordered: NormalizedParameter[] = [];
  for (let l = 0; l < LOCATION_ORDER.length; l += 1) {
    const location = LOCATION_ORDER[l]!;
    for (let i = 0; i < parameters.length; i += 1) {
      const p = parameters[i]!;
      if (p.in === location && (location !== "path" || inTemplate.has(p.name))) ordered.push(p);
    }
  }
  const auth = context.security.requirementsFor(getOwn(operation.value, "security"), getOwn(context.root, "security"));
  const unsent = unsentParameters(ordered, context, auth);
  for (let i = 0; i < ordered.length; i += 1) {
    const parameter = ordered[i]!;
    const arg = claim(parameter.name, parameter.in, `${parameter.in}:${parameter.name}`);
    // A credential parameter is sent, but never by the model: the runtime fills it.
    const scheme = parameter.in === "path" ? undefined : getOwn(context.credentialParameters, parameter.name);
    const why = typeof scheme === "string" ? undefined : unsent.get(parameter);
    if (why !== undefined) {
      // Not sent at all; its name stays reserved, so no exploded key re-creates it.
      withheld.push({ path: arg, reason: why });
      withheldParameters.push({ arg, name: parameter.name, in: parameter.in });
      continue;
    }
    if (typeof scheme === "string") {
      withheld.push({ path: arg, reason: "credential" });
    } else {
      properties.push([arg, parameterSchema(parameter, arg, context, withheld)]);
      if (parameter.required) required.push(arg);
    }
    // Optional fields assigned in order (the emitted key order), not spread: one object per parameter.
    const http: HttpParameter = { arg, name: parameter.name, in: parameter.in, style: parameter.style, explode: parameter.explode };
    if (parameter.required) http.required = true;
    if (parameter.allowReserved) http.allowReserved = true;
    if (parameter.contentType !== undefined) http.contentType = parameter.contentType;
    if (typeof scheme === "string") http.credential = scheme;
    httpParameters.push(http);
  }

  let httpBody: HttpBody | undefined;
  const dependentRequired: Record<string, string[]> = {};
  if (body !== undefined) httpBody = bodyArguments(body, claim, properties, required, withheld, context, dependentRequired);

  const propertyRecord = recordOf(properties);
  const failure = converter.failureReachedFrom(propertyRecord);
  if (failure !== undefined) throw failure;

  const server = dialect === "2.0" ? swagger2ServerUrl(context.root) : serverUrl(getOwn(operation.value, "servers"), getOwn(pathItem.value, "servers"), getOwn(context.root, "servers"));
  const binding: HttpBinding = {
    kind: "http",
    method,
    path,
    ...(server === undefined ? {} : { server }),
    parameters: httpParameters,
    ...(httpBody === undefined ? {} : { body: httpBody }),
    ...(auth === undefined ? {} : { auth }),
    ...(withheldParameters.length > 0 ? { withheldParameters } : {}),
  };
  return {
    name,
    description: describe(operation.value, method, path),
    parameters: { properties: propertyRecord, required, ...(Object.keys(dependentRequired).length > 0 ? { dependentRequired } : {}) },
    binding,
    annotations: annotationsFor(method),
    ...(withheld.length > 0 ? { withheld } : {}),
  };
}

/**
 * Parameters that are never sent, with the reason: a header that carries a credential or a
 * session (`Authorization`, `Proxy-Authorization`, `Cookie`, or the name of any apiKey
 * header the document declares), a cookie parameter named like an apiKey cookie, and a
 * query parameter named like an apiKey this operation sends in the query, since
 * authentication writes those names; and of header parameters
 * equal but for case (one header on the wire), all but the one whose name sorts first.
 */
function unsentParameters(parameters: readonly NormalizedParameter[], context: OperationContext, auth: readonly (readonly HttpAuthScheme[])[] | undefined): Map<NormalizedParameter, WithheldReason> {
  const out = new Map<NormalizedParameter, WithheldReason>();
  const headerKeys = context.security.wireNames("header");
  const cookieKeys = context.security.wireNames("cookie");
  // Query names only where this operation authenticates with them: elsewhere `key` may be a plain argument.
  const queryKeys = new Set((auth ?? []).flat().flatMap((scheme) => (scheme.type === "apiKey" && scheme.in === "query" ? [scheme.name.toLowerCase()] : [])));
  for (const parameter of parameters) {
    const lower = parameter.name.toLowerCase();
    if (parameter.in === "header" && (CREDENTIAL_HEADERS.has(lower) || headerKeys.has(lower))) out.set(parameter, "credential_header");
    else if (parameter.in === "cookie" && cookieKeys.has(lower)) out.set(parameter, "credential_header");
    else if (parameter.in === "query" && queryKeys.has(lower)) out.set(parameter, "credential");
  }
  const headers = new Map<string, NormalizedParameter[]>();
  for (const parameter of parameters) {
    if (parameter.in !== "header" || out.has(parameter)) continue;
    const lower = parameter.name.toLowerCase();
    headers.set(lower, [...(headers.get(lower) ?? []), parameter]);
  }
  for (const same of headers.values()) {
    if (same.length < 2) continue;
    const [, ...rest] = [...same].sort((a, b) => compareText(a.name, b.name));
    for (const parameter of rest) out.set(parameter, "duplicate_header");
  }
  return out;
}

/**
 * normalizeParameter, once per parameter object and place: a shared parameter (a
 * `#/parameters` entry, a path item's) is read once for all the operations that have it,
 * and its schema stays the same object, so its conversion is shared too.
 */
function normalizedParameter(located: Located, context: OperationContext): NormalizedParameter | undefined {
  const { value, document, pointer } = located;
  if (typeof value !== "object" || value === null || context.normalized === undefined) return normalizeParameter(located, context.dialect);
  // Nearly always one place per parameter object: a short list compared by identity, no key string per use.
  let places = context.normalized.get(value);
  if (places === undefined) context.normalized.set(value, (places = []));
  for (const entry of places) if (entry.pointer === pointer && entry.document === document) return entry.normalized;
  const normalized = normalizeParameter(located, context.dialect);
  places.push({ document, pointer, normalized });
  return normalized;
}

function parameterSchema(parameter: NormalizedParameter, arg: string, context: OperationContext, withheld: WithheldPath[]): JsonSchemaObject {
  const { value, document, pointer } = parameter.schema;
  // Module-level functions, not a closure per parameter: convertShared calls it only on a cache miss.
  const prepare = context.dialect === "2.0" ? swagger2ParameterSchema : asWritten;
  // Shared parameters (`$ref`ed, or a path item's) are converted once and shared by every tool that has them.
  const converted = typeof value === "object" && value !== null ? context.converter.convertShared(value, "parameter", prepare, document, arg, withheld, pointer) : context.converter.convert(prepare(value), document, arg, withheld, pointer);
  const schema = asObject(converted);
  if (schema !== converted) return decorate(schema, parameter.description, parameter.deprecated);
  // A shared conversion is decorated once too; the description and deprecation come from the same parameter.
  const known = decoratedParameters.get(schema);
  if (known !== undefined && known.description === parameter.description && known.deprecated === parameter.deprecated) return known.schema;
  const decorated = decorate(schema, parameter.description, parameter.deprecated);
  decoratedParameters.set(schema, { description: parameter.description, deprecated: parameter.deprecated, schema: decorated });
  return decorated;
}

/** A schema converted as the document writes it (3.x parameters, body objects). */
function asWritten(schema: unknown): unknown {
  return schema;
}

/** Converted parameter schema -> the argument schema `decorate` made of it. */
const decoratedParameters = new WeakMap<JsonSchemaObject, { description: string | undefined; deprecated: boolean; schema: JsonSchemaObject }>();

/** Object bodies become one argument per property; any other body is the single argument `body`. */
function bodyArguments(
  body: NormalizedBody,
  claim: (wanted: string, prefix: string, wireKey: string) => string,
  properties: [string, JsonSchemaObject][],
  required: string[],
  withheld: WithheldPath[],
  context: OperationContext,
  dependentRequired: Record<string, string[]>,
): HttpBody {
  const { converter, resolver } = context;
  const fields: [string, string][] = [];
  const base = {
    mediaType: body.mediaType,
    encoding: body.encoding,
    ...(body.required ? { required: true } : {}),
  };
  const encoding = Object.keys(body.propertyEncoding).length > 0 ? { propertyEncoding: body.propertyEncoding } : {};
  const credentialFields: Record<string, string> = {};
  const carriesCredential = (arg: string, member: string): boolean => {
    const scheme = getOwn(context.credentialParameters, member);
    if (typeof scheme !== "string") return false;
    credentialFields[arg] = scheme;
    withheld.push({ path: arg, reason: "credential" });
    return true;
  };
  const credentials = () => (Object.keys(credentialFields).length > 0 ? { credentialFields } : {});
  if (body.formFields !== undefined) {
    for (const field of body.formFields) {
      const arg = claim(field.name, "body", `body:${field.name}`);
      fields.push([arg, field.name]);
      if (carriesCredential(arg, field.name)) continue;
      properties.push([arg, decorate(asObject(converter.convert(field.schema.value, field.schema.document, arg, withheld, field.schema.pointer)), field.description, false)]);
      if (field.required) required.push(arg);
    }
    return { ...base, fields: recordOf(fields), ...encoding, ...credentials() };
  }
  const schema = body.schema === undefined ? undefined : resolver.deref(body.schema.value, body.schema.document, body.schema.pointer);
  const shape = schema?.value;
  const memberSchemas = getOwn(shape, "properties");
  const flattenable =
    (body.encoding === "json" || body.encoding === "form" || body.encoding === "multipart") &&
    typeof memberSchemas === "object" && memberSchemas !== null && !Array.isArray(memberSchemas) &&
    (getOwn(shape, "type") === undefined || getOwn(shape, "type") === "object") &&
    getOwn(shape, "allOf") === undefined && getOwn(shape, "anyOf") === undefined && getOwn(shape, "oneOf") === undefined &&
    !converter.isPolymorphic(body.schema?.value, body.schema?.document ?? resolver.main) &&
    body.schema !== undefined && flatteningLoses(body.schema, resolver, context.dialect) === undefined;
  if (schema === undefined || !flattenable) {
    const arg = claim("body", "request", "body");
    const converted = body.schema === undefined ? {} : asObject(converter.convert(body.schema.value, body.schema.document, arg, withheld, body.schema.pointer));
    properties.push([arg, converted]);
    if (body.required) required.push(arg);
    return { ...base, wholeBodyArg: arg, ...encoding };
  }
  // Convert the object as a whole (readOnly members are withheld there, and never required), then lift its members out.
  const memberWithheld: WithheldPath[] = [];
  // A body schema many operations send (Kubernetes' DeleteOptions, a create and a replace of one type) is converted once.
  // Converted as written: the read-only rule reads the schema's own `required` by the schema's identity.
  const converted = asObject(converter.convertShared(shape as object, "flattened body", asWritten, schema.document, "", memberWithheld, schema.pointer));
  const requiredMembers = new Set(Array.isArray(converted.required) ? (converted.required as unknown[]).filter((m): m is string => typeof m === "string") : []);
  const convertedMembers = (converted.properties ?? {}) as Record<string, JsonSchemaObject | boolean>;
  const memberArgs: string[] = [];
  const requiredArgs: string[] = [];
  // Every member claims its argument name in the order the body declares them, offered or
  // withheld alike: a withheld member is recorded under the name it would have had
  // (`body_id` beside a path parameter `id`), never under a name another argument offers.
  const argOf = new Map<string, string>();
  const withheldTop = new Set(memberWithheld.flatMap((entry) => withheldMember(entry.path, memberSchemas)?.member ?? []));
  for (const member of Object.keys(memberSchemas)) {
    if (hasOwnMember(convertedMembers, member) || withheldTop.has(member)) argOf.set(member, claim(member, "body", `body:${member}`));
  }
  for (const entry of memberWithheld) {
    const top = withheldMember(entry.path, memberSchemas);
    withheld.push({ ...entry, path: top === undefined ? entry.path.replace(/^\./, "") : `${argOf.get(top.member)!}${entry.path.slice(top.prefix)}` });
  }
  for (const [member, memberSchema] of Object.entries(convertedMembers)) {
    const arg = argOf.get(member) ?? claim(member, "body", `body:${member}`);
    fields.push([arg, member]);
    if (carriesCredential(arg, member)) continue;
    properties.push([arg, asObject(memberSchema)]);
    memberArgs.push(arg);
    if (requiredMembers.has(member)) requiredArgs.push(arg);
  }
  if (body.required) required.push(...requiredArgs);
  else if (requiredArgs.length > 0) {
    // An optional body may be left out, but a body that is sent is the schema's object, with
    // its required members: sending any member requires them (`dependentRequired`). Each
    // required member names all the others; any other member names the first one only, which
    // brings in the rest: the same rule in a few tokens per member instead of one list each.
    for (const arg of memberArgs) {
      const others = requiredArgs.includes(arg) ? requiredArgs.filter((name) => name !== arg) : requiredArgs.slice(0, 1);
      if (others.length > 0) Object.defineProperty(dependentRequired, arg, { value: others, enumerable: true, writable: true, configurable: true });
    }
  }
  return { ...base, fields: recordOf(fields), ...encoding, ...credentials() };
}


/**
 * Object.fromEntries of pairs whose keys are distinct (claimed argument names), built by
 * plain stores (the hottest line of a Kubernetes tool was Object.fromEntries); a
 * `__proto__` key stays an own property.
 */
function recordOf<T>(pairs: readonly (readonly [string, T])[]): Record<string, T> {
  const out: Record<string, T> = {};
  // Indexes, not `[key, value]` destructuring: that runs the iterator protocol per pair until optimized.
  for (let i = 0; i < pairs.length; i += 1) {
    const pair = pairs[i]!;
    if (pair[0] === "__proto__") setOwn(out, pair[0], pair[1]);
    else out[pair[0]] = pair[1];
  }
  return out;
}

function hasOwnMember(members: object, member: string): boolean {
  return Object.prototype.hasOwnProperty.call(members, member);
}

function requestBodyOf(operation: Located, resolver: RefResolver): NormalizedBody | undefined {
  const raw = getOwn(operation.value, "requestBody");
  if (raw === undefined) return undefined;
  return normalizeRequestBody(resolver.deref(raw, operation.document, `${operation.pointer}/requestBody`));
}

function consumesOf(operation: unknown, root: unknown): string[] {
  const own = getOwn(operation, "consumes");
  const list = Array.isArray(own) ? own : getOwn(root, "consumes");
  return Array.isArray(list) ? list.filter((t): t is string => typeof t === "string") : [];
}

function asObject(schema: JsonSchemaObject | boolean): JsonSchemaObject {
  return typeof schema === "boolean" ? (schema ? {} : { not: {} }) : schema;
}

function decorate(schema: JsonSchemaObject, description: string | undefined, deprecated: boolean): JsonSchemaObject {
  if (description === undefined && !deprecated) return schema;
  const out = { ...schema };
  if (description !== undefined && typeof out.description !== "string") {
    if (typeof out.$ref === "string") return { ...(deprecated ? { deprecated: true } : {}), description, ...out };
    out.description = description;
  }
  if (deprecated) out.deprecated = true;
  return out;
}

function describe(operation: unknown, method: string, path: string): string {
  const summary = getOwn(operation, "summary");
  const description = getOwn(operation, "description");
  const parts = [summary, description].filter((text): text is string => typeof text === "string" && text.trim() !== "").map((text) => text.trim());
  const unique = parts.length === 2 && parts[1]!.startsWith(parts[0]!) ? [parts[1]!] : parts;
  const text = unique.length > 0 ? unique.join("\n\n") : `${method} ${path}`;
  return getOwn(operation, "deprecated") === true ? `${text} (deprecated)` : text;
}

/** HTTP method semantics (RFC 9110 §9.2): safe methods read only; PUT and DELETE are idempotent. */
function annotationsFor(method: string): ToolAnnotations {
  if (READ_ONLY_METHODS.has(method)) return { readOnly: true, idempotent: true };
  if (method === "DELETE") return { readOnly: false, destructive: true, idempotent: true };
  if (method === "PUT") return { readOnly: false, idempotent: true };
  return { readOnly: false };
}
