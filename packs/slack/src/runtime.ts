/**
 * How Slack tools are called beyond their bindings (hand-written; the generated pack
 * passes it to definePack). Must not import the generated modules.
 */
import { okFalse, type PackRuntime } from "@sluice/core";

export const runtime: PackRuntime = {
  // Slack answers 200 with `ok: false` and an error code when a method fails.
  failure: okFalse,
};
