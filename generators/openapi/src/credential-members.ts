import type { JsonSchemaObject } from "@sluice/schema";
import type { PackIR, ToolIR, WithheldPath } from "@sluice/core";
import { compareText } from "@sluice/emit";

/**
 * Credential arguments withheld wherever the member sits. A spec that repeats its apiKey
 * credentials in request bodies (`client_id` and `secret` beside `PLAID-CLIENT-ID` /
 * `PLAID-SECRET` headers) has them lifted out and filled by the runtime where the body is
 * flattened into arguments (operation-object.ts, `credentialFields`); a body that stays one
 * `body` argument (open object keywords, `allOf`, unions), a nested member, or a union
 * branch would still show them to the model. This pass removes every member named like a
 * credential argument from every schema of the pack (the tools' own and the shared
 * definitions), in every branch of `anyOf` / `oneOf` / `allOf`, drops it from `required`
 * and `dependentRequired`, and records it as withheld (reason `credential`): under the
 * argument path for a tool's own schema (`body.client_id`), under the type path for a
 * definition (`CreateRequest.client_id`), where screening refuses it whatever the schema's
 * openness and the request builder never copies it. The header credentials authenticate
 * the call; these members are not filled in (only flattened body fields are).
 */
export function withholdCredentialMembers(ir: PackIR, credentialNames: Readonly<Record<string, string>>): PackIR {
  const names = new Set(Object.keys(credentialNames));
  if (names.size === 0) return ir;
  const walker = new MemberWithholder(names);

  const tools = ir.tools.map((tool): ToolIR => {
    const added: WithheldPath[] = [];
    let properties: Record<string, JsonSchemaObject> | undefined;
    for (const [arg, schema] of Object.entries(tool.parameters.properties)) {
      const result = walker.walk(schema);
      if (result.withheld.length === 0) continue;
      properties ??= { ...tool.parameters.properties };
      Object.defineProperty(properties, arg, { value: result.schema, enumerable: true, writable: true, configurable: true });
      for (const suffix of result.withheld) added.push({ path: `${selectorSegment(arg)}${suffix}`, reason: "credential" });
    }
    if (properties === undefined) return tool;
    return { ...tool, parameters: { ...tool.parameters, properties }, withheld: [...(tool.withheld ?? []), ...uniquePaths(added, tool.withheld ?? [])] };
  });

  let defs: Record<string, JsonSchemaObject> | undefined;
  const withheldMembers: Record<string, WithheldPath[]> = { ...(ir.withheldMembers ?? {}) };
  for (const [name, schema] of Object.entries(ir.defs)) {
    const result = walker.walk(schema);
    if (result.withheld.length === 0) continue;
    defs ??= { ...ir.defs };
    Object.defineProperty(defs, name, { value: result.schema, enumerable: true, writable: true, configurable: true });
    const before = withheldMembers[name] ?? [];
    const added = result.withheld.map((suffix): WithheldPath => ({ path: `${name}${suffix}`, reason: "credential" }));
    Object.defineProperty(withheldMembers, name, { value: [...before, ...uniquePaths(added, before)], enumerable: true, writable: true, configurable: true });
  }
  const sortedMembers = Object.fromEntries(Object.keys(withheldMembers).sort(compareText).map((name) => [name, withheldMembers[name]!]));
  return {
    ...ir,
    tools,
    ...(defs === undefined ? {} : { defs }),
    ...(Object.keys(sortedMembers).length > 0 ? { withheldMembers: sortedMembers } : {}),
  };
}

function uniquePaths(added: readonly WithheldPath[], existing: readonly WithheldPath[]): WithheldPath[] {
  const seen = new Set(existing.map((entry) => entry.path));
  return added.filter((entry) => !seen.has(entry.path) && (seen.add(entry.path), true));
}

/** A name as one segment of a selector path: quoted when it holds selector syntax. */
function selectorSegment(name: string): string {
  return /^[A-Za-z0-9_$@-]+$/.test(name) ? name : JSON.stringify(name);
}

interface Walked {
  schema: JsonSchemaObject;
  /** Withheld member paths relative to the schema (`.client_id`, `.account.secret`). */
  withheld: string[];
}

