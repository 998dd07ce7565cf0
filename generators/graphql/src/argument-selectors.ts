import { getNamedType, isInputObjectType, type GraphQLField, type GraphQLInputObjectType, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import { editDistance } from "@sluice/core";
import { hasOwn, SluiceError } from "@sluice/schema";
import { compareText } from "./tool-names.ts";

/**
 * What the selectors of a GraphQL pack's config (`credentialArguments`, `withhold`) name:
 *
 * - `customerAccessToken`: that argument of every root field that takes it;
 * - `Mutation.customerUpdate.customerAccessToken` (`Query.` / `Mutation.`, or the schema's
 *   own root type names such as `QueryRoot.`): that argument of one root field;
 * - `CartBuyerIdentityInput.customerAccessToken`: that member of an input object type,
 *   wherever the type is reached (arguments of any tool, nested at any depth, in cycles),
 *   as a `Type.prop` selector of `derived()` does.
 *
 * A nested member is named by its type, not by an argument path (`buyerIdentity.x`): a
 * pack stores each input type once, so the member goes wherever the type goes. A
 * selector that names nothing is UNKNOWN_SELECTOR with the candidates: a typo here
 * would leave a credential in front of the model.
 * https://spec.graphql.org/October2021/#sec-Field-Arguments
 * https://spec.graphql.org/October2021/#sec-Input-Objects
 */
export type ArgumentSelector =
  | { kind: "argument"; argument: string }
  | { kind: "fieldArgument"; operationType: "query" | "mutation"; field: string; argument: string }
  | { kind: "member"; type: string; member: string };

export interface ArgumentRule<T> {
  selector: string;
  value: T;
}

/** Config entries resolved against a schema, looked up per argument and per input member. */
export class ArgumentRules<T> {
  readonly #byArgument = new Map<string, ArgumentRule<T>>();
  readonly #byFieldArgument = new Map<string, ArgumentRule<T>>();
  readonly #byMember = new Map<string, ArgumentRule<T>>();

  constructor(entries: readonly { selector: string; target: ArgumentSelector; value: T }[]) {
    for (const { selector, target, value } of entries) {
      const rule = { selector, value };
      if (target.kind === "argument") this.#byArgument.set(target.argument, rule);
      else if (target.kind === "fieldArgument") this.#byFieldArgument.set(`${target.operationType}.${target.field}.${target.argument}`, rule);
      else this.#byMember.set(`${target.type}.${target.member}`, rule);
    }
  }

  get isEmpty(): boolean {
    return this.#byArgument.size === 0 && this.#byFieldArgument.size === 0 && this.#byMember.size === 0;
  }

  /** The rule for one argument of one root field: the root field's own entry wins over a bare argument name. */
  forArgument(operationType: "query" | "mutation", field: string, argument: string): ArgumentRule<T> | undefined {
    return this.#byFieldArgument.get(`${operationType}.${field}.${argument}`) ?? this.#byArgument.get(argument);
  }

  forMember(type: string, member: string): ArgumentRule<T> | undefined {
    return this.#byMember.get(`${type}.${member}`);
  }
}

/** Resolves every selector of one config option, or throws UNKNOWN_SELECTOR for the first that names nothing. */
export function argumentRules<T>(schema: GraphQLSchema, entries: Readonly<Record<string, T>> | undefined, option: string, pack: string): ArgumentRules<T> {
  const resolved: { selector: string; target: ArgumentSelector; value: T }[] = [];
  const index = new SchemaIndex(schema);
  for (const selector of Object.keys(entries ?? {}).sort(compareText)) {
    const target = index.resolve(selector);
    if ("why" in target) {
      const hint = target.candidates.length > 0 ? ` Candidates: ${target.candidates.join(", ")}.` : "";
      throw new SluiceError("UNKNOWN_SELECTOR", `pack ${pack}: ${option} "${selector}": ${target.why}.${hint}`, { candidates: target.candidates });
    }
    resolved.push({ selector, target, value: entries![selector]! });
  }
  return new ArgumentRules(resolved);
}

type Unresolved = { why: string; candidates: string[] };

/** The names a selector can use, gathered once per schema. */
class SchemaIndex {
  readonly #roots = new Map<string, { operationType: "query" | "mutation"; type: GraphQLObjectType }>();
  readonly #argumentTypes = new Map<string, Set<GraphQLNamedType>>();
  readonly #inputTypes: GraphQLInputObjectType[];

  constructor(private readonly schema: GraphQLSchema) {
    for (const [operationType, alias, type] of [
      ["query", "Query", schema.getQueryType()],
      ["mutation", "Mutation", schema.getMutationType()],
    ] as const) {
      if (type == null) continue;
      this.#roots.set(alias, { operationType, type });
      this.#roots.set(type.name, { operationType, type });
      for (const field of Object.values(type.getFields())) {
        for (const arg of field.args) this.#argumentTypes.set(arg.name, (this.#argumentTypes.get(arg.name) ?? new Set()).add(getNamedType(arg.type)));
      }
    }
    this.#inputTypes = Object.values(schema.getTypeMap())
      .filter(isInputObjectType)
      .filter((type) => !type.name.startsWith("__"))
      .sort((a, b) => compareText(a.name, b.name));
  }

  resolve(selector: string): ArgumentSelector | Unresolved {
    const parts = selector.split(".");
    if (parts.some((part) => part === "")) return { why: "is not a selector (an empty segment)", candidates: [] };
    const [head, second, ...rest] = parts as [string, ...string[]];
    if (second === undefined) return this.#bareArgument(head);
    const root = this.#roots.get(head);
    if (root !== undefined) return this.#fieldArgument(head, root, second, rest);
    const type = this.schema.getType(head);
    if (type != null && isInputObjectType(type)) {
      if (rest.length > 0) return { why: "a type selector names one member of its type (Type.member); name the deeper member by its own type", candidates: this.#memberPath([type], [second, ...rest]) };
      if (hasOwn(type.getFields(), second)) return { kind: "member", type: head, member: second };
      return { why: `input type ${head} has no member "${second}"`, candidates: closest(second, Object.keys(type.getFields())).map((name) => `${head}.${name}`) };
    }
    const types = this.#argumentTypes.get(head);
    if (types !== undefined) {
      return {
        why: "nested members are selected by their input type (Type.member, which applies wherever the type is used), not by an argument path",
        candidates: this.#memberPath([...types].filter(isInputObjectType), [second, ...rest]),
      };
    }
    const everything = [...this.#argumentTypes.keys(), ...this.#inputTypes.flatMap((t) => Object.keys(t.getFields()).map((m) => `${t.name}.${m}`))];
    return { why: "names no argument, no input type member and no Query./Mutation.<field>.<argument>", candidates: closest(selector, everything) };
  }

  #bareArgument(name: string): ArgumentSelector | Unresolved {
    if (this.#argumentTypes.has(name)) return { kind: "argument", argument: name };
    const members = this.#inputTypes.filter((type) => hasOwn(type.getFields(), name)).map((type) => `${type.name}.${name}`);
    if (members.length > 0) return { why: `no root field takes an argument "${name}"; input members are selected by their type`, candidates: members };
    return { why: `no root field takes an argument "${name}"`, candidates: closest(name, [...this.#argumentTypes.keys()]) };
  }

  #fieldArgument(head: string, root: { operationType: "query" | "mutation"; type: GraphQLObjectType }, name: string, rest: readonly string[]): ArgumentSelector | Unresolved {
    const fields = root.type.getFields();
    const field: GraphQLField<unknown, unknown> | undefined = hasOwn(fields, name) ? fields[name] : undefined;
    const [argument, ...deeper] = rest;
    if (field === undefined) {
      // A near field that takes the argument named is the likely meaning; name it whole.
      const near = closest(name, Object.keys(fields)).map((f) => (argument !== undefined && fields[f]!.args.some((a) => a.name === argument) ? `${head}.${f}.${argument}` : `${head}.${f}`));
      return { why: `${root.type.name} has no field "${name}"`, candidates: near };
    }
    if (argument === undefined) return { why: "names a root field, not one of its arguments", candidates: field.args.map((arg) => `${head}.${name}.${arg.name}`) };
    const arg = field.args.find((a) => a.name === argument);
    if (arg === undefined) return { why: `${root.type.name}.${name} takes no argument "${argument}"`, candidates: closest(argument, field.args.map((a) => a.name)).map((a) => `${head}.${name}.${a}`) };
    if (deeper.length > 0) {
      const start = getNamedType(arg.type);
      return { why: "nested members are selected by their input type (Type.member, which applies wherever the type is used)", candidates: this.#memberPath(isInputObjectType(start) ? [start] : [], deeper) };
    }
    return { kind: "fieldArgument", operationType: root.operationType, field: name, argument };
  }

  /** `Type.member` for the last member of `path` walked from the input types `start`, or the nearest members where the walk stops. */
  #memberPath(start: readonly GraphQLInputObjectType[], path: readonly string[]): string[] {
    let types = start;
    for (let i = 0; i < path.length; i++) {
      const name = path[i]!;
      const holding = types.filter((type) => hasOwn(type.getFields(), name));
      if (holding.length === 0) return [...new Set(types.flatMap((type) => closest(name, Object.keys(type.getFields())).map((m) => `${type.name}.${m}`)))].sort(compareText);
      if (i === path.length - 1) return [...new Set(holding.map((type) => `${type.name}.${name}`))].sort(compareText);
      types = [...new Set(holding.map((type) => getNamedType(type.getFields()[name]!.type)).filter(isInputObjectType))];
    }
    return [];
  }
}

/** Names within a third of their length (at least 2 edits) of `given`, nearest first, at most `max`. */
function closest(given: string, names: readonly string[], max = 5): string[] {
  const limit = Math.max(2, Math.floor(given.length / 3));
  return [...new Set(names)]
    .map((name) => ({ name, distance: editDistance(given.toLowerCase(), name.toLowerCase(), limit) }))
    .filter((entry) => entry.distance <= limit)
    .sort((a, b) => a.distance - b.distance || compareText(a.name, b.name))
    .slice(0, max)
    .map((entry) => entry.name);
}
