import { getNamedType, isInputObjectType, isNonNullType, isScalarType, type GraphQLArgument, type GraphQLField, type GraphQLInputField, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import type { GraphQLCredentialMember, PackIR, SkippedOperation, ToolIR, WithheldPath, WithheldReason } from "@sluice/core";
import { refsFrom, ROOT, SluiceError, withinLimits, type JsonSchemaObject } from "@sluice/schema";
import { argumentRules, type ArgumentRule } from "./argument-selectors.ts";
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
  /**
   * Arguments and input members that carry a credential, selector -> scheme (selectors:
   * argument-selectors.ts), e.g. `{ customerAccessToken: "customer" }`: withheld from the
   * model (reason `credential`) and filled by the call runtime from that scheme's
   * credential. The operation document still declares and passes the variable.
   */
  credentialArguments?: Readonly<Record<string, string>>;
  /**
   * Arguments and input members withheld from every tool, selector -> reason. A withheld
   * argument's variable leaves the operation document, as a projection's drop does; a
   * required one cannot be withheld (it can be a credential argument).
   */
  withhold?: Readonly<Record<string, ConfigWithheldReason>>;
}

/** The reasons a config may give for withholding: the others say what sluice itself did. */
export type ConfigWithheldReason = Extract<WithheldReason, "internal" | "deprecated" | "projection">;

const SCHEME_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

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
  const credentials = argumentRules(schema, options.credentialArguments, "credentialArguments", source.name);
  const withholds = argumentRules(schema, options.withhold, "withhold", source.name);
  for (const [selector, scheme] of Object.entries(options.credentialArguments ?? {})) {
    if (!SCHEME_NAME.test(scheme)) throw new SluiceError("CONFIG_INVALID", `pack ${source.name}: credentialArguments "${selector}": "${scheme}" is not a scheme name (a letter, then letters, digits, _ or -); it names the credential and its variable.`);
  }
  const credentialMembers = new Map<string, GraphQLCredentialMember>();
  const inputs = new InputSchemaBuilder((type, member) => {
    const rule = ruleFor(credentials.forMember(type.name, member.name), withholds.forMember(type.name, member.name), `${type.name}.${member.name}`, source.name);
    if (rule === undefined) return undefined;
    if (rule.kind === "credential") {
      assertTokenTyped(member, `${type.name}.${member.name}`, rule.selector, source.name);
      credentialMembers.set(`${type.name}.${member.name}`, { scheme: rule.scheme, required: isRequiredInput(member) });
      return "credential";
    }
    if (isRequiredInput(member)) {
      throw new SluiceError("CONFIG_INVALID", `pack ${source.name}: withhold "${rule.selector}": input type ${type.name} requires "${member.name}", so it cannot be withheld; declare it in credentialArguments if it carries a credential.`);
    }
    return rule.reason;
  });
  const tools: ToolIR[] = [];
  const skipped: SkippedOperation[] = [];

  const ordered = [...roots].sort((a, b) => compareText(names.get(a.ref)!, names.get(b.ref)!));
  for (const { ref, field } of ordered) {
    if (options.select !== undefined && !options.select({ tool: names.get(ref)!, operationType: ref.operationType, field: field.name })) continue;
    const root = `${ref.operationType === "query" ? "Query" : "Mutation"}.${field.name}`;
    // Visible arguments are the tool's; declared ones are the document's: those plus the credential variables.
    const visible: GraphQLArgument[] = [];
    const declared: GraphQLArgument[] = [];
    const withheld: WithheldPath[] = [];
    const credentialVariables: Record<string, string> = {};
    for (const arg of field.args) {
      const rule = ruleFor(credentials.forArgument(ref.operationType, field.name, arg.name), withholds.forArgument(ref.operationType, field.name, arg.name), `${root}(${arg.name})`, source.name);
      if (rule?.kind === "credential") {
        assertTokenTyped(arg, `${root}(${arg.name})`, rule.selector, source.name);
        declared.push(arg);
        Object.defineProperty(credentialVariables, arg.name, { value: rule.scheme, enumerable: true, writable: true, configurable: true });
        withheld.push({ path: arg.name, reason: "credential" });
      } else if (rule !== undefined) {
        if (isRequiredInput(arg)) {
          throw new SluiceError("CONFIG_INVALID", `pack ${source.name}: withhold "${rule.selector}": ${root} requires "${arg.name}", so it cannot be withheld; declare it in credentialArguments if it carries a credential, or pin it in curated.ts.`);
        }
        withheld.push({ path: arg.name, reason: rule.reason });
      } else if (isWithheldInput(arg)) {
        withheld.push({ path: arg.name, reason: "internal" });
      } else {
        visible.push(arg);
        declared.push(arg);
      }
    }
    const operation = buildOperationDocument(schema, ref.operationType, field, declared);
    if ("error" in operation) {
      skipped.push({ operation: root, code: "OPERATION_DOCUMENT_INVALID", reason: `OPERATION_DOCUMENT_INVALID: no valid operation document: ${operation.error}` });
      continue;
    }
    const properties = Object.fromEntries(visible.map((arg) => [arg.name, inputs.forValue(arg)]));
    const required = visible.filter(isRequiredInput).map((arg) => arg.name);
    tools.push({
      name: names.get(ref)!,
      ...(withheld.length > 0 ? { withheld } : {}),
      description: describe(ref, field),
      parameters: { properties, required },
      binding: {
        kind: "graphql",
        operationType: ref.operationType,
        field: field.name,
        ...operation,
        ...(Object.keys(credentialVariables).length > 0 ? { credentialVariables } : {}),
      },
      annotations:
        ref.operationType === "query"
          ? { readOnly: true, idempotent: true }
          : { readOnly: false, destructive: DESTRUCTIVE.test(field.name) },
    });
  }
  for (const field of rootFields(schema.getSubscriptionType())) {
    skipped.push({ operation: `Subscription.${field.name}`, code: "SUBSCRIPTION", reason: "SUBSCRIPTION: subscriptions are not callable as tools" });
  }
  skipped.sort((a, b) => compareText(a.operation, b.operation));

  const defs: Record<string, JsonSchemaObject> = Object.fromEntries(
    [...inputs.defs.entries()].sort(([a], [b]) => compareText(a, b)),
  );
  const filled = credentialMembers.size === 0 ? tools : tools.map((tool) => withCredentialMembers(tool, defs, credentialMembers));
  // Only types some tool reaches: the builder records withheld members as it converts.
  const withheldMembers: Record<string, WithheldPath[]> = Object.fromEntries(
    [...inputs.withheldMembers.entries()].filter(([name]) => Object.hasOwn(defs, name)).sort(([a], [b]) => compareText(a, b)),
  );
  const notices = secretOutputNotice(filled);
  return {
    name: source.name,
    source: { kind: "graphql", file: source.file, sha256: source.sha256 },
    defs,
    ...(Object.keys(withheldMembers).length > 0 ? { withheldMembers } : {}),
    tools: filled,
    skipped,
    ...(notices.length > 0 ? { notices } : {}),
  };
}

