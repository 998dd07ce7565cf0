import { getNamedType, type GraphQLField, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import type { PackIR, SkippedOperation, ToolIR, WithheldPath } from "@sluice/core";
import { withinLimits, type JsonSchemaObject } from "@sluice/schema";
import { InputSchemaBuilder, isRequiredInput, isWithheldInput } from "./input-schema.ts";
import { buildOperationDocument } from "./operation-document.ts";
import { connectionShape } from "./selection-set.ts";
import { assignToolNames, compareText, type RootFieldRef } from "./tool-names.ts";

export interface PackSourceInfo {
  /** Pack name, e.g. `linear`. */
  name: string;
  /** Spec file name relative to the pack's `spec/` folder. */
  file: string;
  sha256: string;
}

const DESTRUCTIVE = /delete|archive|remove|revoke|destroy|cancel/i;

/** One tool per Query and Mutation field; Subscription fields are recorded as skipped. */
export function buildGraphQLPackIR(schema: GraphQLSchema, source: PackSourceInfo, options: BuildGraphQLOptions = {}): PackIR {
  return withinLimits(`generating pack ${source.name} from ${source.file}`, () => buildPackIR(schema, source, options));
}

export interface BuildGraphQLOptions {
  /**
   * Which root fields become tools (default: all). Asked once per field, with its tool name
   * as assigned over the whole schema, so a selection never renames a tool.
   */
  select?: (field: GraphQLFieldInfo) => boolean;
}

/** What `select` sees of a root field. */
export interface GraphQLFieldInfo {
  tool: string;
  operationType: "query" | "mutation";
  field: string;
}

function buildPackIR(schema: GraphQLSchema, source: PackSourceInfo, options: BuildGraphQLOptions): PackIR {
  const roots: { ref: RootFieldRef; field: GraphQLField<unknown, unknown> }[] = [];
  for (const [operationType, root] of [
    ["query", schema.getQueryType()],
    ["mutation", schema.getMutationType()],
  ] as const) {
    for (const field of rootFields(root)) {
      const isConnection = connectionShape(getNamedType(field.type)) !== undefined;
      roots.push({ ref: { operationType, field: field.name, isConnection }, field });
    }
  }
  const names = assignToolNames(roots.map((root) => root.ref));
  const inputs = new InputSchemaBuilder();
  const tools: ToolIR[] = [];
  const skipped: SkippedOperation[] = [];

  const ordered = [...roots].sort((a, b) => compareText(names.get(a.ref)!, names.get(b.ref)!));
  for (const { ref, field } of ordered) {
    if (options.select !== undefined && !options.select({ tool: names.get(ref)!, operationType: ref.operationType, field: field.name })) continue;
    const args = field.args.filter((arg) => !isWithheldInput(arg));
    const operation = buildOperationDocument(schema, ref.operationType, field, args);
    if ("error" in operation) {
      skipped.push({ operation: `${ref.operationType === "query" ? "Query" : "Mutation"}.${field.name}`, reason: `no valid operation document: ${operation.error}` });
      continue;
    }
    const properties = Object.fromEntries(args.map((arg) => [arg.name, inputs.forValue(arg)]));
    const required = args.filter(isRequiredInput).map((arg) => arg.name);
    const withheld = field.args.filter(isWithheldInput).map((arg): WithheldPath => ({ path: arg.name, reason: "internal" }));
    tools.push({
      name: names.get(ref)!,
      ...(withheld.length > 0 ? { withheld } : {}),
      description: describe(ref, field),
      parameters: { properties, required },
      binding: { kind: "graphql", operationType: ref.operationType, field: field.name, ...operation },
      annotations:
        ref.operationType === "query"
          ? { readOnly: true, idempotent: true }
          : { readOnly: false, destructive: DESTRUCTIVE.test(field.name) },
    });
  }
  for (const field of rootFields(schema.getSubscriptionType())) {
    skipped.push({ operation: `Subscription.${field.name}`, reason: "subscriptions are not callable as tools" });
  }
  skipped.sort((a, b) => compareText(a.operation, b.operation));

  const defs: Record<string, JsonSchemaObject> = Object.fromEntries(
    [...inputs.defs.entries()].sort(([a], [b]) => compareText(a, b)),
  );
  // Only types some tool reaches: the builder records withheld members as it converts.
  const withheldMembers: Record<string, WithheldPath[]> = Object.fromEntries(
    [...inputs.withheldMembers.entries()].filter(([name]) => Object.hasOwn(defs, name)).sort(([a], [b]) => compareText(a, b)),
  );
  return {
    name: source.name,
    source: { kind: "graphql", file: source.file, sha256: source.sha256 },
    defs,
    ...(Object.keys(withheldMembers).length > 0 ? { withheldMembers } : {}),
    tools,
    skipped,
  };
}

function rootFields(root: GraphQLObjectType | null | undefined): GraphQLField<unknown, unknown>[] {
  return root == null ? [] : Object.values(root.getFields());
}

function describe(ref: RootFieldRef, field: GraphQLField<unknown, unknown>): string {
  const base =
    field.description != null && field.description.trim() !== ""
      ? field.description
      : `${ref.operationType === "query" ? "Query" : "Mutation"}.${field.name}`;
  return field.deprecationReason == null ? base : `${base} (deprecated: ${field.deprecationReason})`;
}
