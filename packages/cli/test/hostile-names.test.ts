/**
 * Names from a spec, a file name and `--name` never become code (issue 22): colliding type
 * names get distinct TypeScript names, line breaks in file names or the regenerate command
 * stay inside their comments, and a pack name that cannot be a package and an identifier
 * is refused with a suggestion. Generated files are checked by the TypeScript compiler.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { isSluiceError } from "@sluice/core";
import { commentText } from "@sluice/emit";
import { buildPack, type PackJob } from "@sluice/pipeline";
import { validateConfig } from "@sluice/pipeline/config-check";
import { packNameProblem, suggestPackName } from "@sluice/pipeline/config-check";

const dir = mkdtempSync(join(tmpdir(), "sluice-hostile-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Component names that sanitise alike (`A-B`, `A_B_`), reserved words and their escapes. */
const COLLIDING = ["A-B", "A_B_", "class", "class_", "string", "string_", "9x", "_9x_"];

function spec(names: readonly string[]): string {
  const schemas = Object.fromEntries(names.map((name, i) => [name, { type: "object", properties: { [`only_${i}`]: { type: "string" } } }]));
  const properties = Object.fromEntries(names.map((name, i) => [`p${i}`, { $ref: `#/components/schemas/${name}` }]));
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "names", version: "1" },
    servers: [{ url: "https://api.example.test" }],
    paths: { "/things": { post: { operationId: "make", requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties } } } }, responses: { "200": { description: "ok" } } } } },
    components: { schemas },
  });
}

function job(file: string, text: string, extra: Partial<PackJob> = {}): PackJob {
  const path = join(dir, file);
  writeFileSync(path, text);
  return { name: "names", spec: path, out: join(dir, "out"), regenerate: "sluice generate names", ...extra };
}

/** Compiler diagnostics of files that import nothing (types.gen.ts), checked as one program. */
function typeCheck(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, types: [], lib: ["lib.es2022.d.ts"] };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  // Generated files skip checking in a user's project (`@ts-nocheck`); here they are checked.
  const text = (name: string) => files[name]!.replace(/^\/\/ @ts-nocheck.*\n/m, "");
  host.getSourceFile = (name, version) => (Object.hasOwn(files, name) ? ts.createSourceFile(name, text(name), version, true) : read(name, version));
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/** Syntax errors of a TypeScript file (imports are not resolved). */
function syntaxErrors(path: string, text: string): string[] {
  const out = ts.transpileModule(text, { fileName: path, reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  return (out.diagnostics ?? []).map((d) => `${path}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

describe("type names never collide after sanitising", () => {
  it("each component gets its own interface, and types.gen.ts type-checks", async () => {
    const { generated } = await buildPack(job("colliding.json", spec(COLLIDING)), "0.0.0");
    const types = generated.find((f) => f.path === "src/types.gen.ts")!.text;
    expect(typeCheck({ "/types.gen.ts": types })).toEqual([]);
    const interfaces = [...types.matchAll(/^export interface (\S+) \{\n([^}]*)\}/gm)].map((m) => [m[1]!, m[2]!] as const);
    const own = interfaces.filter(([, body]) => /only_\d/.test(body));
    // One interface per component, no two alike, each with only its own member.
    expect(own).toHaveLength(COLLIDING.length);
    expect(new Set(own.map(([name]) => name)).size).toBe(COLLIDING.length);
    for (const [, body] of own) expect(body.match(/only_\d/g)).toHaveLength(1);
    // Names that were identifiers already keep them: existing packs' output does not move.
    expect(own.map(([name]) => name)).toContain("A_B_");
  });
});

describe("file names and commands stay inside comments", () => {
  it("a regenerate command (a config file name) holding line breaks and U+2028 cannot become code", async () => {
    const hostile = "sluice generate names (pack \"names\" of sluice.config\n;throw new Error(1)//\u2028globalThis.x=1\u2029*/.ts)";
    const { generated } = await buildPack(job("spec.json", spec(["Thing"]), { regenerate: hostile }), "0.0.0");
    const sources = generated.filter((f) => f.path.endsWith(".ts"));
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const file of sources) {
      expect(syntaxErrors(file.path, file.text)).toEqual([]);
      const header = file.text.split("\n").slice(0, 3);
      expect(header.every((line) => line.startsWith("// ")), file.path).toBe(true);
      expect(file.text).toContain(`// Regenerate: ${commentText(hostile)}\n`);
      // Nothing after the header's comments is new: the hostile text ran into no statement.
      expect(file.text).not.toMatch(/^;throw|^globalThis\.x/m);
    }
    const types = generated.find((f) => f.path === "src/types.gen.ts")!.text;
    expect(typeCheck({ "/types.gen.ts": types })).toEqual([]);
  });

  it("commentText escapes every JavaScript line terminator and a block comment's end, and leaves plain text alone", () => {
    expect(commentText("spec/openapi.yaml")).toBe("spec/openapi.yaml");
    const escaped = commentText("a\nb\rc\u2028d\u2029e*/f");
    expect(escaped).not.toMatch(/[\n\r\u2028\u2029]|\*\//);
    expect(escaped).toBe("a\\u000ab\\u000dc\\u2028d\\u2029e*\\/f");
  });

  for (const [label, file] of [["a line break", "spec\n.json"], ["U+2028", "spec\u2028.json"], ["a control character", "spec\u0007.json"]] as const) {
    it(`a spec file name with ${label} is refused with a coded error and a new name`, async () => {
      const error = await buildPack(job(file, spec(["Thing"])), "0.0.0").then(() => undefined, (e: unknown) => e);
      expect(isSluiceError(error) && error.code).toBe("INVALID_NAME");
      expect((error as { candidates?: string[] }).candidates).toEqual(["spec-.json"]);
    });
  }
});

describe("pack names", () => {
  it.each([
    ["9lives", "api-9lives"],
    ["My API", "my-api"],
    ["a--b", "a-b"],
    ["-x-", "x"],
    ["x\n;process.exit(1)", "x-process-exit-1"],
    ["é", "e"],
    ["", "pack"],
  ])("%j is refused; the suggestion %j is a valid name", (name, suggestion) => {
    expect(packNameProblem(name)).toContain(`try "${suggestion}"`);
    expect(suggestPackName(name)).toBe(suggestion);
    expect(packNameProblem(suggestion)).toBeUndefined();
  });

  it("sluice generate --name 9lives exits with the error and the suggestion, writing nothing", () => {
    const { spec: path } = job("pets.json", spec(["Thing"]));
    const bin = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
    const result = spawnSync(process.execPath, [bin, "generate", path, "--name", "9lives", "--out", join(dir, "nine")], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('--name "9lives" starts with a digit');
    expect(result.stderr).toContain('try "api-9lives"');
    expect(existsSync(join(dir, "nine"))).toBe(false);
  });

  it("the corpus's names stay valid", () => {
    for (const name of ["gdocs", "github", "github-rest", "gmail", "gsheets", "linear", "notion", "slack", "stripe", "pets", "petstore", "x9"]) expect(packNameProblem(name)).toBeUndefined();
  });

  it("a config naming a pack 9lives is CONFIG_INVALID naming the place and a suggestion", () => {
    let error: unknown;
    try {
      validateConfig({ packs: [{ name: "9lives", spec: "s.yaml", out: "packs/x" }] }, "sluice.config.ts");
    } catch (e) {
      error = e;
    }
    expect(isSluiceError(error) && error.code).toBe("CONFIG_INVALID");
    expect((error as Error).message).toContain("packs[0].name");
    expect((error as Error).message).toContain('try "api-9lives"');
  });
});
