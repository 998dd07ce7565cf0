import { SluiceError } from "@sluice/schema";

export type Scalar = string | number | boolean | null;

export function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/** A scalar as text on the wire; `null` is the empty string; anything nested is sent as JSON. */
export function scalarText(value: unknown, where: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new SluiceError("INVALID_ARGUMENTS", `${where}: ${String(value)} is not a number that can be sent`);
    return String(value);
  }
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value === null) return "";
  if (typeof value === "bigint") return value.toString();
  return JSON.stringify(value) ?? "";
}

/** Own enumerable entries only: inherited or `__proto__`-style keys are never read. */
export function ownEntries(value: Record<string, unknown>): [string, unknown][] {
  return Object.keys(value).map((k) => [k, value[k]] as [string, unknown]).filter(([, v]) => v !== undefined);
}

export function ownValue(args: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(args, key) ? args[key] : undefined;
}
