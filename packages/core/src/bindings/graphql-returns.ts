import type { FieldNode, OperationDefinitionNode, SelectionNode, SelectionSetNode } from "graphql";
import { graphql } from "../graphql-lib.ts";
import { SluiceError } from "@sluice/schema";
import type { GraphQLBinding } from "../tool-ir.ts";
import { nearestNames, withSuggestion } from "../edit-distance.ts";

/**
 * `returns`: narrows what a GraphQL tool fetches, so the API sends less rather than the
 * handler throwing it away. Selectors are dotted response paths below the root field
 * (`nodes.id`, `pageInfo`), with the semantics of `keep`: within each selection set a
 * selector names, only the named fields stay (their ancestors too); selection sets no
 * selector names are left whole, and a selector that names an object field keeps all of
 * it. Inline fragments are passed through (a path reaches a field in any of them), and
 * `__typename` and a fetched `id` always stay (a narrowed list of nodes without their ids
 * leaves the next call nothing to name them by). Unknown paths are errors listing what is there.
 */

interface ReturnsNode {
  /** Some selector ends directly in this selection set, so it is narrowed to what is named. */
  named: boolean;
  children: Map<string, ReturnsNode>;
}

function returnsTree(selectors: readonly string[]): ReturnsNode {
  const root: ReturnsNode = { named: false, children: new Map() };
  for (const selector of selectors) {
    if (typeof selector !== "string" || !/^[_A-Za-z][_0-9A-Za-z]*(\.[_A-Za-z][_0-9A-Za-z]*)*$/.test(selector)) {
      throw new SluiceError("INVALID_OPTION", `returns: ${JSON.stringify(selector)} is not a dotted path of GraphQL field names.`);
    }
    let node = root;
    for (const segment of selector.split(".")) {
      let child = node.children.get(segment);
      if (child === undefined) node.children.set(segment, (child = { named: false, children: new Map() }));
      node = child;
    }
  }
  // A group is named when one of its members is the last segment of some selector.
  const mark = (node: ReturnsNode, ends: (child: ReturnsNode) => boolean): void => {
    for (const child of node.children.values()) {
      if (ends(child)) node.named = true;
      mark(child, ends);
    }
  };
  const terminal = new Set<ReturnsNode>();
  for (const selector of selectors) {
    let node = root;
    for (const segment of selector.split(".")) node = node.children.get(segment)!;
    terminal.add(node);
  }
  mark(root, (child) => terminal.has(child));
  return root;
}

/** Response keys of a selection set, through inline fragments. */
function fieldsOf(set: SelectionSetNode): FieldNode[] {
  const out: FieldNode[] = [];
  for (const selection of set.selections) {
    if (selection.kind === graphql().Kind.FIELD) out.push(selection);
    else if (selection.kind === graphql().Kind.INLINE_FRAGMENT) out.push(...fieldsOf(selection.selectionSet));
  }
  return out;
}

const keyOf = (field: FieldNode): string => field.alias?.value ?? field.name.value;

function narrow(set: SelectionSetNode, tree: ReturnsNode, path: string): SelectionSetNode {
  const present = new Map<string, FieldNode[]>();
  for (const field of fieldsOf(set)) present.set(keyOf(field), [...(present.get(keyOf(field)) ?? []), field]);
  for (const [name, child] of tree.children) {
    const fields = present.get(name);
    const where = path === "" ? name : `${path}.${name}`;
    if (fields === undefined) {
      const keys = [...present.keys()].filter((key) => key !== "__typename").sort();
      const spelled = (key: string) => (path === "" ? key : `${path}.${key}`);
      const near = nearestNames(name, keys).map(spelled);
      const candidates = [...new Set([...near, ...keys.map(spelled)])];
      throw new SluiceError("UNKNOWN_SELECTOR", withSuggestion(`returns: "${where}" is not fetched by this tool.`, near), { candidates });
    }
    if (child.children.size > 0 && fields.every((field) => field.selectionSet === undefined)) {
      throw new SluiceError("UNKNOWN_SELECTOR", `returns: "${where}" is a scalar field; nothing below it can be selected.`, { candidates: [where] });
    }
  }
  const rewrite = (selections: readonly SelectionNode[]): SelectionNode[] => {
    const out: SelectionNode[] = [];
    for (const selection of selections) {
      if (selection.kind === graphql().Kind.INLINE_FRAGMENT) {
        const inner = rewrite(selection.selectionSet.selections);
        if (inner.some((s) => !(s.kind === graphql().Kind.FIELD && s.name.value === "__typename"))) out.push({ ...selection, selectionSet: { ...selection.selectionSet, selections: inner } });
        continue;
      }
      if (selection.kind !== graphql().Kind.FIELD) {
        out.push(selection);
        continue;
      }
      const key = keyOf(selection);
      const child = tree.children.get(key);
      if (child === undefined) {
        // An object's `id` stays with it, as `__typename` does: the next call names the object by it.
        if (!tree.named || key === "__typename" || (key === "id" && selection.selectionSet === undefined)) out.push(selection);
        continue;
      }
      if (child.children.size === 0 || selection.selectionSet === undefined) out.push(selection);
      else out.push({ ...selection, selectionSet: narrow(selection.selectionSet, child, path === "" ? key : `${path}.${key}`) });
    }
    return out;
  };
  return { ...set, selections: rewrite(set.selections) };
}

