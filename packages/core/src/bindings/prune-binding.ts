import { graphql } from "../graphql-lib.ts";
import type { Binding, GraphQLBinding, HttpBinding, McpBinding } from "../tool-ir.ts";

/**
 * The binding follows the projection: arguments a projection removed are no longer
 * declared, passed or sent. Pinned arguments are not removed here: the binding still
 * sends them, with the pinned value.
 */
export function pruneBinding(binding: Binding, removedArgs: ReadonlySet<string>): Binding {
  if (removedArgs.size === 0) return binding;
  if (binding.kind === "mcp") return pruneMcpBinding(binding, removedArgs);
  return binding.kind === "graphql" ? pruneGraphQLBinding(binding, removedArgs) : pruneHttpBinding(binding, removedArgs);
}

function pruneMcpBinding(binding: McpBinding, removed: ReadonlySet<string>): McpBinding {
  const kept = binding.arguments.filter((arg) => !removed.has(arg));
  return kept.length === binding.arguments.length ? binding : { ...binding, arguments: kept };
}

function pruneGraphQLBinding(binding: GraphQLBinding, removed: ReadonlySet<string>): GraphQLBinding {
  const variables = Object.fromEntries(Object.entries(binding.variables).filter(([name]) => !removed.has(name)));
  if (Object.keys(variables).length === Object.keys(binding.variables).length) return binding;
  const document = graphql().visit(graphql().parse(binding.document), {
    VariableDefinition: (node) => (removed.has(node.variable.name.value) ? null : undefined),
    Argument: (node) => (node.value.kind === graphql().Kind.VARIABLE && removed.has(node.value.name.value) ? null : undefined),
  });
  return { ...binding, document: graphql().print(document), variables };
}

function pruneHttpBinding(binding: HttpBinding, removed: ReadonlySet<string>): HttpBinding {
  const pruned: HttpBinding = { ...binding, parameters: binding.parameters.filter((p) => !removed.has(p.arg)) };
  // A removed parameter's wire name stays reserved: no exploded key may re-create it.
  const gone = binding.parameters.filter((p) => removed.has(p.arg) && p.in !== "path").map((p) => ({ arg: p.arg, name: p.name, in: p.in }));
  if (gone.length > 0) pruned.withheldParameters = [...(binding.withheldParameters ?? []), ...gone];
  if (binding.body) {
    const body = { ...binding.body };
    if (body.fields) body.fields = Object.fromEntries(Object.entries(body.fields).filter(([arg]) => !removed.has(arg)));
    if (body.wholeBodyArg !== undefined && removed.has(body.wholeBodyArg)) delete body.wholeBodyArg;
    pruned.body = body;
  }
  return pruned;
}
