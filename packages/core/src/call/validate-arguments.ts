import type { ErrorObject, ValidateFunction } from "ajv";
import { sameValueCycles, SluiceError, type ArgumentIssue, type JsonSchemaObject } from "@sluice/schema";
import { schemaValidator } from "../projection/pin-validation.ts";
import { refuseUnsupportedKeywords } from "../unsupported-keywords.ts";

const compiled = new WeakMap<JsonSchemaObject, ValidateFunction>();

/**
 * Validates arguments against a tool's input schema (compiled once per schema object;
 * tools share frozen schemas, so the cache follows the tools' lifetime).
 */
export function validateArguments(schema: JsonSchemaObject, args: unknown): ArgumentIssue[] {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    // A keyword Ajv would check loosely refuses the schema (and so every call), never widens it.
    refuseUnsupportedKeywords(schema, "The tool's input schema");
    try {
      validate = schemaValidator().compile(schema);
    } catch (cause) {
      // A pattern that cannot run in linear time keeps its own code: the schema is refused, not checked with backtracking.
      if (cause instanceof SluiceError && (cause.code === "PATTERN_UNSUPPORTED" || cause.code === "PATTERN_INVALID")) throw cause;
      throw new SluiceError("SPEC_INVALID", `The tool's input schema does not compile, so no call can be checked: ${(cause as Error).message}`, { cause });
    }
    compiled.set(schema, validate);
  }
  let valid: boolean;
  try {
    valid = validate(args) as boolean;
  } catch (error) {
    // Definitions that apply each other to the same value (A allOf [B], B allOf [A]) make
    // every check of a value that reaches them recurse without end: say which they are.
    const cycles = error instanceof RangeError ? sameValueCycles(schema) : [];
    if (cycles.length === 0) throw error;
    const named = cycles.map((cycle) => cycle.join(" -> ")).join("; ");
    throw new SluiceError("SPEC_INVALID", `The tool's input schema applies definitions to the same value in a cycle (${named}) through $ref/allOf/anyOf/oneOf, so no value reaching them can be checked; cut the cycle with a projection or fix the spec.`, { cause: error });
  }
  if (valid) return [];
  return issuesOf(validate.errors ?? []);
}

/** The issues a call reports for Ajv's errors (also what scripts/bench-validator-compile.ts compares Ajv settings by). */
export function issuesOf(errors: readonly ErrorObject[]): ArgumentIssue[] {
  return errors.filter(relevant).map(issueOf);
}

/** Drops the umbrella errors Ajv adds on top of the specific ones (`anyOf` failing because each branch did). */
function relevant(error: ErrorObject, _index: number, all: readonly ErrorObject[]): boolean {
  if (error.keyword !== "anyOf" && error.keyword !== "oneOf") return true;
  return !all.some((other) => other !== error && other.instancePath.startsWith(error.instancePath) && other.schemaPath.startsWith(error.schemaPath.replace(/\/(anyOf|oneOf)$/, "")));
}

function issueOf(error: ErrorObject): ArgumentIssue {
  const params = error.params as Record<string, unknown>;
  let path = error.instancePath;
  let message = error.message ?? "is invalid";
  switch (error.keyword) {
    case "required":
      path = `${path}/${String(params.missingProperty).replace(/~/g, "~0").replace(/\//g, "~1")}`;
      message = "is required";
      break;
    case "dependentRequired":
      // An optional body's required member: named where it is missing, with what made it needed.
      path = `${path}/${String(params.missingProperty).replace(/~/g, "~0").replace(/\//g, "~1")}`;
      message = `is required when ${String(params.property)} is given (a request body that is sent must carry it)`;
      break;
    case "enum":
      message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
      break;
    case "const":
      message = `must be ${JSON.stringify(params.allowedValue)}`;
      break;
    case "additionalProperties":
      path = `${path}/${String(params.additionalProperty)}`;
      message = "is not a field of this tool";
      break;
  }
  return { code: error.keyword, path, message };
}
