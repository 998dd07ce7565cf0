import type { PackIR } from "@sluice/core";
import type { JsonSchemaObject } from "@sluice/schema";
import { generatedHeader, type GeneratorInfo } from "../../../src/header.ts";
import { toolIdentifiers, typeNameForDef, typeNamesForDefs } from "./identifiers.ts";
import { jsDoc, printSourceFile, type Statement } from "./source-file.ts";

/**
 * `src/types.gen.ts`: a TypeScript view of the IR's JSON Schemas, so a wrong argument in user
 * code is a compile error. Input objects become interfaces, enums string-literal unions.
 */
export function emitTypesSource(pack: PackIR, generator: GeneratorInfo, header = generatedHeader(pack, generator)): string {
  const statements: Statement[] = [];
  const names = typeNamesForDefs(Object.keys(pack.defs));
  const tsType = (schema: JsonSchemaObject): string => tsTypeOf(schema, names);
  for (const [name, schema] of Object.entries(pack.defs)) {
    const typeName = names.get(name)!;
    const docs = docsFor(schema);
    if (Array.isArray(schema.enum) || !isObjectShape(schema)) {
      statements.push({ text: `${docsBefore(docs, "")}export type ${typeName}${typeAnnotation(" =", tsType(schema))};` });
    } else {
      statements.push(interfaceFor(typeName, schema, docs, names));
    }
  }
  const ids = toolIdentifiers(pack);
  for (const tool of pack.tools) {
    const { properties, required } = tool.parameters;
    statements.push(interfaceFor(ids.get(tool.name)!.args, { type: "object", properties, required }, [`Arguments of \`${tool.name}\`.`], names));
  }
  return printSourceFile(header, statements);
}

function interfaceFor(name: string, schema: JsonSchemaObject, docs: string[], names: ReadonlyMap<string, string>): Statement {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out = [docsBefore(docs, ""), `export interface ${name} {\n`];
  for (const [key, property] of objectProperties(schema)) {
    const propertyName = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
    out.push("  ", docsBefore(docsFor(property), "  "), propertyName, required.has(key) ? "" : "?", typeAnnotation(":", tsTypeOf(property, names)), ";\n");
  }
  out.push("}");
  return { text: out.join(""), block: true };
}

/** Each doc comment on its own line(s), then the indentation the declaration continues at. */
function docsBefore(docs: readonly string[], indent: string): string {
  let out = "";
  for (const doc of docs) out += `${jsDoc(doc, indent)}\n${indent}`;
  return out;
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
  const tsType = (inner: JsonSchemaObject): string => tsTypeOf(inner, names);
  if (typeof schema.$ref === "string") {
    const def = schema.$ref.replace(/^#\/\$defs\//, "");
    return names.get(def) ?? typeNameForDef(def);
  }
  if (Object.hasOwn(schema, "const")) return literalType(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literalType).join(" | ") || "never";
  if (Array.isArray(schema.type)) {
    const members = schema.type.map((type) => tsType({ ...schema, type }));
    return members.includes("unknown") ? "unknown" : [...new Set(members)].join(" | ") || "never";
  }
  if (schema.type === undefined && isObjectShape(schema)) return tsType({ ...schema, type: "object" });
  if (schema.type === undefined) {
    // OpenAPI unions and compositions; GraphQL input types never produce these.
    for (const [keyword, glue] of [["anyOf", " | "], ["oneOf", " | "], ["allOf", " & "]] as const) {
      const branches = schema[keyword];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      const members = (branches as JsonSchemaObject[]).map((branch) => (typeof branch === "object" && branch !== null ? tsType(branch) : "unknown"));
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
      const items = tsType((typeof schema.items === "object" && schema.items !== null ? schema.items : {}) as JsonSchemaObject);
      return /[|&]/.test(items) ? `(${items})[]` : `${items}[]`;
    }
    case "object": {
      const properties = objectProperties(schema);
      if (properties.length === 0) {
        const additional = schema.additionalProperties;
        const value = typeof additional === "object" && additional !== null ? tsType(additional as JsonSchemaObject) : "unknown";
        return `{ [key: string]: ${value} }`;
      }
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      return `{ ${properties.map(([key, p]) => `${JSON.stringify(key)}${required.has(key) ? "" : "?"}: ${tsType(p)};`).join(" ")} }`;
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

/** JSDoc lines; `*\/` inside a description must not end the comment early. */
function docsFor(schema: JsonSchemaObject): string[] {
  const lines: string[] = [];
  if (typeof schema.description === "string" && schema.description.trim() !== "") lines.push(schema.description.replace(/\*\//g, "*\\/"));
  if (schema.deprecated === true) lines.push("@deprecated");
  return lines.length === 0 ? [] : [lines.join("\n\n")];
}
