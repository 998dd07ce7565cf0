/**
 * Generated files carry `@ts-nocheck` (header.ts): a project's tsc reads their declared types
 * but does not check their statements. They are checked here instead: whole generated packs
 * (Swagger's Petstore with its runtime facts and a runtime module, a small GraphQL schema), with the pragma
 * taken out, under the repository's strict options against @sluice/core's sources. The check
 * is live: a tool export typed by an interface types.gen.ts lacks is reported (with the
 * pragma in place it would silently become a loosely typed tool, which is what this guards).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { buildGraphQLPackIR, loadGraphQLSchema } from "../../graphql/src/index.ts";
import { buildOpenAPIPackIR, loadDocument, openapiRuntimeFacts } from "../../openapi/src/index.ts";
import { emitPackSources, emitRuntimeFactsSource, generatedHeader } from "../src/index.ts";
import { NO_CHECK } from "../src/header.ts";

const GENERATOR = { name: "@sluice/test-generator", version: "0.0.0" };
const here = fileURLToPath(new URL("./", import.meta.url));
const specs = fileURLToPath(new URL("../../../../shared/specs/", import.meta.url));

/** In-memory files under test/__typecheck__/<pack>/src/, as `sluice generate` writes them. */
function packFiles(name: string, kind: "openapi" | "graphql"): Map<string, string> {
  const files = new Map<string, string>();
  const dir = `${here}__typecheck__/${name}/src/`;
  if (kind === "openapi") {
    const file = "petstore/swagger-petstore-3.0.yaml";
    const document = loadDocument(readFileSync(`${specs}${file}`), file);
    const ir = buildOpenAPIPackIR(document, { name, file: "petstore.yaml", sha256: "0".repeat(64) });
    for (const f of emitPackSources(ir, GENERATOR, { runtimeModule: "./runtime.ts" })) files.set(`${dir}${f.path.slice(4)}`, f.text);
    files.set(`${dir}runtime.gen.ts`, emitRuntimeFactsSource(openapiRuntimeFacts(document, ir), generatedHeader(ir, GENERATOR)));
    files.set(`${dir}runtime.ts`, 'import { generatedRuntime, type PackRuntime } from "@sluice/core";\nimport { facts } from "./runtime.gen.ts";\nexport const runtime: PackRuntime = generatedRuntime(facts);\n');
  } else {
    const fixture = fileURLToPath(new URL("../../graphql/test/fixtures/small.graphql", import.meta.url));
    const ir = buildGraphQLPackIR(loadGraphQLSchema(readFileSync(fixture), { fileName: "small.graphql" }), { name, file: "small.graphql", sha256: "0".repeat(64) });
    for (const f of emitPackSources(ir, GENERATOR)) files.set(`${dir}${f.path.slice(4)}`, f.text);
  }
  return files;
}

function withoutPragma(files: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, text] of files) {
    if (name.endsWith(".gen.ts")) expect(text.split("\n").slice(0, 5)).toContain(NO_CHECK);
    out.set(name, text.replace(`${NO_CHECK}\n`, ""));
  }
  return out;
}

/** The last program: the next check reuses its unchanged files (@sluice/core's sources). */
let previous: ts.Program | undefined;
/** Files read from disk, parsed once for both checks. */
const parsed = new Map<string, ts.SourceFile | undefined>();

function problems(files: Map<string, string>): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url)), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  config.options.types = []; // the generated modules need none of Node's types
  const host = ts.createCompilerHost(config.options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  // The pack's folder exists only in memory.
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (dir) => [...files.keys()].some((name) => name.startsWith(`${dir}/`)) || directoryExists?.(dir) === true;
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    if (files.has(name)) return ts.createSourceFile(name, files.get(name)!, language);
    let file = parsed.get(name);
    if (file === undefined) parsed.set(name, (file = getSourceFile.call(host, name, language, ...rest)));
    return file;
  };
  const program = ts.createProgram([...files.keys()], config.options, host, previous);
  previous = program;
  return [...files.keys()].flatMap((name) => {
    const file = program.getSourceFile(name)!;
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((d) => `${name.slice(here.length)}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
  });
}

describe("generated packs type-check with their @ts-nocheck taken out", () => {
  const files = new Map([...withoutPragma(packFiles("pets", "openapi")), ...withoutPragma(packFiles("lin", "graphql"))]);

  it("an OpenAPI pack (tools, defs, types, runtime facts) and a GraphQL one, strict", () => {
    expect(problems(files)).toEqual([]);
  });

  it("and the check is live: an export typed by an interface that does not exist is reported", () => {
    const tools = [...files.keys()].find((name) => name.includes("/pets/") && name.endsWith("tools.gen.ts"))!;
    const broken = new Map(files);
    broken.set(tools, files.get(tools)!.replace(/Tool<T\.(\w+)> = pack\.tool<T\.\1>/, "Tool<T.NoSuchArgs> = pack.tool<T.NoSuchArgs>"));
    expect(broken.get(tools)).not.toBe(files.get(tools));
    expect(problems(broken).join("\n")).toMatch(/NoSuchArgs/);
  });
});
