import { describe, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { tools as gdocs } from "@sluice/pack-gdocs";
import { tools as github } from "@sluice/pack-github";
import { tools as githubRest } from "@sluice/pack-github-rest";
import { tools as gmail } from "@sluice/pack-gmail";
import { tools as gsheets } from "@sluice/pack-gsheets";
import { tools as linear } from "@sluice/pack-linear";
import { tools as notion } from "@sluice/pack-notion";
import { tools as slack } from "@sluice/pack-slack";
import { tools as stripe } from "@sluice/pack-stripe";
import { isSchemaObject, parseLocalRef, type JsonSchemaObject } from "@sluice/schema";
import { LONG } from "../../../test/support/tier.ts";
import { dispatchLevel3, resolve, type ModelCall, type ResolveResult } from "../src/dispatch/index.ts";

/**
 * Every tool of every pack: sample arguments built from its schema, the call expressed
 * as a model makes it at level 3 (as asked, and with each tolerated slip), resolved, and
 * checked to reach the same tool with the same arguments.
 */
const PACKS = { gdocs, github, "github-rest": githubRest, gmail, gsheets, linear, notion, slack, stripe };

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, addUsedSchema: false, logger: false, inlineRefs: false, code: { optimize: false } });
addFormats(ajv);

const FORMAT_SAMPLES: Record<string, string> = {
  "date-time": "2024-01-02T03:04:05Z",
  date: "2024-01-02",
  time: "03:04:05Z",
  email: "a@example.com",
  uri: "https://example.com/a",
  url: "https://example.com/a",
  "uri-reference": "https://example.com/a",
  uuid: "123e4567-e89b-12d3-a456-426614174000",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  hostname: "example.com",
  byte: "YQ==",
  binary: "a",
  duration: "P1D",
};
const PATTERN_SAMPLES = ["a", "1", "abc", "A1", "a1", "x-1", "2024-01-02", "#ffffff", "C012AB3CD", "U012AB3CD", "1234567890.123456", "ab_cd", "AB", "foo/bar", "a@example.com", "abcd", "top", "first", "ssh-rsa AAAA"];

