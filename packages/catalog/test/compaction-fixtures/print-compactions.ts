// Child process for compaction-determinism.test.ts (and the same function in its worker): prints the SHA-256 of each mode's
// output (and its report) for a catalog built from a fixture and a real pack.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { tools } from "@sluice/pack-github-rest";
import { reduceDescriptions, stripAnnotationBytes, stripAnnotations } from "../../src/compaction/index.ts";

export function determinismCatalogs(): string[] {
  const fixture = readFileSync(new URL("./annotated-catalog.json", import.meta.url), "utf8");
  const pack = JSON.stringify(
    tools.slice(0, 80).map((t) => ({ name: t.name, description: t.description, input_schema: { ...t.inputSchema, title: t.name, $schema: "https://json-schema.org/draft/2020-12/schema" } })),
    null,
    2,
  );
  return [fixture, pack];
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** One line per mode and catalog: the mode, the SHA-256 of its output, and its report. */
export function printCompactions(): string {
  const lines: string[] = [];
  for (const catalog of determinismCatalogs()) {
    for (const run of [stripAnnotations, stripAnnotationBytes, reduceDescriptions]) {
      const { text, report } = run(catalog);
      lines.push(`${report.method} ${sha256(text)} ${JSON.stringify(report)}`);
    }
  }
  return lines.join("\n") + "\n";
}

if (process.argv[1] === new URL(import.meta.url).pathname) process.stdout.write(printCompactions());
