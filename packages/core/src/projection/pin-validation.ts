import { createRequire } from "node:module";
import type { Ajv2020, ErrorObject } from "ajv/dist/2020.js";
import { SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { ajvSpecRegExp } from "../spec-pattern.ts";

let ajv: Ajv2020 | undefined;

/**
 * Ajv and ajv-formats (CommonJS, ~100 modules), required on first use: importing a pack or
 * serving its tools does not pay for them until a pin is checked.
 */
export function loadAjv(): { Ajv2020: typeof Ajv2020; addFormats: (ajv: Ajv2020) => void } {
  const require = createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 };
  const formats = require("ajv-formats") as { default?: (ajv: Ajv2020) => void } & ((ajv: Ajv2020) => void);
  return { Ajv2020: Ajv, addFormats: formats.default ?? formats };
}

/** One shared validator: specs carry extension keywords, so unknown keywords are not errors. */
export function schemaValidator(): Ajv2020 {
  ajv ??= newSchemaValidator();
  return ajv;
}

/** A validator with the settings of schemaValidator(), of its own (scripts/bench-validator-compile.ts times a fresh one). */
export function newSchemaValidator(): Ajv2020 {
  const { Ajv2020, addFormats } = loadAjv();
  // logger: false: specs use formats Ajv does not know (`json`, `int64` ...); they are not
  // checked, which is what JSON Schema says, and need no warning on every compile.
  // ownProperties: an argument named `constructor` or `toString` that was left out must not be read from the prototype.
  // code.regExp: spec patterns run on the linear-time engine (spec-pattern.ts), never on RegExp.
  // inlineRefs: false and code.optimize: false: a large input schema (Linear's filter types)
  // took seconds to compile on a tool's first call, most of it inlining the same definition
  // at every use and optimizing the generated code; each definition now compiles once per
  // schema and is called. The issues a call reports are the same on 26,640 seeded argument
  // sets (bench/TEST-TIME.md; packages/core/test/validator-settings.test.ts keeps a sample); Ajv's
  // schemaPath of an error inside a definition becomes relative to that definition.
  const validator = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: true,
    addUsedSchema: false,
    logger: false,
    ownProperties: true,
    inlineRefs: false,
    code: { regExp: ajvSpecRegExp, optimize: false },
  });
  addFormats(validator);
  return validator;
}

/** Checks a pinned value against the argument's schema (with the tool's `$defs`), at derive time. */
export function validatePin(arg: string, value: unknown, argSchema: JsonSchemaObject, defs: unknown): void {
  let valid: boolean;
  let errors: ErrorObject[] | null | undefined;
  const ajv = schemaValidator();
  const schema = defs === undefined ? argSchema : { ...argSchema, $defs: defs };
  try {
    const validate = ajv.compile(schema);
    valid = validate(value);
    errors = validate.errors;
  } catch (cause) {
    throw new SluiceError("PIN_INVALID", `Cannot check the pin for "${arg}": its schema does not compile (${(cause as Error).message}).`, {
      pointer: "/properties/" + arg,
      cause,
    });
  } finally {
    ajv.removeSchema(schema); // compiled once per pin; do not let the cache grow with every derive
  }
  if (!valid) {
    const problems = (errors ?? []).map((e) => `${e.instancePath || "(value)"} ${e.message ?? "is invalid"}`).join("; ");
    throw new SluiceError("PIN_INVALID", `Pinned value for "${arg}" does not match its schema: ${problems}.`, { pointer: "/properties/" + arg });
  }
}

/**
 * A deep, frozen copy of a pinned value, so that changing the object given to `derived()`
 * afterwards changes neither what is sent nor the egress map. Pins are JSON data: a
 * value JSON cannot carry (a function, a Date, a Map, a non-finite number, a loop) is
 * refused rather than copied into something else. Walked without recursion.
 */
export function frozenPinCopy(arg: string, value: unknown): unknown {
  const refuse = (where: string, what: string): never => {
    throw new SluiceError("PIN_INVALID", `Pinned value for "${arg}" is not JSON data: ${where === "" ? "the value" : where} is ${what}.`, { pointer: "/properties/" + arg });
  };
  const copyOf = (node: unknown, where: string): unknown => {
    if (node === null || typeof node === "string" || typeof node === "boolean") return node;
    if (typeof node === "number") return Number.isFinite(node) ? node : refuse(where, String(node));
    if (typeof node === "object") {
      if (Array.isArray(node)) return [];
      const proto = Object.getPrototypeOf(node) as unknown;
      if (proto === Object.prototype || proto === null) return {};
      return refuse(where, `a ${(node as object).constructor?.name ?? "non-plain object"}`);
    }
    return refuse(where, `a ${typeof node}`);
  };
  // undefined at the top is left to schema validation (it fails for any typed argument).
  if (value === undefined) return value;
  const root = copyOf(value, "");
  if (typeof root !== "object" || root === null) return root;
  const onPath = new Set<object>();
  type Frame = { source: object; target: object; keys: string[]; index: number; where: string };
  // Every index of an array, holes included, so a hole becomes null instead of shifting later items.
  const keysOf = (node: object): string[] => (Array.isArray(node) ? Array.from(node, (_item, index) => String(index)) : Object.keys(node));
  const frames: Frame[] = [{ source: value as object, target: root, keys: keysOf(value as object), index: 0, where: "" }];
  onPath.add(value as object);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (frame.index >= frame.keys.length) {
      Object.freeze(frame.target);
      onPath.delete(frame.source);
      frames.pop();
      continue;
    }
    const key = frame.keys[frame.index++]!;
    const child = (frame.source as Record<string, unknown>)[key];
    const where = `${frame.where}/${key}`;
    if (child === undefined) {
      // As JSON.stringify does: dropped from objects, null in arrays.
      if (Array.isArray(frame.target)) frame.target.push(null);
      continue;
    }
    const copy = copyOf(child, where);
    if (Array.isArray(frame.target)) frame.target.push(copy);
    else Object.defineProperty(frame.target, key, { value: copy, enumerable: true, writable: true, configurable: true });
    if (typeof copy === "object" && copy !== null) {
      if (onPath.has(child as object)) refuse(where, "a reference back to an enclosing object (a loop)");
      onPath.add(child as object);
      frames.push({ source: child as object, target: copy, keys: keysOf(child as object), index: 0, where });
    }
  }
  return root;
}
