import type { PackIR, SkippedOperation, ToolIR, WithheldPath } from "@sluice/core";
import { guards } from "@sluice/core/guards";
import { compareText } from "@sluice/emit";
import { escapePointerSegment, getOwn, SluiceError, withinLimits, type JsonSchemaObject } from "@sluice/schema";
import { detectedCredentialParameters } from "./credential-arguments.ts";
import { withholdCredentialMembers } from "./credential-members.ts";
import { buildOperationTool, type OperationContext, type OperationSource } from "./operation-object.ts";
import { UnsupportedParameter } from "./parameter-object.ts";
import { reachableDefs, RefResolver, refuseUnsupported, SchemaConverter, unsupportedInDefs, type Dialect, type UndeclaredRequired } from "@sluice/schema-convert";
import { loadReferencedFile } from "./referenced-file.ts";
import { SecuritySchemes } from "./security-scheme-object.ts";
import { assignToolNames, operationKey, type OperationRef } from "./tool-names.ts";

export interface PackSourceInfo {
  /** Pack name, e.g. `stripe`. */
  name: string;
  /** Spec file name relative to the pack's `spec/` folder. */
  file: string;
  sha256: string;
}

export interface BuildOpenAPIOptions {
  /** External `$ref` targets (the ref as written, or its part before `#`) -> local file path. Nothing is ever fetched. */
  externalRefs?: Readonly<Record<string, string>>;
  /**
   * An operation that needs an unmapped external ref is skipped with the reason (default),
   * or (`"throw"`) fails the whole build with `EXTERNAL_REF`.
   */
  onExternalRef?: "skip" | "throw";
  /**
   * Parameters that carry a credential (parameter name -> security scheme name), e.g.
   * Slack's `token`: they are withheld from the model (reason `credential`) and the call
   * runtime fills them from that scheme's credential, so the request still matches a spec
   * that declares them required.
   */
  credentialParameters?: Readonly<Record<string, string>>;
  /**
   * Also treat as credential parameters the arguments that duplicate a declared apiKey
   * (`client_id` beside a `PLAID-CLIENT-ID` header; see credential-arguments.ts); entries of
   * `credentialParameters` win. Off by default.
   */
  detectCredentialParameters?: boolean;
  /**
   * Which operations become tools (default: all). Asked once per operation, with its tool
   * name as assigned over the whole document, so a selection never renames a tool.
   */
  select?: (operation: OpenAPIOperationInfo) => boolean;
}

/** What `select` sees of an operation. */
export interface OpenAPIOperationInfo {
  tool: string;
  method: string;
  path: string;
  operationId?: string;
  tags: string[];
}

/** Path Item Object methods, `trace` included. https://spec.openapis.org/oas/v3.1.0#path-item-object */
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/**
 * OpenAPI 3.0 / 3.1 or Swagger 2.0 document (parsed) -> tool IR. Every operation becomes a
 * tool or is listed in `skipped` with the reason; webhooks are not operations.
 * https://spec.openapis.org/oas/v3.1.0#paths-object
 */
export function buildOpenAPIPackIR(document: unknown, source: PackSourceInfo, options: BuildOpenAPIOptions = {}): PackIR {
  return withinLimits(`generating pack ${source.name} from ${source.file}`, () => {
    const ir = buildPackIR(document, source, options);
    const merged = options.detectCredentialParameters === true ? detectedCredentialParameters(document, ir, options.credentialParameters ?? {}) : undefined;
    const rebuilt = merged === undefined ? ir : buildPackIR(document, source, { ...options, credentialParameters: merged });
    // Flattened members and parameters carrying a credential are lifted out above; the same names anywhere else in a schema are withheld here.
    return guards.credentialMembers ? withholdCredentialMembers(rebuilt, merged ?? options.credentialParameters ?? {}) : rebuilt;
  });
}

