import type { HttpBinding, PackIR, ToolIR } from "@sluice/core";
import { buildOpenAPIPackIR, type BuildOpenAPIOptions } from "../src/index.ts";

/** Build a pack from an in-memory document. */
export function build(document: unknown, options: BuildOpenAPIOptions = {}): PackIR {
  return buildOpenAPIPackIR(document, { name: "test", file: "test.json", sha256: "0".repeat(64) }, options);
}

/** A 3.0 document with the given paths (and optional components). */
export function oas30(paths: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { openapi: "3.0.3", info: { title: "t", version: "1" }, paths, ...extra };
}

export function swagger2(paths: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { swagger: "2.0", info: { title: "t", version: "1" }, paths, ...extra };
}

export function onlyTool(pack: PackIR): ToolIR & { binding: HttpBinding } {
  if (pack.tools.length !== 1) throw new Error(`expected one tool, got ${pack.tools.map((t) => t.name).join(", ")}`);
  const tool = pack.tools[0]!;
  if (tool.binding.kind !== "http") throw new Error("expected an http binding");
  return tool as ToolIR & { binding: HttpBinding };
}
