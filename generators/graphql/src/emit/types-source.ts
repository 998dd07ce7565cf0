import {
  StructureKind,
  type InterfaceDeclarationStructure,
  type OptionalKind,
  type PropertySignatureStructure,
  type StatementStructures,
} from "ts-morph";
import type { PackIR } from "@sluice/core";
import type { JsonSchemaObject } from "@sluice/schema";
import { generatedHeader } from "./header.ts";
import { toolIdentifiers, typeNameForDef } from "./identifiers.ts";
import { printSourceFile } from "./source-file.ts";

/**
 * `src/types.gen.ts`: a TypeScript view of the IR's JSON Schemas, so a wrong argument in user
 * code is a compile error. Input objects become interfaces, enums string-literal unions.
 */
export function emitTypesSource(pack: PackIR): string {
  const statements: StatementStructures[] = [];
  for (const [name, schema] of Object.entries(pack.defs)) {
    const typeName = typeNameForDef(name);
    const docs = docsFor(schema);
    if (Array.isArray(schema.enum) || schema.type !== "object") {
      statements.push({ kind: StructureKind.TypeAlias, name: typeName, isExported: true, type: tsType(schema), docs });
    } else {
      statements.push(interfaceFor(typeName, schema, docs));
    }
  }
  const ids = toolIdentifiers(pack);
  for (const tool of pack.tools) {
    const { properties, required } = tool.parameters;
    statements.push(interfaceFor(ids.get(tool.name)!.args, { type: "object", properties, required }, [`Arguments of \`${tool.name}\`.`]));
  }
  return printSourceFile(generatedHeader(pack), statements);
}

function interfaceFor(name: string, schema: JsonSchemaObject, docs: string[]): InterfaceDeclarationStructure {
  const properties = objectProperties(schema);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return {
    kind: StructureKind.Interface,
    name,
    isExported: true,
    docs,
    properties: properties.map(([key, property]): OptionalKind<PropertySignatureStructure> => ({
      name: /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key),
      hasQuestionToken: !required.has(key),
      type: tsType(property),
      docs: docsFor(property),
    })),
  };
}

function objectProperties(schema: JsonSchemaObject): [string, JsonSchemaObject][] {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return [];
  return Object.entries(properties as Record<string, JsonSchemaObject>);
}

function tsType(schema: JsonSchemaObject): string {
  if (typeof schema.$ref === "string") return typeNameForDef(schema.$ref.replace(/^#\/\$defs\//, ""));
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ") || "never";
  switch (schema.type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array": {
      const items = tsType((schema.items ?? {}) as JsonSchemaObject);
      return /[|&]/.test(items) ? `(${items})[]` : `${items}[]`;
    }
    case "object": {
      const properties = objectProperties(schema);
      if (properties.length === 0) return "{ [key: string]: unknown }";
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      return `{ ${properties.map(([key, p]) => `${JSON.stringify(key)}${required.has(key) ? "" : "?"}: ${tsType(p)};`).join(" ")} }`;
    }
    default:
      return "unknown";
  }
}

/** JSDoc lines; `*\/` inside a description must not end the comment early. */
function docsFor(schema: JsonSchemaObject): string[] {
  const lines: string[] = [];
  if (typeof schema.description === "string" && schema.description.trim() !== "") lines.push(schema.description.replace(/\*\//g, "*\\/"));
  if (schema.deprecated === true) lines.push("@deprecated");
  return lines.length === 0 ? [] : [lines.join("\n\n")];
}
