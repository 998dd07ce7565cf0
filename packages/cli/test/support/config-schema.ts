/**
 * Writes (or, with --check, compares) `packages/cli/config.schema.json`, the JSON schema of
 * `sluice.config.json`, from the TypeScript types in `generators/pipeline/src/config.ts`: each
 * interface becomes a definition, each property keeps its doc comment as `description`,
 * optional properties stay optional, and no other key is allowed (sluice refuses unknown
 * keys too). One source of truth: a field added to config.ts and not to the schema fails
 * `--check` and packages/cli/test/config-schema.test.ts.
 *   pnpm config-schema            (write)    pnpm config-schema --check   (compare)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Node, Project, SyntaxKind, type InterfaceDeclaration, type JSDocTag, type PropertySignature, type TypeNode } from "ts-morph";
import { CONFIG_PATTERNS, GRAPHQL_ONLY_KEYS, OPENAPI_ONLY_KEYS, SPEC_ONLY_KEYS } from "@sluice/pipeline/config-check";

const CONFIG = fileURLToPath(new URL("../../../../generators/pipeline/src/config.ts", import.meta.url));
export const SCHEMA_FILE = fileURLToPath(new URL("../../config.schema.json", import.meta.url));

type Schema = Record<string, unknown>;

/**
 * What validateConfig checks beyond the types, by place (`Interface.property`, `[]` an
 * array's items, `.*` a record's values), each from the value validateConfig itself uses
 * (CONFIG_PATTERNS). What a JSON schema cannot say at all is listed in
 * packages/cli/test/config-schema.test.ts, beside configs that show it.
 */
const CONSTRAINTS: Record<string, Schema> = {
  "PackConfig.name": { pattern: CONFIG_PATTERNS.packName, maxLength: CONFIG_PATTERNS.packNameMaxLength },
  "PackConfig.toolPrefix": { pattern: CONFIG_PATTERNS.toolPrefix },
  "PackConfig.authHeader": { pattern: CONFIG_PATTERNS.headerName },
  "PackConfig.out": { pattern: CONFIG_PATTERNS.filePath },
  "PackConfig.spec": { pattern: CONFIG_PATTERNS.filePath },
  "PackConfig.externalRefs.*": { pattern: CONFIG_PATTERNS.filePath },
  "PackConfig.mcp.cwd": { pattern: CONFIG_PATTERNS.filePath },
  "PackConfig.mcp.url": { pattern: CONFIG_PATTERNS.httpUrl },
  "PackConfig.mcp.headers": { propertyNames: { pattern: CONFIG_PATTERNS.headerName } },
  "PackConfig.mcp.env.*.fromEnv": { pattern: CONFIG_PATTERNS.envName },
  "PackConfig.mcp.headers.*.fromEnv": { pattern: CONFIG_PATTERNS.envName },
  "ToolChoice.name": { pattern: CONFIG_PATTERNS.toolName },
  "ToolChoice.description": { pattern: CONFIG_PATTERNS.notBlank },
  "OperationSelection.paths[]": { pattern: CONFIG_PATTERNS.pathGlob },
};
/** Strings that may be empty (every other string must not be): a server's argument, an environment variable's or a header's literal value. */
const MAY_BE_EMPTY = new Set(["PackConfig.mcp.args[]", "PackConfig.mcp.env.*", "PackConfig.mcp.headers.*"]);
/** Objects that must not be empty: a tool choice names a new name, a description or both. */
const NOT_EMPTY = new Set(["ToolChoice"]);

/**
 * validateConfig's rules between a pack's keys, as draft-07 `if`/`then`: an MCP source
 * takes no spec option and no other kind; `kind: "mcp"` needs one; a kind refuses the
 * other kind's options.
 */
function packRules(): Schema[] {
  const refuse = (keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, false]));
  return [
    { if: { required: ["mcp"] }, then: { properties: { kind: { const: "mcp" }, ...refuse(SPEC_ONLY_KEYS) } } },
    { if: { properties: { kind: { const: "mcp" } }, required: ["kind"] }, then: { required: ["mcp"] } },
    { if: { properties: { kind: { const: "graphql" } }, required: ["kind"] }, then: { properties: refuse(OPENAPI_ONLY_KEYS) } },
    { if: { properties: { kind: { const: "openapi" } }, required: ["kind"] }, then: { properties: refuse(Object.keys(GRAPHQL_ONLY_KEYS)) } },
  ];
}

