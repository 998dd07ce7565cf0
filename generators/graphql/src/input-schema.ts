import {
  astFromValue,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  valueFromASTUntyped,
  type GraphQLArgument,
  type GraphQLEnumType,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLScalarType,
} from "graphql";
import type { WithheldPath, WithheldReason } from "@sluice/core";
import type { JsonSchemaObject } from "@sluice/schema";
import { isSecretScalarName } from "./selection-set.ts";

/** Why the config withholds one member of an input type, if it does (`credentialArguments` / `withhold` with a `Type.member` selector). */
export type MemberRule = (type: GraphQLInputObjectType, field: GraphQLInputField) => WithheldReason | undefined;

/**
 * GraphQL input types -> JSON Schema 2020-12 (https://spec.graphql.org/October2021/#sec-Input-Objects).
 * Named input objects and enums become entries of one shared defs table and are referenced as
 * `#/$defs/Name`, so recursive inputs (Linear `IssueFilter.and`) stay finite cycles.
 */
export class InputSchemaBuilder {
  readonly #defs = new Map<string, JsonSchemaObject>();
  readonly #withheld = new Map<string, WithheldPath[]>();
  /**
   * Named types reserved but not yet converted. A type's members are converted from this
   * work list, never by recursing into the referenced type, so a chain of input types
   * 20,000 levels long costs 20,000 iterations, not 20,000 stack frames.
   */
  readonly #pending: Array<() => void> = [];

  constructor(private readonly memberRule: MemberRule = () => undefined) {}

  /** Input fields left out of their type's schema, by type name. */
  get withheldMembers(): ReadonlyMap<string, WithheldPath[]> {
    return this.#withheld;
  }

  /** Defs created so far: exactly the named types some converted type reaches. */
  get defs(): ReadonlyMap<string, JsonSchemaObject> {
    return this.#defs;
  }

  /** Schema for a field argument or input field: type plus description, default, deprecation. */
  forValue(value: GraphQLArgument | GraphQLInputField): JsonSchemaObject {
    const schema = this.#valueSchema(value);
    this.#drain();
    return schema;
  }

  forType(type: GraphQLInputType): JsonSchemaObject {
    const schema = this.#typeSchema(type);
    this.#drain();
    return schema;
  }

  /** Converts every reserved type; converting one may reserve more, which join the list. */
  #drain(): void {
    for (let next = this.#pending.pop(); next !== undefined; next = this.#pending.pop()) next();
  }

  #valueSchema(value: GraphQLArgument | GraphQLInputField): JsonSchemaObject {
    const entries: [string, unknown][] = Object.entries(this.#typeSchema(value.type));
    if (value.description != null && value.description !== "") entries.push(["description", value.description]);
    if (value.defaultValue !== undefined) {
      const json = defaultAsJson(value);
      if (json !== undefined) entries.push(["default", json]);
    }
    if (value.deprecationReason != null) entries.push(["deprecated", true]);
    return Object.fromEntries(entries);
  }

  /** Wrapping recursion is shallow: the loader refuses more than 64 list/non-null levels. */
  #typeSchema(type: GraphQLInputType): JsonSchemaObject {
    // Nullable inputs are simply optional: `required` carries non-null, not the type.
    if (isNonNullType(type)) return this.#typeSchema(type.ofType);
    if (isListType(type)) return { type: "array", items: this.#typeSchema(type.ofType) };
    if (isScalarType(type)) return scalarSchema(type);
    if (isEnumType(type)) return this.#ref(type, () => enumSchema(type));
    if (isInputObjectType(type)) return this.#ref(type, () => this.#inputObjectSchema(type));
    throw new TypeError(`unexpected input type ${String(type)}`);
  }