/** Subschema keywords whose schemas describe the same value (a union branch, a condition): the path does not change. */
const SAME_VALUE = ["allOf", "anyOf", "oneOf"] as const;
const SAME_VALUE_ONE = ["not", "if", "then", "else"] as const;
/** Keywords whose schemas describe the items of an array: selectors pass arrays through. */
const ITEMS_ONE = ["items", "contains"] as const;

/**
 * Copy-on-write removal of the credential members, memoized by schema object: the converter
 * shares one converted object between the tools that send the same schema, and so does this.
 */
class MemberWithholder {
  readonly #names: ReadonlySet<string>;
  readonly #done = new WeakMap<object, Walked>();

  constructor(names: ReadonlySet<string>) {
    this.#names = names;
  }

  walk(schema: JsonSchemaObject | boolean, depth = 0): Walked {
    if (typeof schema !== "object" || schema === null || depth > 200) return { schema: schema as JsonSchemaObject, withheld: [] };
    const known = this.#done.get(schema);
    if (known !== undefined) return known;
    const node = schema as Record<string, unknown>;
    const withheld: string[] = [];
    let copy: Record<string, unknown> | undefined;
    const set = (key: string, value: unknown) => {
      copy ??= { ...node };
      copy[key] = value;
    };

    const properties = node["properties"];
    if (isRecord(properties)) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [member, sub] of Object.entries(properties)) {
        if (this.#names.has(member)) {
          withheld.push(`.${selectorSegment(member)}`);
          changed = true;
          continue;
        }
        const inner = this.walk(sub as JsonSchemaObject, depth + 1);
        for (const suffix of inner.withheld) withheld.push(`.${selectorSegment(member)}${suffix}`);
        if (inner.schema !== sub) changed = true;
        Object.defineProperty(out, member, { value: inner.schema, enumerable: true, writable: true, configurable: true });
      }
      if (changed) set("properties", out);
    }
    // A bare `{ required: [...] }` branch names members too: a withheld one leaves every list.
    const required = node["required"];
    if (Array.isArray(required) && required.some((name) => typeof name === "string" && this.#names.has(name))) {
      set("required", required.filter((name) => !(typeof name === "string" && this.#names.has(name))));
    }
    const dependent = node["dependentRequired"];
    if (isRecord(dependent)) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, list] of Object.entries(dependent)) {
        if (this.#names.has(key)) {
          changed = true;
          continue;
        }
        const kept = Array.isArray(list) ? list.filter((name) => !(typeof name === "string" && this.#names.has(name))) : list;
        if (Array.isArray(list) && (kept as unknown[]).length !== list.length) changed = true;
        Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true, configurable: true });
      }
      if (changed) set("dependentRequired", out);
    }
    for (const keyword of SAME_VALUE) {
      const branches = node[keyword];
      if (!Array.isArray(branches)) continue;
      const walked = branches.map((branch) => this.walk(branch as JsonSchemaObject, depth + 1));
      for (const w of walked) withheld.push(...w.withheld);
      if (walked.some((w, i) => w.schema !== branches[i])) set(keyword, walked.map((w) => w.schema));
    }
    for (const keyword of [...SAME_VALUE_ONE, ...ITEMS_ONE]) {
      const sub = node[keyword];
      if (typeof sub !== "object" || sub === null) continue;
      const w = this.walk(sub as JsonSchemaObject, depth + 1);
      withheld.push(...w.withheld);
      if (w.schema !== sub) set(keyword, w.schema);
    }
    const prefixItems = node["prefixItems"];
    if (Array.isArray(prefixItems)) {
      const walked = prefixItems.map((item) => this.walk(item as JsonSchemaObject, depth + 1));
      for (const w of walked) withheld.push(...w.withheld);
      if (walked.some((w, i) => w.schema !== prefixItems[i])) set("prefixItems", walked.map((w) => w.schema));
    }

    const result: Walked = { schema: (copy ?? node) as JsonSchemaObject, withheld: [...new Set(withheld)] };
    this.#done.set(schema, result);
    return result;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
