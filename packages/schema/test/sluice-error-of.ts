import { SluiceError } from "../src/index.ts";

/** The SluiceError `run` throws; fails the test if it returns or throws anything else. */
export function sluiceErrorOf(run: () => unknown): SluiceError {
  try {
    run();
  } catch (error) {
    if (error instanceof SluiceError) return error;
    throw new Error(`expected a SluiceError, got ${String(error)}`, { cause: error });
  }
  throw new Error("expected a SluiceError, but nothing was thrown");
}