function buildPackIR(document: unknown, source: PackSourceInfo, options: BuildOpenAPIOptions): PackIR {
  const dialect = dialectOf(document);
  const resolver = new RefResolver(document, options.externalRefs, loadReferencedFile);
  const converter = new SchemaConverter(resolver, dialect);
  const context: OperationContext = { resolver, converter, security: new SecuritySchemes(document, dialect, resolver), dialect, root: document, credentialParameters: options.credentialParameters ?? {}, normalized: new WeakMap() };

  const operations: { ref: OperationRef; source: OperationSource }[] = [];
  const skipped: SkippedOperation[] = [];
  // The first operation that failed: thrown when no operation at all becomes a tool.
  let failure: unknown;
  const paths = getOwn(document, "paths");
  for (const [path, rawItem] of Object.entries(typeof paths === "object" && paths !== null ? paths : {})) {
    const itemPointer = `/paths/${escapePointerSegment(path)}`;
    let pathItem;
    try {
      pathItem = resolver.deref(rawItem, resolver.main, itemPointer);
    } catch (error) {
      const skip = skipFor(error, `* ${path}`, itemPointer, options);
      if (skip === undefined) throw error;
      skipped.push(skip);
      failure ??= error;
      continue;
    }
    for (const method of HTTP_METHODS) {
      const operation = getOwn(pathItem.value, method);
      if (typeof operation !== "object" || operation === null) continue;
      const operationId = getOwn(operation, "operationId");
      operations.push({
        ref: { method: method.toUpperCase(), path, ...(typeof operationId === "string" ? { operationId } : {}) },
        source: { method: method.toUpperCase(), path, pathItem, operation: { value: operation, document: pathItem.document, pointer: `${pathItem.pointer}/${method}` } },
      });
    }
  }

  const names = assignToolNames(operations.map((op) => op.ref));
  const tools: ToolIR[] = [];
  const unsupportedSeen = unsupportedInDefs();
  for (const { ref, source: operationSource } of operations) {
    if (options.select !== undefined && !options.select(operationInfo(ref, operationSource, names.get(ref)!))) continue;
    converter.operation = operationKey(ref);
    try {
      const tool = buildOperationTool(withQueryTemplates(operationSource, context), names.get(ref)!, context);
      // A converted schema the call runtime would refuse (a keyword Ajv checks loosely) is refused here, naming the operation.
      // Searching every tool and definition allocated a fifth of Kubernetes' build, for a keyword no conversion wrote.
      if (guards.unsupportedKeywords && converter.wroteUnevaluatedItems) refuseUnsupported(tool, operationKey(ref), converter.defs, unsupportedSeen);
      tools.push(tool);
    } catch (error) {
      // One broken operation (a dangling $ref, an undeclared placeholder, a keyword sluice
      // cannot check exactly) costs that tool, not the pack.
      const skip = skipFor(error, operationKey(ref), operationSource.operation.pointer, options);
      if (skip === undefined) throw error;
      skipped.push(skip);
      if (skip.code !== "PARAMETER_UNSUPPORTED" && skip.code !== "EXTERNAL_REF" && skip.code !== "KEYWORD_UNSUPPORTED") failure ??= error;
    }
  }
  if (tools.length === 0 && failure !== undefined) throw failure;
  tools.sort((a, b) => compareText(a.name, b.name));
  skipped.sort((a, b) => compareText(a.operation, b.operation));

  const reached = reachableDefs(tools, converter.defs);
  const defs: Record<string, JsonSchemaObject> = Object.fromEntries([...reached].sort(compareText).map((name) => [name, converter.defs.get(name)!]));
  const withheldMembers: Record<string, WithheldPath[]> = Object.fromEntries(
    [...converter.withheldMembers.entries()].filter(([name]) => reached.has(name)).sort(([a], [b]) => compareText(a, b)),
  );
  return {
    name: source.name,
    source: { kind: "openapi", file: source.file, sha256: source.sha256 },
    defs,
    ...(Object.keys(withheldMembers).length > 0 ? { withheldMembers } : {}),
    tools,
    skipped,
    ...(converter.refusedPatterns.length > 0 ? { refusedPatterns: converter.refusedPatterns } : {}),
    ...(converter.undeclaredRequired.size > 0 ? { notices: [undeclaredRequiredNotice([...converter.undeclaredRequired.values()])] } : {}),
  };
}

/**
 * One line for the pack: which request schemas require members they never declare, and what
 * was done with each kind (schema-object.ts `declareRequiredMembers`), a few places named.
 */
