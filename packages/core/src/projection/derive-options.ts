import { getOwn, hasOwn, isSchemaObject, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { PAGINATION_FIELDS, type Pagination, type ResponseHandler } from "../call/types.ts";
import { editDistance } from "../edit-distance.ts";
import { guards } from "../guards.ts";
import { frozenPinCopy } from "./pin-validation.ts";
import { checkReformatChoice } from "../responses/reformat/reformat-choice.ts";
import type { ReformatChoice } from "../responses/reformat/reformatter.ts";

/** Every option `derived()` knows. */
export const DERIVE_OPTION_KEYS = ["name", "description", "drop", "keep", "pin", "responseHandler", "reformatters", "pagination", "returns"] as const;

/** `derived()` options after checking: own properties only, pins copied and frozen. */
export interface CheckedDeriveOptions {
  name?: string;
  description?: string;
  drop?: readonly string[];
  keep?: readonly string[];
  pin?: Readonly<Record<string, unknown>>;
  responseHandler?: ResponseHandler;
  reformatters?: ReformatChoice;
  pagination?: Pagination;
  returns?: readonly string[];
}

/**
 * Checks `derived()` options at run time, where TypeScript cannot: the options object is
 * often built elsewhere, and an unknown key (`dropp`, `Drop`) would otherwise be a silent
 * no-op that leaves the tool wider than meant. Only own properties are read.
 */
export function checkDeriveOptions(options: unknown): CheckedDeriveOptions {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new SluiceError("INVALID_OPTION", "derived() takes an options object ({ drop, keep, pin, ... }).");
  }
  const valid: readonly string[] = DERIVE_OPTION_KEYS;
  for (const key of Object.keys(options)) {
    if (valid.includes(key)) continue;
    const ranked = byCloseness(key, valid);
    throw new SluiceError("INVALID_OPTION", `derived(): unknown option "${key}"; did you mean "${ranked[0]}"? The options are ${valid.join(", ")}.`, { candidates: ranked });
  }
  const out: CheckedDeriveOptions = {};
  const name = getOwn(options, "name");
  if (name !== undefined) {
    if (typeof name !== "string") throw new SluiceError("INVALID_OPTION", `derived(): \`name\` must be a string (the new tool's wire name), got ${kindOf(name)}.`);
    out.name = name;
  }
  const description = getOwn(options, "description");
  if (description !== undefined) {
    if (typeof description !== "string") throw new SluiceError("INVALID_OPTION", `derived(): \`description\` must be a string, got ${kindOf(description)}.`);
    out.description = description;
  }
  for (const key of ["drop", "keep"] as const) {
    const value = getOwn(options, key);
    if (value === undefined) continue;
    if (!Array.isArray(value) || value.some((s) => typeof s !== "string")) {
      throw new SluiceError("INVALID_OPTION", `derived(): \`${key}\` must be an array of selector strings.`);
    }
    out[key] = value as string[];
  }
  const pin = getOwn(options, "pin");
  if (pin !== undefined) out.pin = checkedPins(pin);
  const handler = getOwn(options, "responseHandler");
  if (handler !== undefined) {
    if (typeof handler !== "function") throw new SluiceError("INVALID_OPTION", `derived(): \`responseHandler\` must be a function (body, info) => output, got ${kindOf(handler)}.`);
    out.responseHandler = handler as ResponseHandler;
  }
  const reformatters = getOwn(options, "reformatters");
  if (reformatters !== undefined) out.reformatters = { ...checkReformatChoice(reformatters, "derived()") };
  const pagination = getOwn(options, "pagination");
  if (pagination !== undefined) out.pagination = checkedPagination(pagination);
  const returns = getOwn(options, "returns");
  if (returns !== undefined) {
    if (!Array.isArray(returns) || returns.length === 0 || returns.some((path) => typeof path !== "string")) {
      throw new SluiceError("INVALID_OPTION", "derived(): `returns` must be a non-empty array of response paths.");
    }
    out.returns = returns as string[];
  }
  return out;
}

/**
 * The pins as a new record: each value deep-copied and frozen (guard `freezePins`), so
 * the caller's object can change afterwards without changing the tool.
 */