/**
 * The selection set with each secret-looking scalar the generator left out put back where a
 * selector names it exactly: the one way such a field is fetched is by asking for it.
 */
function withAskedSecrets(set: SelectionSetNode, secrets: readonly string[], selectors: readonly string[]): SelectionSetNode {
  const asked = secrets.filter((path) => selectors.includes(path));
  if (asked.length === 0) return set;
  const add = (at: SelectionSetNode, segments: readonly string[]): SelectionSetNode => {
    const [head, ...rest] = segments;
    if (rest.length === 0) {
      if (fieldsOf(at).some((field) => keyOf(field) === head)) return at;
      const field: FieldNode = { kind: graphql().Kind.FIELD, name: { kind: graphql().Kind.NAME, value: head! } };
      return { ...at, selections: [...at.selections, field] };
    }
    return {
      ...at,
      selections: at.selections.map((selection) =>
        selection.kind === graphql().Kind.FIELD && keyOf(selection) === head && selection.selectionSet !== undefined ? { ...selection, selectionSet: add(selection.selectionSet, rest) } : selection,
      ),
    };
  };
  return asked.reduce((current, path) => add(current, path.split(".")), set);
}

/** The binding with its root field's selection set narrowed to `selectors`. */
export function narrowReturns(binding: GraphQLBinding, selectors: readonly string[]): GraphQLBinding {
  const document = graphql().parse(binding.document, { noLocation: true });
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === graphql().Kind.OPERATION_DEFINITION);
  const root = operation?.selectionSet.selections.find((s): s is FieldNode => s.kind === graphql().Kind.FIELD && s.name.value === binding.field);
  if (operation === undefined || root === undefined) {
    throw new SluiceError("SPEC_INVALID", `returns: the operation document does not select ${binding.field}.`);
  }
  if (root.selectionSet === undefined) {
    throw new SluiceError("INVALID_OPTION", `returns: ${binding.field} returns a scalar; there is nothing to narrow.`);
  }
  const narrowed = narrow(withAskedSecrets(root.selectionSet, binding.secretOutputs ?? [], selectors), returnsTree(selectors), "");
  const rootField: FieldNode = { ...root, selectionSet: narrowed };
  const next: OperationDefinitionNode = {
    ...operation,
    selectionSet: { ...operation.selectionSet, selections: operation.selectionSet.selections.map((s) => (s === root ? rootField : s)) },
  };
  const printed = graphql().print({ ...document, definitions: document.definitions.map((d) => (d === operation ? next : d)) });
  const secretOutputs = (binding.secretOutputs ?? []).filter((path) => !selectors.includes(path));
  const { secretOutputs: _before, ...rest } = binding;
  return { ...rest, ...(secretOutputs.length > 0 ? { secretOutputs } : {}), document: printed, returns: [...(binding.returns ?? []), ...selectors] };
}

/**
 * Leaf paths a GraphQL binding fetches below its root field (`nodes.id`), inline
 * fragments passed through, `__typename` left out; for the egress map.
 */
export function fetchedPaths(binding: GraphQLBinding): string[] {
  const document = graphql().parse(binding.document, { noLocation: true });
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === graphql().Kind.OPERATION_DEFINITION);
  const root = operation?.selectionSet.selections.find((s): s is FieldNode => s.kind === graphql().Kind.FIELD && s.name.value === binding.field);
  const out = new Set<string>();
  const visit = (set: SelectionSetNode, prefix: string) => {
    for (const field of fieldsOf(set)) {
      const key = keyOf(field);
      if (key === "__typename") continue;
      const path = prefix === "" ? key : `${prefix}.${key}`;
      if (field.selectionSet === undefined) out.add(path);
      else visit(field.selectionSet, path);
    }
  };
  if (root?.selectionSet !== undefined) visit(root.selectionSet, "");
  return [...out].sort();
}

/** Whether a dotted path below the root field is still fetched (a prefix of some fetched leaf). */
export function fetches(binding: GraphQLBinding, path: string): boolean {
  return fetchedPaths(binding).some((leaf) => leaf === path || leaf.startsWith(path + "."));
}