function undeclaredRequiredNotice(repairs: readonly UndeclaredRequired[]): string {
  const places = (list: readonly UndeclaredRequired[]) => {
    const shown = list.slice(0, 2).map((repair) => `${repair.operation || "(shared type)"} ${repair.members.join(", ")} at ${repair.pointer}`);
    return `${shown.join("; ")}${list.length > 2 ? ` and ${list.length - 2} more` : ""}`;
  };
  const open = repairs.filter((repair) => !repair.closed);
  const closed = repairs.filter((repair) => repair.closed);
  const parts = [
    ...(open.length === 0 ? [] : [`offered as required arguments of any type, so that the call the API demands can be made (${places(open)})`]),
    ...(closed.length === 0 ? [] : [`not required where the object forbids undeclared members (additionalProperties: false), so that it can be sent at all (${places(closed)})`]),
  ];
  return `SPEC_REPAIRED: request schemas require members they do not declare: ${parts.join("; ")}; declare them in the spec copy (or drop the requirement) and regenerate`;
}

/**
 * The skip entry for an operation that could not become a tool, or undefined when the error
 * is not the operation's own (a bug, or `onExternalRef: "throw"`): that one is rethrown.
 */
function skipFor(error: unknown, operation: string, pointer: string, options: BuildOpenAPIOptions): SkippedOperation | undefined {
  if (error instanceof UnsupportedParameter) return { operation, code: "PARAMETER_UNSUPPORTED", reason: `PARAMETER_UNSUPPORTED: ${error.message}`, pointer };
  if (!(error instanceof SluiceError)) return undefined;
  if (error.code === "EXTERNAL_REF" && options.onExternalRef === "throw") return undefined;
  // Limits of the whole run (nesting, size) are not one operation's fault.
  if (error.code === "INTERNAL_LIMIT") return undefined;
  return { operation, code: error.code, reason: `${error.code}: ${error.message}`, pointer: error.pointer ?? pointer };
}

/**
 * A path key with a query string (`/rides?page={page}&per_page={per_page}`, Azure's
 * `/analyze?overload=stream`). Fixed pairs stay in the path and are sent as written (the
 * request builder appends further parameters with `&`, and no parameter may set their names
 * again). A `name={placeholder}` pair whose placeholder is declared as a query parameter of
 * that name is left to that parameter, which serializes itself; a placeholder declared as a
 * path parameter is expanded in place. Any other placeholder stays and fails the operation
 * (not declared), which is then skipped.
 */
function withQueryTemplates(source: OperationSource, context: OperationContext): OperationSource {
  const at = source.path.indexOf("?");
  if (at < 0) return source;
  const queryNames = new Set<string>();
  for (const owner of [source.pathItem, source.operation]) {
    const list = getOwn(owner.value, "parameters");
    if (!Array.isArray(list)) continue;
    for (const [index, raw] of list.entries()) {
      let parameter: unknown;
      try {
        parameter = context.resolver.deref(raw, owner.document, `${owner.pointer}/parameters/${index}`).value;
      } catch {
        continue; // reported when the operation is built
      }
      if (getOwn(parameter, "in") === "query" && typeof getOwn(parameter, "name") === "string") queryNames.add(getOwn(parameter, "name") as string);
    }
  }
  const pairs = source.path.slice(at + 1).split("&");
  const kept = pairs.filter((pair) => {
    const match = /^([^=]*)=\{([^{}]+)\}$/.exec(pair);
    return match === null || !(match[1] === match[2] && queryNames.has(match[2]!));
  });
  if (kept.length === pairs.length) return source;
  const path = source.path.slice(0, at) + (kept.length === 0 ? "" : `?${kept.join("&")}`);
  return { ...source, path };
}

function operationInfo(ref: OperationRef, source: OperationSource, tool: string): OpenAPIOperationInfo {
  const tags = getOwn(source.operation.value, "tags");
  return {
    tool,
    method: ref.method,
    path: ref.path,
    ...(ref.operationId === undefined ? {} : { operationId: ref.operationId }),
    tags: Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === "string") : [],
  };
}

function dialectOf(document: unknown): Dialect {
  const swagger = getOwn(document, "swagger");
  const openapi = getOwn(document, "openapi");
  if (typeof swagger === "string" && swagger.startsWith("2.")) return "2.0";
  if (typeof openapi === "string" && /^3\.0\./.test(openapi)) return "3.0";
  if (typeof openapi === "string" && /^3\.[1-9]/.test(openapi)) return "3.1";
  throw new SluiceError("SPEC_INVALID", `not an OpenAPI 3.0/3.1 or Swagger 2.0 document (openapi: ${JSON.stringify(openapi)}, swagger: ${JSON.stringify(swagger)}).`, { pointer: "" });
}