/** One line for the whole pack: how many tools leave secret-looking response fields out, a few named, and how to fetch one. */
function secretOutputNotice(tools: readonly ToolIR[]): string[] {
  const left = tools.flatMap((tool) => (tool.binding.kind === "graphql" ? (tool.binding.secretOutputs ?? []).map((path) => `${tool.name}: ${path}`) : []));
  if (left.length === 0) return [];
  const names = [...new Set(left.map((entry) => entry.slice(entry.lastIndexOf(".") + 1).replace(/^.*: /, "")))].sort(compareText);
  const shown = names.slice(0, 6).join(", ") + (names.length > 6 ? ` and ${names.length - 6} more names` : "");
  return [`SECRET_OUTPUT_LEFT_OUT: ${left.length} secret-looking response fields (${shown}) are left out of the default selections of ${new Set(left.map((e) => e.split(":")[0])).size} tools; name one in a tool's returns (e.g. ${left[0]!.replace(": ", " returns ")}) to fetch it`];
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

type Rule = { kind: "credential"; selector: string; scheme: string } | { kind: "withhold"; selector: string; reason: ConfigWithheldReason };

/** The config's word on one argument or member; both options naming it is a contradiction, not a precedence question. */
function ruleFor(credential: ArgumentRule<string> | undefined, withhold: ArgumentRule<ConfigWithheldReason> | undefined, where: string, pack: string): Rule | undefined {
  if (credential !== undefined && withhold !== undefined) {
    throw new SluiceError("CONFIG_INVALID", `pack ${pack}: ${where} is named by credentialArguments "${credential.selector}" and by withhold "${withhold.selector}"; keep one.`);
  }
  if (credential !== undefined) return { kind: "credential", selector: credential.selector, scheme: credential.value };
  if (withhold !== undefined) return { kind: "withhold", selector: withhold.selector, reason: withhold.value };
  return undefined;
}

/** A credential fills a value with a token: a scalar, not a list or an input object (name the member inside instead). */
function assertTokenTyped(value: GraphQLArgument | GraphQLInputField, where: string, selector: string, pack: string): void {
  const type = isNonNullType(value.type) ? value.type.ofType : value.type;
  if (isScalarType(type)) return;
  throw new SluiceError("CONFIG_INVALID", `pack ${pack}: credentialArguments "${selector}": ${where} is of type ${String(value.type)}, not a scalar a token can fill${isInputObjectType(type) ? `; name the member that carries the credential (${type.name}.<member>)` : ""}.`);
}

/** The tool's binding with the credential members of the input types it reaches, so the runtime fills them. */
function withCredentialMembers(tool: ToolIR, defs: Readonly<Record<string, JsonSchemaObject>>, members: ReadonlyMap<string, GraphQLCredentialMember>): ToolIR {
  if (tool.binding.kind !== "graphql") return tool;
  const reached = new Set<string>();
  const queue: JsonSchemaObject[] = [{ properties: tool.parameters.properties }];
  while (queue.length > 0) {
    for (const name of refsFrom(queue.pop()!, "", false)) {
      if (name === ROOT || reached.has(name) || !Object.hasOwn(defs, name)) continue;
      reached.add(name);
      queue.push(defs[name]!);
    }
  }
  const own: Record<string, GraphQLCredentialMember> = {};
  for (const [path, member] of [...members].sort(([a], [b]) => compareText(a, b))) {
    if (reached.has(path.slice(0, path.indexOf(".")))) Object.defineProperty(own, path, { value: member, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(own).length === 0 ? tool : { ...tool, binding: { ...tool.binding, credentialMembers: own } };
}