function checkedPins(pin: unknown): Readonly<Record<string, unknown>> {
  const proto = typeof pin === "object" && pin !== null && !Array.isArray(pin) ? (Object.getPrototypeOf(pin) as unknown) : undefined;
  if (proto !== Object.prototype && proto !== null) throw new SluiceError("INVALID_OPTION", "`pin` must be an object of argument names to values.");
  const source = pin as Record<string, unknown>;
  if (!guards.freezePins) return source;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    Object.defineProperty(out, key, { value: frozenPinCopy(key, source[key]), enumerable: true, writable: false, configurable: false });
  }
  return Object.freeze(out);
}

/**
 * A pagination declaration checked against its style's fields, copied and frozen; `where`
 * starts each message (`derived()`, or the config entry that declared it).
 */
export function checkedPagination(value: unknown, where = "derived()"): Pagination {
  if (!isSchemaObject(value)) throw new SluiceError("INVALID_OPTION", `${where}: \`pagination\` must be an object { style, arg, ... }, got ${kindOf(value)}.`);
  const styles = Object.keys(PAGINATION_FIELDS);
  const style = getOwn(value, "style");
  if (typeof style !== "string" || !hasOwn(PAGINATION_FIELDS, style)) {
    const ranked = typeof style === "string" ? byCloseness(style, styles) : styles;
    throw new SluiceError(
      "INVALID_OPTION",
      `${where}: pagination.style ${JSON.stringify(style) ?? "undefined"} is not a pagination style${typeof style === "string" ? `; did you mean "${ranked[0]}"?` : "."} The styles are ${styles.join(", ")}.`,
      { candidates: ranked },
    );
  }
  const fields = PAGINATION_FIELDS[style as Pagination["style"]];
  const known = ["style", ...Object.keys(fields.required), ...Object.keys(fields.optional)];
  const out: Record<string, unknown> = { style };
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      const ranked = byCloseness(key, known);
      throw new SluiceError("INVALID_OPTION", `${where}: pagination (style ${style}) has no field "${key}"; did you mean "${ranked[0]}"? Its fields are ${known.join(", ")}.`, {
        candidates: ranked,
      });
    }
  }
  for (const [group, required] of [[fields.required, true], [fields.optional, false]] as const) {
    for (const [key, type] of Object.entries(group)) {
      const field = getOwn(value, key);
      if (field === undefined && !required) continue;
      const fits = type === "string" ? typeof field === "string" && field !== "" : typeof field === "number" && Number.isInteger(field);
      if (!fits) {
        throw new SluiceError("INVALID_OPTION", `${where}: pagination (style ${style}) ${required ? "needs" : "takes"} "${key}" as ${type === "string" ? "a non-empty string" : "an integer"}, got ${kindOf(field)}.`);
      }
      out[key] = field;
    }
  }
  return Object.freeze(out) as unknown as Pagination;
}

/**
 * A declared pagination's argument must be an argument of the derived tool, and not a
 * pinned one: the next page's marker is carried back through it.
 */
export function checkPaginationArg(tool: string, pagination: Pagination, schema: JsonSchemaObject, pins: Readonly<Record<string, unknown>>): void {
  const properties = isSchemaObject(schema.properties) ? schema.properties : {};
  if (hasOwn(properties, pagination.arg) && !hasOwn(pins, pagination.arg)) return;
  const args = Object.keys(properties).filter((arg) => !hasOwn(pins, arg));
  const ranked = byCloseness(pagination.arg, args);
  const why = hasOwn(pins, pagination.arg) ? "is pinned, so it cannot carry the next page's marker" : `is not an argument of ${tool}`;
  throw new SluiceError("INVALID_OPTION", `derived(): pagination.arg "${pagination.arg}" ${why}${ranked.length > 0 ? `; did you mean "${ranked[0]}"?` : "."}`, { candidates: ranked });
}

/** Names ordered by edit distance to `given` (ignoring case first), then alphabetically. */
function byCloseness(given: string, names: readonly string[]): string[] {
  const lower = given.toLowerCase();
  const scored = names.map((name) => ({ name, folded: editDistance(lower, name.toLowerCase()), exact: editDistance(given, name) }));
  scored.sort((a, b) => a.folded - b.folded || a.exact - b.exact || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.map((entry) => entry.name);
}

/** A value's kind for an error message ("an array", "the string \"x\"", "a number"). */
export function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
