import {
  getNamedType,
  isLeafType,
  parse,
  print,
  validate,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLSchema,
} from "graphql";
import { FULL_STYLE, rootSelection, SIMPLE_STYLE } from "./selection-set.ts";

/**
 * One operation document per root field (https://spec.graphql.org/October2021/#sec-Language.Operations):
 * variables named exactly as the arguments, typed exactly as the schema declares them, no
 * variable defaults (the server applies its own). Every document is validated against the
 * schema before it is returned.
 */
export interface OperationDocument {
  document: string;
  variables: Record<string, string>;
}

export function buildOperationDocument(
  schema: GraphQLSchema,
  operationType: "query" | "mutation",
  field: GraphQLField<unknown, unknown>,
  args: readonly GraphQLArgument[] = field.args,
): OperationDocument | { error: string } {
  // Only the arguments the tool exposes: a withheld argument is neither declared nor passed.
  const variables = Object.fromEntries(args.map((arg) => [arg.name, String(arg.type)]));
  const definitions = args.map((arg) => `$${arg.name}: ${String(arg.type)}`);
  const passed = args.map((arg) => `${arg.name}: $${arg.name}`);
  const head = `${operationType} ${pascalCase(field.name)}${definitions.length > 0 ? `(${definitions.join(", ")})` : ""}`;
  const call = `${field.name}${passed.length > 0 ? `(${passed.join(", ")})` : ""}`;

  const named = getNamedType(field.type);
  const candidates = isLeafType(named)
    ? [undefined]
    : [rootSelection(named, FULL_STYLE), rootSelection(named, SIMPLE_STYLE), "__typename"];
  let lastError = "no selection";
  for (const selection of new Set(candidates)) {
    const text = `${head} { ${call}${selection === undefined ? "" : ` { ${selection} }`} }`;
    const ast = parse(text, { noLocation: true });
    const errors = validate(schema, ast);
    if (errors.length === 0) return { document: print(ast), variables };
    lastError = errors.map((error) => error.message).join("; ");
  }
  return { error: lastError };
}

/** Problems graphql-js finds in `document` against `schema` (empty when valid); syntax errors included. */
export function validateOperationDocument(schema: GraphQLSchema, document: string): string[] {
  try {
    return validate(schema, parse(document)).map((error) => error.message);
  } catch (error) {
    return [(error as Error).message];
  }
}

/** `issueCreate` -> `IssueCreate`; operation names only need to be valid GraphQL names. */
export function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
