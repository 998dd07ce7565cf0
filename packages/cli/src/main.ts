import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { checkEgressMap, defaultServedSet, egressMap, formatEgressMap, isSluiceError, SluiceError, type Tool } from "@sluice/core";
import { schemaTokens, type Encoding } from "@sluice/core/tokens";
import { findTool, loadTools } from "./load-tools.ts";
import { runDemo } from "./demo.ts";
import { CHECK_FIT_USAGE, checkCommand, fitCommand } from "./check-fit.ts";
import { runCompact } from "./compact.ts";

export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
}

const USAGE = `usage:
  sluice survey <pack|module> [--top N] [--json] [--encoding o200k_base|cl100k_base]
  sluice paths <pack|module> <tool> [prefix] [--by-cost] [--depth N] [--json]
  sluice egress <pack|module> [--served [--include-full]] [--json] [--out FILE] [--check FILE]
  sluice generate graphql|openapi <spec file> --name <name> --out <dir>
${CHECK_FIT_USAGE}
  sluice compact --mode strip|strip-bytes|reduce [--encoding o200k_base|cl100k_base] < catalog.json
  sluice demo
  sluice serve <pack|module> [--http <port>] [--profile <client>] [--defer] [...]   (all options: sluice serve --help)
<pack> is a workspace pack (linear, github, stripe, github-rest, slack, gmail, gdocs, gsheets,
notion) or a module file exporting tools.`;

/** Runs one command; returns the exit code. Errors are one clear line, never a stack trace. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (thrown) {
    // Operations turn a RangeError into INTERNAL_LIMIT themselves; one that escaped them still gets a code.
    const error = thrown instanceof RangeError ? new SluiceError("INTERNAL_LIMIT", `sluice ${argv[0] ?? ""}: the input is past what this command handles (${thrown.message}).`, { cause: thrown }) : thrown;
    if (isSluiceError(error)) {
      io.stderr.write(`sluice: ${error.code}: ${error.message}\n`);
      if (error.candidates && error.candidates.length > 0) io.stderr.write(`  candidates: ${error.candidates.join(", ")}\n`);
      return error.code === "EGRESS_MAP_CHANGED" ? 1 : 2;
    }
    io.stderr.write(`sluice: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

async function dispatch(argv: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "survey":
      return survey(rest, io);
    case "paths":
      return paths(rest, io);
    case "egress":
      return egress(rest, io);
    case "generate":
      return generate(rest, io);
    case "demo":
      return runDemo(io);
    case "check":
      return checkCommand(rest, io);
    case "fit":
      return fitCommand(rest, io);
    case "compact":
      return runCompact(rest, io);
    case "serve":
      // Loaded on demand: the MCP SDK is only needed by this command.
      return (await import("./serve.ts")).serveCommand(rest, io);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      io.stdout.write(USAGE + "\n");
      return command === undefined ? 2 : 0;
    default:
      throw usage(`unknown command "${command}"`);
  }
}

function usage(problem: string): SluiceError {
  return new SluiceError("INVALID_OPTION", `${problem}\n${USAGE}`);
}

function parse(args: readonly string[], options: NonNullable<Parameters<typeof parseArgs>[0]>["options"]) {
  try {
    return parseArgs({ args: [...args], options: options ?? {}, allowPositionals: true, strict: true });
  } catch (error) {
    throw usage((error as Error).message);
  }
}

function positiveInteger(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usage(`${flag} takes a positive integer, got "${String(value)}"`);
  return n;
}

function encodingOf(value: unknown): Encoding {
  if (value === undefined) return "o200k_base";
  if (value !== "o200k_base" && value !== "cl100k_base") throw usage(`--encoding must be o200k_base or cl100k_base`);
  return value;
}

async function survey(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { top: { type: "string" }, json: { type: "boolean" }, encoding: { type: "string" } });
  const [spec] = positionals;
  if (spec === undefined || positionals.length > 1) throw usage("survey takes one <pack|module>");
  const top = positiveInteger(values.top, "--top");
  const encoding = encodingOf(values.encoding);
  const tools = await loadTools(spec, io.cwd);
  const rows = surveyTools(tools, encoding).slice(0, top ?? Number.POSITIVE_INFINITY);
  if (values.json) io.stdout.write(JSON.stringify(rows) + "\n");
  else io.stdout.write(table(["tokens", "tool"], rows.map((r) => [String(r.tokens), r.tool])));
  return 0;
}

/** Tools by schema tokens, fattest first (ties by name). */
export function surveyTools(tools: readonly Tool<object>[], encoding: Encoding = "o200k_base"): Array<{ tool: string; tokens: number }> {
  return tools
    .map((tool) => ({ tool: tool.name, tokens: schemaTokens(tool, { encoding }) }))
    .sort((a, b) => b.tokens - a.tokens || (a.tool < b.tool ? -1 : 1));
}