/** A tiny deterministic sampler: `variant` changes which union branch and which optionals are taken. */
function sample(schema: unknown, root: JsonSchemaObject, variant: number, depth: number): unknown {
  if (!isSchemaObject(schema)) return "a";
  if (typeof schema.$ref === "string") {
    const segments = parseLocalRef(schema.$ref) ?? [];
    let target: unknown = root;
    for (const segment of segments) target = isSchemaObject(target) ? target[segment] : undefined;
    return sample(target, root, variant, depth + 1);
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[variant % schema.enum.length];
  if (schema.default !== undefined && variant % 2 === 0) return schema.default;
  const branches = (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined) as unknown[] | undefined;
  if (branches && branches.length > 0) {
    // A branch is sampled together with its siblings' keywords: `{properties, anyOf: [{required: [a]}, ...]}`.
    const branch = branches[variant % branches.length];
    const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = schema;
    const merged = isSchemaObject(branch)
      ? {
          ...rest,
          ...branch,
          properties: { ...(isSchemaObject(rest.properties) ? rest.properties : {}), ...(isSchemaObject(branch.properties) ? branch.properties : {}) },
          required: [...(Array.isArray(rest.required) ? rest.required : []), ...(Array.isArray(branch.required) ? branch.required : [])],
        }
      : branch;
    if (isSchemaObject(merged) && Object.keys(merged.properties as object).length === 0 && !isSchemaObject(rest.properties) && !isSchemaObject(isSchemaObject(branch) ? branch.properties : undefined)) delete merged.properties;
    if (isSchemaObject(merged) && (merged.required as unknown[]).length === 0) delete merged.required;
    return sample(merged, root, Math.floor(variant / branches.length), depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => sample(part, root, variant, depth + 1));
    if (parts.every((part) => isSchemaObject(part))) return Object.assign({}, ...parts, isSchemaObject(schema.properties) ? sampleObject(schema, root, variant, depth) : {});
    return parts[0];
  }
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
  const type = types[0] ?? (isSchemaObject(schema.properties) ? "object" : "string");
  switch (type) {
    case "object":
      return sampleObject(schema, root, variant, depth);
    case "array": {
      const minItems = typeof schema.minItems === "number" ? schema.minItems : depth > 3 ? 0 : 1;
      const items = Array.isArray(schema.prefixItems) ? schema.prefixItems.map((item) => sample(item, root, variant, depth + 1)) : [];
      while (items.length < minItems) items.push(sample(schema.items, root, variant + items.length, depth + 1));
      return items;
    }
    case "integer":
    case "number": {
      const min = typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 1;
      const value = type === "integer" ? Math.ceil(min) : min;
      return typeof schema.multipleOf === "number" ? Math.ceil(value / schema.multipleOf) * schema.multipleOf : value;
    }
    case "boolean":
      return variant % 2 === 0;
    case "null":
      return null;
    default: {
      if (typeof schema.format === "string" && FORMAT_SAMPLES[schema.format] !== undefined) return FORMAT_SAMPLES[schema.format];
      let value = "a";
      if (typeof schema.pattern === "string") {
        let pattern: RegExp | undefined;
        try {
          pattern = new RegExp(schema.pattern, "u");
        } catch {
          pattern = undefined;
        }
        value = PATTERN_SAMPLES.find((candidate) => pattern?.test(candidate)) ?? "a";
      }
      const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
      return value.length >= minLength ? value : value + "a".repeat(minLength - value.length);
    }
  }
}

function sampleObject(schema: JsonSchemaObject, root: JsonSchemaObject, variant: number, depth: number): Record<string, unknown> {
  const properties = isSchemaObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const optional = Object.keys(properties).filter((name) => !required.has(name));
  // Required arguments, plus a few optionals at the top level (rotated by variant).
  const extra = depth === 0 && variant < 2 ? [0, 1].map((i) => optional[(i + variant * 2) % Math.max(optional.length, 1)]).filter((n): n is string => n !== undefined) : [];
  const out: Record<string, unknown> = {};
  for (const name of [...Object.keys(properties).filter((n) => required.has(n)), ...new Set(extra)]) {
    Object.defineProperty(out, name, { value: sample(properties[name], root, variant, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Sample arguments valid against the tool's schema: the first of a few variants that validates. */
function validSample(inputSchema: JsonSchemaObject): Record<string, unknown> | undefined {
  const validate = ajv.compile(inputSchema);
  for (let variant = 0; variant < 12; variant++) {
    const args = sample(inputSchema, inputSchema, variant, 0);
    if (validate(args)) return args as Record<string, unknown>;
  }
  return undefined;
}

function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}
function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** One argument renamed the way a model slips (snake ↔ camel, or `id` for the one `<thing>_id`), when that is unambiguous. */
function aliasedCall(args: Record<string, unknown>, inputSchema: JsonSchemaObject): Record<string, unknown> | undefined {
  const declared = Object.keys(isSchemaObject(inputSchema.properties) ? inputSchema.properties : {});
  const squash = (n: string): string => n.replace(/[_-]/g, "").toLowerCase();
  for (const key of Object.keys(args)) {
    const alias = snake(key) !== key ? snake(key) : camel(key) !== key ? camel(key) : undefined;
    if (alias === undefined || declared.some((name) => squash(name) === squash(alias) && name !== key)) continue;
    if (declared.includes(alias)) continue;
    return Object.fromEntries(Object.entries(args).map(([k, v]) => [k === key ? alias : k, v]));
  }
  return undefined;
}

function expectRouted(result: ResolveResult, name: string, args: Record<string, unknown>, form: string): void {
  if (!result.ok) throw new Error(`${form}: ${name} did not resolve:\n${result.error.message}`);
  expect(result.kind, form).toBe("call");
  if (result.kind !== "call") return;
  expect(result.tool, form).toBe(name);
  expect(result.args, `${form} ${name}`).toStrictEqual(args);
}

describe("resolve round trip over every tool of the nine packs", () => {
  for (const [pack, tools] of Object.entries(PACKS)) {
    it(`${pack}: ${tools.length} tools, every form of call`, () => {
      const dispatcher = dispatchLevel3(tools);
      const unsampled: string[] = [];
      let forms = 0;
      // The dispatcher is built over the whole pack either way; the quick tier calls every 3rd tool.
      const called = tools.filter((_, index) => LONG || index % 3 === 0);
      for (const tool of called) {
        const args = validSample(tool.inputSchema);
        if (args === undefined) {
          unsampled.push(tool.name);
          continue;
        }
        const code = [...dispatcher.codes].find(([, name]) => name === tool.name)![0];
        const declared = Object.keys(isSchemaObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {});
        const calls: [string, ModelCall][] = [
          ["as asked", { name: "call_tool", args: { code, args } }],
          ["code as tool name", { name: code, args }],
          ["name as tool name", { name: tool.name, input: args }],
          ["name as code", { name: "call_tool", args: { code: tool.name, args } }],
          ["args as JSON text", { name: "call_tool", arguments: JSON.stringify({ code, args: JSON.stringify(args) }) }],
        ];
        // Flat arguments cannot be told from nested ones when the tool itself has an argument named code or args.
        if (!declared.includes("code") && !declared.includes("args") && !declared.includes("arguments")) {
          calls.push(["flat arguments", { name: "call_tool", args: { code, ...args } }]);
        }
        const aliased = aliasedCall(args, tool.inputSchema);
        if (aliased !== undefined) calls.push(["argument alias", { name: "call_tool", args: { code, args: aliased } }]);
        for (const [form, call] of calls) {
          expectRouted(resolve(call, dispatcher), tool.name, args, form);
          forms++;
        }
      }
      expect(unsampled, "tools the sampler could not build valid arguments for").toStrictEqual([]);
      expect(forms).toBeGreaterThanOrEqual(called.length * 5);
    });
  }
});
