import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { SluiceError, type JsonSchemaObject } from "@sluice/schema";

// ajv-formats is CommonJS; its default export arrives wrapped under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

let ajv: Ajv2020 | undefined;

/** One shared validator: specs carry extension keywords, so unknown keywords are not errors. */
export function schemaValidator(): Ajv2020 {
  if (ajv === undefined) {
    // logger: false: specs use formats Ajv does not know (`json`, `int64` ...); they are not
    // checked, which is what JSON Schema says, and need no warning on every compile.
    // ownProperties: an argument named `constructor` or `toString` that was left out must not be read from the prototype.
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, addUsedSchema: false, logger: false, ownProperties: true });
    addFormats(ajv);
  }
  return ajv;
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
