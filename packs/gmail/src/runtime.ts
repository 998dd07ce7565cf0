/**
 * How this pack's tools are called beyond their bindings (hand-written; the generated
 * pack passes it to definePack). Must not import the generated modules.
 */
import type { PackRuntime } from "@sluice/core";

export const runtime: PackRuntime = {};
