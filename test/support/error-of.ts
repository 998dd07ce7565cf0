import { isSluiceError, type SluiceError } from "@sluice/core";

/** The SluiceError `fn` throws; anything else it throws is rethrown, and returning is a failure. */
export function errorOf(fn: () => unknown): SluiceError {
  try {
    fn();
  } catch (error) {
    if (isSluiceError(error)) return error;
    throw error;
  }
  throw new Error("expected a SluiceError");
}
