import { createRequire } from "node:module";
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchemaObject } from "@sluice/schema";

let ajv: Ajv2020 | undefined;

function validator(): Ajv2020 {
  if (ajv === undefined) {
    // Required on first use (CommonJS): loading the catalog does not pay for Ajv.
    const require = createRequire(import.meta.url);
    const { Ajv2020 } = require("ajv/dist/2020.js") as { Ajv2020: typeof import("ajv/dist/2020.js").Ajv2020 };
    const formats = require("ajv-formats") as { default?: (ajv: Ajv2020) => void } & ((ajv: Ajv2020) => void);
    const addFormats = formats.default ?? formats;
    // Specs carry extension keywords and formats Ajv does not know: they are not errors.
    // Each tool is compiled once and catalogs carry large ref graphs (a Linear tool
    // reaches ~100 defs): not inlining refs and not optimizing the generated code makes
    // compiling 4x faster (measured on the Linear pack: 99 -> 24 ms a tool).
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, addUsedSchema: false, logger: false, inlineRefs: false, code: { optimize: false } });
    addFormats(ajv);
  }
  return ajv;
}

export interface ArgumentProblem {
  /** JSON pointer into the arguments; "" for the arguments object itself. */
  readonly pointer: string;
  readonly message: string;
}

export type ArgumentCheck = (args: unknown) => ArgumentProblem[];

function problemOf(error: ErrorObject): ArgumentProblem {
  const params = error.params as Record<string, unknown>;
  let message = error.message ?? "is invalid";
  if (error.keyword === "required") message = `missing required argument ${JSON.stringify(params["missingProperty"])}`;
  else if (error.keyword === "additionalProperties") message = `unknown argument ${JSON.stringify(params["additionalProperty"])}`;
  else if (error.keyword === "enum" && Array.isArray(params["allowedValues"])) message = `must be one of ${(params["allowedValues"] as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
  return { pointer: error.instancePath, message };
}

/**
 * A checker for a tool's original input schema, listing every problem (not the first),
 * or the reason the schema does not compile.
 */
export function compileArgumentCheck(inputSchema: JsonSchemaObject): ArgumentCheck | { compileError: string } {
  let validate: ValidateFunction;
  try {
    validate = validator().compile(inputSchema);
  } catch (cause) {
    return { compileError: (cause as Error).message };
  }
  return (args) => {
    if (validate(args)) return [];
    const seen = new Set<string>();
    const problems: ArgumentProblem[] = [];
    for (const error of validate.errors ?? []) {
      // anyOf/oneOf report each failed branch and then themselves; keep each line once.
      const problem = problemOf(error);
      const key = `${problem.pointer} ${problem.message}`;
      if (!seen.has(key)) {
        seen.add(key);
        problems.push(problem);
      }
    }
    return problems;
  };
}
