import { SluiceError } from "./sluice-error.ts";

/**
 * The engine's own walks are iterative or bounded, but a public operation also runs code
 * it does not control (the validator's compiled functions, graphql-js, a user's handler),
 * and the engine itself can meet a size nobody planned for. Whatever still ends in a
 * RangeError (the stack overflowed, an array or string grew past the engine's maximum,
 * a call got more arguments than the engine allows) must reach the caller as a coded
 * `INTERNAL_LIMIT` naming the operation, never as a bare "Maximum call stack size
 * exceeded" with a stack trace from deep inside.
 */

/** The coded form of `error` when it is a RangeError; anything else is returned as it is. */
export function limitError(operation: string, error: unknown): unknown {
  if (!(error instanceof RangeError)) return error;
  const what = /call stack/i.test(error.message)
    ? "the schema or the arguments nest past what this operation handles"
    : "the input is larger than this operation handles";
  return new SluiceError("INTERNAL_LIMIT", `${operation}: ${what} (${error.message}). Narrow the input or report it with the spec that caused it.`, {
    cause: error,
  });
}

/**
 * Runs `run` and rethrows a RangeError escaping from it as `INTERNAL_LIMIT` naming
 * `operation` (e.g. `derived() of issues_list`). A promise is followed, so an async
 * operation is covered too. SluiceErrors and every other error pass through unchanged.
 */
export function withinLimits<T>(operation: string, run: () => T): T {
  let result: T;
  try {
    result = run();
  } catch (error) {
    throw limitError(operation, error);
  }
  if (result instanceof Promise) {
    return result.catch((error: unknown) => {
      throw limitError(operation, error);
    }) as T;
  }
  return result;
}