  #ref(type: GraphQLEnumType | GraphQLInputObjectType, build: () => JsonSchemaObject): JsonSchemaObject {
    if (!this.#defs.has(type.name)) {
      // Reserve the slot first: a cycle back to this type then finds it and emits a ref.
      this.#defs.set(type.name, {});
      this.#pending.push(() => this.#defs.set(type.name, build()));
    }
    return { $ref: `#/$defs/${type.name}` };
  }

  #inputObjectSchema(type: GraphQLInputObjectType): JsonSchemaObject {
    const fields = Object.values(type.getFields()).filter((field) => {
      const reason = this.memberRule(type, field) ?? (isWithheldInput(field) ? "internal" : undefined);
      if (reason === undefined) return true;
      const withheld = this.#withheld.get(type.name) ?? [];
      withheld.push({ path: `${type.name}.${field.name}`, reason });
      this.#withheld.set(type.name, withheld);
      return false;
    });
    const properties = Object.fromEntries(fields.map((field) => [field.name, this.#valueSchema(field)]));
    const required = fields.filter(isRequiredInput).map((field) => field.name);
    const entries: [string, unknown][] = [["type", "object"]];
    if (type.description != null && type.description !== "") entries.push(["description", type.description]);
    entries.push(["properties", properties]);
    if (required.length > 0) entries.push(["required", required]);
    return Object.fromEntries(entries);
  }
}

/**
 * Inputs the API documents as not public (`[INTERNAL] ...`, Linear's convention) are
 * withheld from the model: they may change without notice and cost tokens on every
 * turn (Linear's internal `sort` argument alone is ~2,800 tokens). Required inputs are
 * always kept.
 */
export function isWithheldInput(value: GraphQLArgument | GraphQLInputField): boolean {
  return /^\s*\[internal\]/i.test(value.description ?? "") && !isRequiredInput(value);
}

/** Non-null without a default: the caller must send it. */
export function isRequiredInput(value: GraphQLArgument | GraphQLInputField): boolean {
  return isNonNullType(value.type) && value.defaultValue === undefined;
}

function enumSchema(type: GraphQLEnumType): JsonSchemaObject {
  // Deprecated values stay: the server still accepts them.
  const entries: [string, unknown][] = [
    ["type", "string"],
    ["enum", type.getValues().map((value) => value.name)],
  ];
  if (type.description != null && type.description !== "") entries.push(["description", type.description]);
  return Object.fromEntries(entries);
}

const BUILT_IN_SCALARS: Readonly<Record<string, JsonSchemaObject>> = {
  String: { type: "string" },
  ID: { type: "string" },
  Int: { type: "integer" },
  Float: { type: "number" },
  Boolean: { type: "boolean" },
};

/** Well-known custom scalars, by name (https://spec.graphql.org/October2021/#sec-Scalars.Custom-Scalars). */
export function scalarSchema(type: GraphQLScalarType): JsonSchemaObject {
  const name = type.name;
  const builtIn = Object.hasOwn(BUILT_IN_SCALARS, name) ? BUILT_IN_SCALARS[name] : undefined;
  if (builtIn !== undefined) return { ...builtIn };
  if (name === "DateTime" || name.endsWith("DateTime")) return { type: "string", format: "date-time" };
  if (name === "Date" || name === "TimelessDate") return { type: "string", format: "date" };
  if (name === "UUID") return { type: "string", format: "uuid" };
  if (name === "URI" || name === "URL" || name === "Url") return { type: "string", format: "uri" };
  if (name === "JSON") return {};
  if (name === "JSONObject") return { type: "object" };
  if (name === "JSONString") return { type: "string", description: type.description ?? "A JSON value serialized as a string." };
  const description = type.description != null && type.description !== "" ? type.description : `Custom scalar ${name}`;
  // A scalar named like a secret (`SecureValue`, `Password`): `format: password` marks every member of its type for secret detection.
  if (isSecretScalarName(name)) return { type: "string", format: "password", description };
  return { type: "string", description };
}

/** Defaults as JSON: graphql holds them coerced; print back to a literal, then read it untyped. */
function defaultAsJson(value: GraphQLArgument | GraphQLInputField): unknown {
  const fromSdl = value.astNode?.defaultValue;
  if (fromSdl != null) return valueFromASTUntyped(fromSdl);
  try {
    const ast = astFromValue(value.defaultValue, value.type);
    return ast == null ? undefined : valueFromASTUntyped(ast);
  } catch {
    return undefined;
  }
}
