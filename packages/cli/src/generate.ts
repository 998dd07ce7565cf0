import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SluiceError } from "@sluice/core";
import { parseCommand, usageError } from "./args.ts";
import type { Io } from "./main.ts";

/** `sluice generate graphql|openapi <spec> --name N --out DIR`: a pack from a spec. */
export async function generateCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("generate", args);
  const [kind, file] = positionals;
  if (kind !== "graphql" && kind !== "openapi") throw usageError("generate", "generate takes graphql <schema file> or openapi <spec file>");
  const what = kind === "graphql" ? "<schema file>" : "<spec file>";
  if (file === undefined || positionals.length > 2 || typeof values.name !== "string" || typeof values.out !== "string") {
    throw usageError("generate", `generate ${kind} needs ${what} --name <name> --out <dir>`);
  }
  const specFile = resolve(io.cwd, file);
  if (!existsSync(specFile)) throw new SluiceError("FILE_NOT_FOUND", `the spec file ${file} does not exist (${specFile}).`);
  const options = { name: values.name, out: resolve(io.cwd, values.out) };
  const result =
    kind === "graphql"
      ? await (await import("@sluice/generator-graphql")).generateGraphQLPack(specFile, options)
      : await (await import("@sluice/generator-openapi")).generateOpenAPIPack(specFile, options);
  if (values.json) io.stdout.write(JSON.stringify({ kind, name: values.name, out: options.out, tools: result.tools, skipped: result.skipped }) + "\n");
  else io.stdout.write(`generated ${result.tools} tools, skipped ${result.skipped} operations -> ${values.out}\n`);
  return 0;
}
