import type { PackIR } from "@sluice/core";
import type { JsonSchemaObject } from "@sluice/schema";
import { generatedHeader, type GeneratorInfo } from "./header.ts";
import { toolIdentifiers, typeNameForDef, typeNamesForDefs, type ToolIdentifiers } from "./identifiers.ts";
import { jsDoc, SourceText } from "./source-file.ts";

/**
 * `src/types.gen.ts`: a TypeScript view of the IR's JSON Schemas, so a wrong argument in user
 * code is a compile error. Input objects become interfaces, enums string-literal unions.
 * `names` and `ids` are the pack's (emitPackFiles computes them once for every file).
 */
export function emitTypesSource(
  pack: PackIR,
  generator: GeneratorInfo,
  header = generatedHeader(pack, generator),
  names: ReadonlyMap<string, string> = typeNamesForDefs(Object.keys(pack.defs)),
  ids: ReadonlyMap<string, ToolIdentifiers> = toolIdentifiers(pack, names),
): string {
  const file = new SourceText(header);
  const docs = new DocComments();
  for (const [name, schema] of Object.entries(pack.defs)) {
    const typeName = names.get(name)!;
    if (Array.isArray(schema.enum) || !isObjectShape(schema)) {
      file.begin().push(docs.of(schema, ""), "export type ", typeName, typeAnnotation(" =", tsTypeOf(schema, names)), ";");
      file.end();
    } else {
      writeInterface(file, typeName, schema, docs.of(schema, ""), names, docs);
    }
  }
  for (const tool of pack.tools) {
    const { properties, required } = tool.parameters;
    writeInterface(file, ids.get(tool.name)!.args, { type: "object", properties, required }, docComment(`Arguments of \`${tool.name}\`.`, ""), names, docs);
  }
  return file.finish();
}

/** An interface statement, its members pushed straight onto the file's parts. */
function writeInterface(file: SourceText, name: string, schema: JsonSchemaObject, docs: string, names: ReadonlyMap<string, string>, comments: DocComments): void {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out = file.begin(true);
  out.push(docs, "export interface ", name, " {\n");
  for (const [key, property] of objectProperties(schema)) {
    const propertyName = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
    out.push("  ", comments.of(property, "  "), propertyName, required.has(key) ? "" : "?", typeAnnotation(":", tsTypeOf(property, names)), ";\n");
  }
  out.push("}");
  file.end();
}

/** A doc comment on its own line(s), then the indentation the declaration continues at. */
function docComment(doc: string, indent: string): string {
  return `${jsDoc(doc, indent)}\n${indent}`;
}

/**
 * Each schema's doc comment as it stands before its declaration, built once per text and
 * indentation: a spec repeats its parameters' descriptions in every operation (Kubernetes:
 * 12,298 property descriptions, 5 MB, of which 1,457 differ), each escaped and laid out once.
 */
class DocComments {
  /** By indentation, then by deprecation (0 no, 1 yes), then by description: the spec's own strings are the keys, their hashes computed once. */
  private readonly built = new Map<string, [Map<string, string>, Map<string, string>]>();

  /** The description (`*\/` inside it must not end the comment early) and `@deprecated`; empty when neither. */
  of(schema: JsonSchemaObject, indent: string): string {
    const description = typeof schema.description === "string" ? schema.description : "";
    const deprecated = schema.deprecated === true;
    if (description === "" && !deprecated) return "";
    let byFlag = this.built.get(indent);
    if (byFlag === undefined) this.built.set(indent, (byFlag = [new Map(), new Map()]));
    const known = byFlag[deprecated ? 1 : 0];
    let text = known.get(description);
    if (text === undefined) {
      const lines: string[] = [];
      if (description.trim() !== "") lines.push(description.includes("*/") ? description.replace(/\*\//g, "*\\/") : description);
      if (deprecated) lines.push("@deprecated");
      text = lines.length === 0 ? "" : docComment(lines.join("\n\n"), indent);
      known.set(description, text);
    }
    return text;
  }
}

/** `: T` or ` = T`; nothing when the type text is blank (as structure printing dropped it). */
function typeAnnotation(separator: string, type: string): string {
  return type.trim() === "" ? "" : `${separator} ${type}`;
}

function objectProperties(schema: JsonSchemaObject): [string, JsonSchemaObject][] {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return [];
  return Object.entries(properties as Record<string, JsonSchemaObject>);
}

function tsTypeOf(schema: JsonSchemaObject, names: ReadonlyMap<string, string>): string {
  if (typeof schema.$ref === "string") {
    const def = schema.$ref.replace(/^#\/\$defs\//, "");
    return names.get(def) ?? typeNameForDef(def);
  }
  if (Object.hasOwn(schema, "const")) return literalType(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literalType).join(" | ") || "never";
  if (Array.isArray(schema.type)) {
    const members = schema.type.map((type) => tsTypeOf({ ...schema, type }, names));
    return members.includes("unknown") ? "unknown" : [...new Set(members)].join(" | ") || "never";
  }
  if (schema.type === undefined && isObjectShape(schema)) return tsTypeOf({ ...schema, type: "object" }, names);
  if (schema.type === undefined) {
    // OpenAPI unions and compositions; GraphQL input types never produce these.
    for (const [keyword, glue] of [["anyOf", " | "], ["oneOf", " | "], ["allOf", " & "]] as const) {
      const branches = schema[keyword];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      const members = (branches as JsonSchemaObject[]).map((branch) => (typeof branch === "object" && branch !== null ? tsTypeOf(branch, names) : "unknown"));
      if (members.includes("unknown")) return "unknown";
      return members.map((member) => (/[|&]/.test(member) ? `(${member})` : member)).join(glue);
    }
  }
  switch (schema.type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const items = tsTypeOf((typeof schema.items === "object" && schema.items !== null ? schema.items : {}) as JsonSchemaObject, names);
      return /[|&]/.test(items) ? `(${items})[]` : `${items}[]`;
    }
    case "object": {
      const properties = objectProperties(schema);
      if (properties.length === 0) {
        const additional = schema.additionalProperties;
        const value = typeof additional === "object" && additional !== null ? tsTypeOf(additional as JsonSchemaObject, names) : "unknown";
        return `{ [key: string]: ${value} }`;
      }
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      return `{ ${properties.map(([key, p]) => `${JSON.stringify(key)}${required.has(key) ? "" : "?"}: ${tsTypeOf(p, names)};`).join(" ")} }`;
    }
    default:
      return "unknown";
  }
}

/** `type: object`, or (OpenAPI) bare `properties` without a type or a composition. */
function isObjectShape(schema: JsonSchemaObject): boolean {
  if (schema.type === "object") return true;
  return schema.type === undefined && typeof schema.properties === "object" && schema.properties !== null && !schema.allOf && !schema.anyOf && !schema.oneOf;
}

function literalType(value: unknown): string {
  return value === null || ["string", "number", "boolean"].includes(typeof value) ? JSON.stringify(value) : "unknown";
}
