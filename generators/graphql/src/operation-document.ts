import {
  astFromValue,
  getNamedType,
  isLeafType,
  isNonNullType,
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
 * variables named exactly as the arguments, typed exactly as the schema declares them, each
 * with the argument's default where it has one (`$force: Boolean! = false`): the tool offers
 * such an argument as optional, and a non-null variable without a default must be provided
 * (https://spec.graphql.org/October2021/#sec-All-Variable-Usages-Are-Allowed, CoerceVariableValues).
 * Every document is validated against the schema before it is returned.
 */
export interface OperationDocument {
  document: string;
  variables: Record<string, string>;
  /** Secret-looking scalars the default selection left out (dotted paths below the root field), sorted; `returns` can name them. */
  secretOutputs?: string[];
}

export function buildOperationDocument(
  schema: GraphQLSchema,
  operationType: "query" | "mutation",
  field: GraphQLField<unknown, unknown>,
  args: readonly GraphQLArgument[] = field.args,
): OperationDocument | { error: string } {
  // Only the arguments the tool exposes: a withheld argument is neither declared nor passed.
  const variables = Object.fromEntries(args.map((arg) => [arg.name, String(arg.type)]));
  const definitions = args.map((arg) => {
    const literal = defaultLiteral(arg);
    // A default that cannot be printed: the variable is declared nullable, so that leaving it out lets the argument's default apply.
    const type = arg.defaultValue !== undefined && literal === "" && isNonNullType(arg.type) ? String(arg.type.ofType) : String(arg.type);
    return `$${arg.name}: ${type}${literal}`;
  });
  const passed = args.map((arg) => `${arg.name}: $${arg.name}`);
  const head = `${operationType} ${pascalCase(field.name)}${definitions.length > 0 ? `(${definitions.join(", ")})` : ""}`;
  const call = `${field.name}${passed.length > 0 ? `(${passed.join(", ")})` : ""}`;

  const named = getNamedType(field.type);
  const styles = [FULL_STYLE, SIMPLE_STYLE].map((style) => ({ ...style, secrets: new Set<string>() }));
  const candidates: { selection: string | undefined; secrets: Set<string> }[] = isLeafType(named)
    ? [{ selection: undefined, secrets: new Set() }]
    : [...styles.map((style) => ({ selection: rootSelection(named, style), secrets: style.secrets })), { selection: "__typename", secrets: new Set() }];
  let lastError = "no selection";
  const tried = new Set<string | undefined>();
  for (const { selection, secrets } of candidates) {
    if (tried.has(selection)) continue;
    tried.add(selection);
    const text = `${head} { ${call}${selection === undefined ? "" : ` { ${selection} }`} }`;
    const ast = parse(text, { noLocation: true });
    const errors = validate(schema, ast);
    if (errors.length === 0) return { document: print(ast), variables, ...(secrets.size > 0 ? { secretOutputs: [...secrets].sort() } : {}) };
    lastError = errors.map((error) => error.message).join("; ");
  }
  return { error: lastError };
}

/** ` = <literal>` for an argument with a default (as the schema wrote it, else printed from its value), else "". */
function defaultLiteral(arg: GraphQLArgument): string {
  if (arg.defaultValue === undefined) return "";
  const written = arg.astNode?.defaultValue;
  if (written != null) return ` = ${print(written)}`;
  try {
    const ast = astFromValue(arg.defaultValue, arg.type);
    return ast == null ? "" : ` = ${print(ast)}`;
  } catch {
    return "";
  }
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