/** The schema of config.ts's `SluiceConfig`, as the text the committed file holds. */
export function buildConfigSchema(configFile = CONFIG): string {
  const project = new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true });
  const source = project.createSourceFile("config.ts", readFileSync(configFile, "utf8"));
  const definitions: Record<string, Schema> = {};
  const interfaces = new Map(source.getInterfaces().map((declaration) => [declaration.getName(), declaration]));
  // Type aliases (`type McpSourceConfig = ...`) are written in place, as if their type were spelt out.
  const aliases = new Map(source.getTypeAliases().map((declaration) => [declaration.getName(), declaration]));

  // Read from the syntax, not the type checker: config.ts imports nothing, and parsing alone takes milliseconds where a checker loads the whole lib.
  const typeSchema = (node: TypeNode, at: string): Schema => {
    if (Node.isParenthesizedTypeNode(node)) return typeSchema(node.getTypeNode(), at);
    if (node.getKind() === SyntaxKind.StringKeyword) return MAY_BE_EMPTY.has(at) ? { type: "string" } : { type: "string", minLength: 1 };
    if (node.getKind() === SyntaxKind.BooleanKeyword) return { type: "boolean" };
    if (Node.isLiteralTypeNode(node)) {
      const literal = node.getLiteral();
      if (Node.isStringLiteral(literal)) return { const: literal.getLiteralValue() };
    }
    if (node.getKind() === SyntaxKind.NumberKeyword) return { type: "number" };
    if (Node.isUnionTypeNode(node)) {
      const parts = node.getTypeNodes().map((part) => typeSchema(part, at));
      if (parts.every((part) => Object.hasOwn(part, "const"))) return { enum: parts.map((part) => part["const"]) };
      return { anyOf: parts };
    }
    // An inline object type (`{ command: string; args?: string[] }`): as an interface would be, without a name.
    if (Node.isTypeLiteral(node)) return { ...objectSchema(node.getMembers(), at), ...CONSTRAINTS[at] };
    if (Node.isArrayTypeNode(node)) {
      const items = typeSchema(node.getElementTypeNode(), `${at}[]`);
      return { type: "array", items: { ...items, ...CONSTRAINTS[`${at}[]`] } };
    }
    if (Node.isTypeReference(node)) {
      const name = node.getTypeName().getText();
      const args = node.getTypeArguments();
      if (interfaces.has(name) && args.length === 0) return { $ref: `#/definitions/${define(interfaces.get(name)!)}` };
      if (aliases.has(name) && args.length === 0) return typeSchema(aliases.get(name)!.getTypeNodeOrThrow(), at);
      if (name === "Record" && args.length === 2 && args[0]!.getKind() === SyntaxKind.StringKeyword) return { type: "object", additionalProperties: { ...typeSchema(args[1]!, `${at}.*`), ...CONSTRAINTS[`${at}.*`] }, ...CONSTRAINTS[at] };
    }
    throw new Error(`${at}: a type the schema generator does not handle: ${node.getText()}`);
  };

  // A quoted property name (`"path-fold"?: boolean`) is the key without its quotes.
  const keyOf = (property: PropertySignature): string => {
    const name = property.getNameNode();
    return Node.isStringLiteral(name) ? name.getLiteralValue() : property.getName();
  };

  const propertySchema = (property: PropertySignature, owner: string): Schema => {
    const at = `${owner}.${keyOf(property)}`;
    const schema = typeSchema(property.getTypeNodeOrThrow(), at);
    // A record or an inline object carries its own constraints (typeSchema adds them); a string or an array here.
    if (!Object.hasOwn(schema, "additionalProperties")) Object.assign(schema, CONSTRAINTS[at]);
    const doc = property.getJsDocs().at(-1);
    const description = oneLine(doc?.getDescription() ?? "");
    for (const tag of doc?.getTags() ?? []) {
      // Constraints the type cannot say, which validateConfig checks too: `@pattern <regex>`, `@minItems <n>`.
      const text = String(tag.getCommentText() ?? "").trim();
      if (tag.getTagName() === "pattern") schema["pattern"] = text;
      if (tag.getTagName() === "minItems") schema["minItems"] = Number(text);
    }
    return description === "" ? schema : { description, ...schema };
  };

  function objectSchema(members: readonly Node[], owner: string): Schema {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const member of members) {
      if (!Node.isPropertySignature(member)) throw new Error(`${owner}: only properties can be described, not ${member.getText()}`);
      properties[keyOf(member)] = propertySchema(member, owner);
      if (!member.hasQuestionToken()) required.push(keyOf(member));
    }
    return { type: "object", properties, ...(required.length === 0 ? {} : { required }), additionalProperties: false };
  }

  function define(declaration: InterfaceDeclaration): string {
    const name = declaration.getName();
    if (Object.hasOwn(definitions, name)) return name;
    definitions[name] = {}; // claimed first: a recursive interface refers to itself
    const body = objectSchema(declaration.getMembers(), name);
    // The comment right above the interface (a module's own comment may precede it).
    const jsDoc = declaration.getJsDocs().at(-1);
    const doc = oneLine(jsDoc?.getDescription() ?? "");
    const rules = name === "PackConfig" ? { allOf: packRules() } : {};
    definitions[name] = { ...(doc === "" ? {} : { description: doc }), ...body, ...(NOT_EMPTY.has(name) ? { minProperties: 1 } : {}), ...exactlyOne(jsDoc?.getTags() ?? [], body, name), ...rules };
    return name;
  }

  const root = define(interfaces.get("SluiceConfig") ?? (() => { throw new Error("config.ts declares no SluiceConfig"); })());
  const { [root]: top, ...rest } = definitions;
  const schema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "https://github.com/sluice/sluice/blob/main/packages/cli/config.schema.json",
    title: "sluice.config.json",
    ...top,
    definitions: Object.fromEntries(Object.keys(rest).sort().map((key) => [key, rest[key]])),
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/**
 * `@exactlyOne a b` on an interface: a value has exactly one of the optional properties
 * `a` and `b` (validateConfig's rule for `spec` and `mcp`), which TypeScript's optional
 * properties cannot say. Written as `oneOf` of one `required` each: with both present both
 * branches match, with none neither does, and either fails `oneOf`.
 */