async function paths(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    "by-cost": { type: "boolean" },
    depth: { type: "string" },
    json: { type: "boolean" },
    encoding: { type: "string" },
  });
  const [spec, toolName, prefix] = positionals;
  if (spec === undefined || toolName === undefined || positionals.length > 3) throw usage("paths takes <pack|module> <tool> [prefix]");
  const tool = findTool(await loadTools(spec, io.cwd), toolName, spec);
  const depth = positiveInteger(values.depth, "--depth");
  const rows = await tool.paths(prefix, {
    byCost: values["by-cost"] === true,
    encoding: encodingOf(values.encoding),
    ...(depth === undefined ? {} : { depth }),
  });
  if (values.json) io.stdout.write(JSON.stringify(rows) + "\n");
  else if (values["by-cost"]) io.stdout.write(table(["tokens", "path"], rows.map((r) => [String(r.tokens), r.path])));
  else io.stdout.write(rows.map((r) => r.path).join("\n") + "\n");
  if (values["by-cost"] && prefix !== undefined && rows.length > 0 && rows.every((r) => (r.tokens ?? 0) < 0)) {
    io.stderr.write(
      `note: removing any path below ${prefix} alone makes the tool larger: it splits a definition shared with other places.\n` +
        `      Price a type's members everywhere it is reached instead: sluice paths ${spec} ${toolName} <TypeName> --by-cost\n`,
    );
  }
  return 0;
}

async function egress(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    json: { type: "boolean" },
    out: { type: "string" },
    check: { type: "string" },
    served: { type: "boolean" },
    "include-full": { type: "boolean" },
  });
  const [spec] = positionals;
  if (spec === undefined || positionals.length > 1) throw usage("egress takes one <pack|module>");
  if (values["include-full"] && !values.served) throw usage("--include-full applies to --served (without --served, every exported tool is listed)");
  // Without --served: every exported tool (code can import the *_full twins); with it: what `sluice serve` serves.
  const loaded = await loadTools(spec, io.cwd);
  const entries = egressMap(values.served && !values["include-full"] ? defaultServedSet(loaded) : loaded);
  const text = values.json ? JSON.stringify(entries, null, 2) + "\n" : formatEgressMap(entries);
  if (typeof values.check === "string") {
    const file = resolve(io.cwd, values.check);
    const committed = await readFile(file, "utf8").catch(() => {
      throw new SluiceError("EGRESS_MAP_CHANGED", `${values.check} does not exist; write it with --out ${values.check}.`);
    });
    const result = checkEgressMap(committed, text, values.check);
    if (result.same) {
      io.stdout.write(`${values.check}: up to date (${entries.length} tools)\n`);
      return 0;
    }
    io.stdout.write(result.diff);
    for (const path of result.widenings) io.stderr.write(`WIDENING: ${path} is newly visible to the model\n`);
    throw new SluiceError(
      "EGRESS_MAP_CHANGED",
      `${values.check} differs from the current tools (${result.widenings.length} newly visible path${result.widenings.length === 1 ? "" : "s"}); review the diff and rewrite it with --out ${values.check}.`,
    );
  }
  if (typeof values.out === "string") {
    const file = resolve(io.cwd, values.out);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    io.stderr.write(`wrote ${values.out} (${entries.length} tools)\n`);
  } else {
    io.stdout.write(text);
  }
  return 0;
}

async function generate(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { name: { type: "string" }, out: { type: "string" } });
  const [kind, file] = positionals;
  if (kind !== "graphql" && kind !== "openapi") throw usage("generate takes graphql <schema file> or openapi <spec file>");
  const what = kind === "graphql" ? "<schema file>" : "<spec file>";
  if (file === undefined || typeof values.name !== "string" || typeof values.out !== "string") throw usage(`generate ${kind} needs ${what} --name <name> --out <dir>`);
  const options = { name: values.name, out: resolve(io.cwd, values.out) };
  const result =
    kind === "graphql"
      ? await (await import("@sluice/generator-graphql")).generateGraphQLPack(resolve(io.cwd, file), options)
      : await (await import("@sluice/generator-openapi")).generateOpenAPIPack(resolve(io.cwd, file), options);
  io.stdout.write(`generated ${result.tools} tools, skipped ${result.skipped} operations -> ${values.out}\n`);
  return 0;
}

/** A right-aligned first column and a left-aligned second one. */
export function table(header: [string, string], rows: Array<[string, string]>): string {
  const width = Math.max(header[0].length, ...rows.map((r) => r[0].length));
  return [header, ...rows].map(([a, b]) => `${a.padStart(width)}  ${b}`).join("\n") + "\n";
}
