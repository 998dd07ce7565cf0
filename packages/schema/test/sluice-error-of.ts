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

/** `{ properties: { a: { properties: { a: ... {} } } } }`, `levels` objects with `properties` above a `{}` leaf. Built iteratively. */
export function nestedProperties(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) node = { properties: { a: node } };
  return node;
}