function exactlyOne(tags: readonly JSDocTag[], body: Schema, owner: string): Schema {
  const groups = tags.filter((tag) => tag.getTagName() === "exactlyOne").map((tag) => String(tag.getCommentText() ?? "").trim().split(/\s+/).filter((name) => name !== ""));
  if (groups.length === 0) return {};
  if (groups.length > 1) throw new Error(`${owner}: one @exactlyOne per interface (two would need an allOf of oneOfs)`);
  const names = groups[0]!;
  const properties = body["properties"] as Record<string, Schema>;
  const required = (body["required"] as string[] | undefined) ?? [];
  if (names.length < 2) throw new Error(`${owner}: @exactlyOne names at least two properties, not ${JSON.stringify(names)}`);
  for (const property of names) {
    if (!Object.hasOwn(properties, property)) throw new Error(`${owner}: @exactlyOne names ${property}, which it does not declare`);
    if (required.includes(property)) throw new Error(`${owner}: @exactlyOne names ${property}, which is required anyway`);
  }
  // `properties: { <name>: true }` adds no constraint; it is there because Ajv's strict mode
  // (strictRequired) refuses a `required` whose schema object does not mention the property.
  return { oneOf: names.map((property) => ({ properties: { [property]: true }, required: [property] })) };
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, " ");
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = buildConfigSchema();
  if (process.argv.includes("--check")) {
    const committed = readFileSync(SCHEMA_FILE, "utf8");
    if (committed !== text) {
      console.error("packages/cli/config.schema.json is out of date with packages/cli/src/config.ts: run pnpm config-schema");
      process.exitCode = 1;
    } else console.log("packages/cli/config.schema.json: up to date");
  } else {
    writeFileSync(SCHEMA_FILE, text);
    console.log("wrote packages/cli/config.schema.json");
  }
}
