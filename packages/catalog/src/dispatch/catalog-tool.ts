import { isSchemaObject, SluiceError, type JsonSchemaObject } from "@sluice/schema";

/**
 * A tool as a client or proxy sends it, from any source. Catalog operations read every
 * shape below and hand back the shape they were given.
 */
export type CatalogTool = SchemaCatalogTool | AnthropicCatalogTool | ChatFunctionCatalogTool | ResponsesFunctionCatalogTool | ProviderTypedTool;

/** `{ name, description, inputSchema }`: a sluice `Tool`, or an MCP tool. */
export interface SchemaCatalogTool {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: object;
}

/** Anthropic Messages: `{ name, description, input_schema }` (`type: "custom"` optional). */
export interface AnthropicCatalogTool {
  readonly name: string;
  readonly description?: string | undefined;
  readonly input_schema: object;
  readonly type?: "custom" | null | undefined;
}

/** OpenAI Chat Completions: `{ type: "function", function: { name, description, parameters } }`. */
export interface ChatFunctionCatalogTool {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description?: string | undefined;
    readonly parameters?: object | undefined;
    readonly strict?: boolean | null | undefined;
  };
}

/** OpenAI Responses: `{ type: "function", name, description, parameters }`. */
export interface ResponsesFunctionCatalogTool {
  readonly type: "function";
  readonly name: string;
  readonly description?: string | null | undefined;
  readonly parameters?: object | null | undefined;
  readonly strict?: boolean | null | undefined;
}

/**
 * A tool the provider defines, declared by `type` rather than by a schema
 * (`{ type: "web_search_20250305", name: "web_search" }`, `{ type: "code_interpreter" }`).
 * It cannot be filtered away safely, shortened or dispatched: it is passed through.
 */
export interface ProviderTypedTool {
  readonly type: string;
  readonly name?: string | undefined;
}

export type CatalogShape = "schema" | "anthropic" | "chat" | "responses" | "provider-typed";

/** What catalog operations read from an entry, whatever its shape. */
export interface CatalogToolView {
  readonly name: string;
  readonly description: string;
  /** `undefined` for provider-typed tools. */
  readonly inputSchema: JsonSchemaObject | undefined;
  readonly shape: CatalogShape;
  readonly entry: CatalogTool;
}

const EMPTY_OBJECT_SCHEMA: JsonSchemaObject = Object.freeze({ type: "object", properties: {} });

function read(entry: object, key: string): unknown {
  // Property access, not own-key lookup: a sluice Tool exposes its fields as getters.
  return (entry as Record<string, unknown>)[key];
}

function schemaOf(value: unknown, name: string, index: number, key: string): JsonSchemaObject {
  if (value === undefined || value === null) return EMPTY_OBJECT_SCHEMA;
  if (!isSchemaObject(value)) {
    throw new SluiceError("SPEC_INVALID", `Catalog entry ${index} (${name}): ${key} must be a JSON Schema object.`, { pointer: `/${index}/${key}` });
  }
  return value;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Reads one catalog entry; an entry of no known shape is refused with its index. */
export function viewCatalogTool(entry: CatalogTool, index: number): CatalogToolView {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw new SluiceError("SPEC_INVALID", `Catalog entry ${index} is not a tool object.`, { pointer: `/${index}` });
  }
  const type = read(entry, "type");
  const fn = read(entry, "function");
  const name = read(entry, "name");
  if (type === "function" && isSchemaObject(fn)) {
    const fnName = read(fn, "name");
    if (typeof fnName !== "string") throw new SluiceError("SPEC_INVALID", `Catalog entry ${index}: function.name must be a string.`, { pointer: `/${index}/function/name` });
    return { name: fnName, description: text(read(fn, "description")), inputSchema: schemaOf(read(fn, "parameters"), fnName, index, "function/parameters"), shape: "chat", entry };
  }
  if (typeof name === "string" && read(entry, "input_schema") !== undefined) {
    return { name, description: text(read(entry, "description")), inputSchema: schemaOf(read(entry, "input_schema"), name, index, "input_schema"), shape: "anthropic", entry };
  }
  if (typeof name === "string" && read(entry, "inputSchema") !== undefined) {
    return { name, description: text(read(entry, "description")), inputSchema: schemaOf(read(entry, "inputSchema"), name, index, "inputSchema"), shape: "schema", entry };
  }
  if (type === "function" && typeof name === "string") {
    return { name, description: text(read(entry, "description")), inputSchema: schemaOf(read(entry, "parameters"), name, index, "parameters"), shape: "responses", entry };
  }
  if (typeof type === "string" && type !== "function" && type !== "custom") {
    return { name: typeof name === "string" ? name : type, description: "", inputSchema: undefined, shape: "provider-typed", entry };
  }
  throw new SluiceError("SPEC_INVALID", `Catalog entry ${index} has no name and schema in any known shape (MCP inputSchema, Anthropic input_schema, OpenAI function or parameters) and no provider type.`, { pointer: `/${index}` });
}

/** Reads a whole catalog; duplicate names are refused (every provider rejects them). */
export function viewCatalog(catalog: readonly CatalogTool[]): CatalogToolView[] {
  if (!Array.isArray(catalog)) throw new SluiceError("SPEC_INVALID", "A catalog is an array of tools.", { pointer: "" });
  const views = catalog.map((entry, index) => viewCatalogTool(entry, index));
  const seen = new Set<string>();
  views.forEach((view, index) => {
    if (seen.has(view.name)) throw new SluiceError("INVALID_NAME", `Two tools are named ${view.name}; a provider rejects the whole request.`, { pointer: `/${index}` });
    seen.add(view.name);
  });
  return views;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The entry with another description, in the entry's own shape. Provider-typed tools are returned as they are. */
export function withDescription(view: CatalogToolView, description: string): CatalogTool {
  const entry = view.entry as object;
  switch (view.shape) {
    case "chat":
      return { ...(entry as ChatFunctionCatalogTool), function: { ...(entry as ChatFunctionCatalogTool).function, description } };
    case "anthropic":
    case "responses":
      return { ...entry, description } as CatalogTool;
    case "schema":
      // A sluice Tool keeps its fields behind getters; send the definition it stands for.
      return isPlainObject(entry) ? ({ ...entry, description } as CatalogTool) : { name: view.name, description, inputSchema: view.inputSchema ?? EMPTY_OBJECT_SCHEMA };
    case "provider-typed":
      return view.entry;
  }
}

/** A new tool definition in the given shape (the shape of the catalog it joins). */
export function toolInShape(shape: CatalogShape, name: string, description: string, inputSchema: JsonSchemaObject): CatalogTool {
  switch (shape) {
    case "chat":
      return { type: "function", function: { name, description, parameters: inputSchema } };
    case "anthropic":
      return { name, description, input_schema: inputSchema };
    case "responses":
      return { type: "function", name, description, parameters: inputSchema };
    case "schema":
    case "provider-typed":
      return { name, description, inputSchema };
  }
}
