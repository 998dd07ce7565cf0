/**
 * `sluice narrow`: writes a projection of one generated tool into a pack's src/curated.ts.
 * The file is the user's, so it is edited, not rewritten: ts-morph only locates the
 * declarations, and the change is a few spliced ranges; every other byte stays.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { checkEgressMap, egressMap, formatEgressMap, fullNameOf, packSelections, SluiceError, Tool, TOOL_NAME_PATTERN, unifiedDiff, type DeriveOptions } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { hasOwn } from "@sluice/schema";
import type { ArrayLiteralExpression, Expression, ImportDeclaration, SourceFile, Statement, VariableDeclaration } from "ts-morph";
import { parseCommand, stringOption, usageError } from "./args.ts";
import { wideningMessage } from "./egress-report.ts";
import { importModule } from "./load-module.ts";
import { findTool, loadPack } from "./load-tools.ts";
import type { Io } from "./io.ts";
import { resolvePack } from "./resolve-pack.ts";

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
const CURATED_FILE = join("src", "curated.ts");
const CORE_ENTRIES: ReadonlySet<string> = new Set(["@sluice/core", "@sluice/core/pack"]);
const GENERATED_MODULE = /^\.\/tools\.gen(?:\.[mc]?[jt]s)?$/;
const CURATED_MODULE = /^\.\/curated(?:\.[mc]?[jt]s)?$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Names a projection's variable must not take: keywords, and the two lists of curated.ts. */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package " +
    "private protected public await arguments eval undefined NaN Infinity curated derived"
  ).split(" "),
);

/** What one narrow asks for, checked. */
export interface NarrowRequest {
  /** The generated tool's name and the name of its export in tools.gen.ts. */
  tool: string;
  exportName: string;
  /** The projection's name: the tool's own (a curated replacement) or a new one (a derived tool). */
  name: string;
  drop?: readonly string[];
  keep?: readonly string[];
  pin?: Readonly<Record<string, unknown>>;
}

export interface CuratedEdit {
  text: string;
  /** The variable that holds the projection. */
  variable: string;
  /** True when the variable was added, false when its initializer was replaced. */
  added: boolean;
}

/** `sluice narrow <pack dir> <tool> --name <new> [--drop S]... [--keep S]... [--pin k=v]... [--dry-run] [--json]`. */
export async function narrowCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("narrow", args);
  const [spec, toolName] = positionals;
  if (spec === undefined || toolName === undefined || positionals.length > 2) throw usageError("narrow", "narrow takes <pack dir> <tool>");
  const name = stringOption(values, "name");
  if (name === undefined) throw usageError("narrow", `--name is required: ${toolName} to replace the tool (curated), or a new name for a derived tool`);
  if (!TOOL_NAME_PATTERN.test(name)) throw new SluiceError("INVALID_NAME", `--name "${name}" is not a tool name (1-64 of a-z A-Z 0-9 _ -).`);
  const drop = listOption(values.drop);
  const keep = listOption(values.keep);
  const pin = parsePins(listOption(values.pin));
  if (drop.length + keep.length + Object.keys(pin).length === 0) throw usageError("narrow", "nothing to narrow: give --drop, --keep or --pin");
  const dryRun = values["dry-run"] === true;

  const dir = packDirectory(spec, io.cwd);
  const curatedFile = join(dir, CURATED_FILE);
  const mapFile = join(dir, "egress_map.txt");
  const loaded = await loadPack(dir, io.cwd);
  const generated = await generatedTools(loaded.module, dir);
  const tool = findTool([...generated.keys()], toolName, spec);
  const request: NarrowRequest = { tool: tool.name, exportName: generated.get(tool)!, name, ...(drop.length > 0 ? { drop } : {}), ...(keep.length > 0 ? { keep } : {}), ...(Object.keys(pin).length > 0 ? { pin } : {}) };

  // Checked in process before anything is written: a bad selector, a required argument dropped, a bad pin.
  const options: DeriveOptions<object> = { name };
  if (request.drop) options.drop = request.drop;
  if (request.keep) options.keep = request.keep;
  if (request.pin) options.pin = request.pin;
  const projection = tool.derived(options);

  const curatedModule = await importModule(curatedFile, `${spec} (src/curated.ts)`);
  const variable = heldUnder(curatedModule, name) ?? variableName(name);
  checkNames(request, variable, loaded.tools, [...generated.keys()], curatedModule);
  const before = readFileSync(curatedFile, "utf8");
  const edit = await editCuratedSource(before, request, { derivedServed: indexServesDerived(loaded.file), variable });

  const oldMap = existsSync(mapFile) ? readFileSync(mapFile, "utf8") : "";
  let newMap: string;
  if (dryRun) {
    const predicted = predictedTools(loaded.tools, tool, projection);
    newMap = formatEgressMap(egressMap(predicted), { selections: packSelections(predicted) });
  } else {
    writeFileSync(curatedFile, edit.text);
    newMap = rewriteEgressMap(dir, mapFile, io.cwd, () => writeFileSync(curatedFile, before));
  }
  const mapCheck = checkEgressMap(oldMap, newMap, "egress_map.txt");
  const tokensBefore = schemaTokens(tool);
  const tokensAfter = schemaTokens(projection);

  if (values.json === true) {
    io.stdout.write(JSON.stringify({ tool: tool.name, name, tokensBefore, tokensAfter, curatedFile, egressChanged: !mapCheck.same }) + "\n");
    return 0;
  }
  const where = relative(io.cwd, curatedFile) || curatedFile;
  const kind = name === tool.name ? "curated (replaces the generated tool in the pack's tools; the original stays in allTools as " + fullNameOf(name) + ")" : "derived";
  const lines = [
    `${dryRun ? "would write" : "wrote"} ${where}: ${edit.added ? "added" : "updated"} ${edit.variable}, ${name} ${kind}`,
    `tokens: ${tokensBefore} -> ${tokensAfter} (${tool.name} -> ${name})`,
  ];
  io.stdout.write(lines.join("\n") + "\n");
  if (dryRun) io.stdout.write(unifiedDiff(before, edit.text, `${CURATED_FILE} (before)`, `${CURATED_FILE} (after)`));
  io.stdout.write(mapCheck.same ? "egress_map.txt: unchanged\n" : relabel(mapCheck.diff, "egress_map.txt"));
  // A tool that existed before and can now send more deserves a line of its own (a new tool is all new).
  for (const widening of mapCheck.widened) if (widening.kind !== "tool") io.stdout.write(`WIDENING: ${wideningMessage(widening)}\n`);
  if (dryRun) io.stderr.write("dry run: nothing written\n");
  return 0;
}

/** checkEgressMap labels its sides committed / current; here they are the file before and after the narrow. */
function relabel(diff: string, label: string): string {
  return diff.replace(`--- ${label} (committed)`, `--- ${label} (before)`).replace(`+++ ${label} (current)`, `+++ ${label} (after)`);
}

function listOption(value: unknown): string[] {
  return Array.isArray(value) ? (value as string[]) : typeof value === "string" ? [value] : [];
}

/** `key=value` pins; the value is JSON when it parses, else the text itself. The key is taken as written (derived() decides what it names). */
export function parsePins(items: readonly string[]): Record<string, unknown> {
  const pins: Record<string, unknown> = {};
  for (const item of items) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw usageError("narrow", `--pin takes key=value, got "${item}"`);
    const key = item.slice(0, eq);
    const text = item.slice(eq + 1);
    if (hasOwn(pins, key)) throw usageError("narrow", `--pin ${key} is given twice`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    // defineProperty: a key such as __proto__ stays an own property.
    Object.defineProperty(pins, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return pins;
}

/** `my_issues` -> `myIssues`; a keyword or a leading digit is made into an identifier. */
export function variableName(toolName: string): string {
  const parts = toolName.split(/[-_]+/).filter((part) => part.length > 0);
  let out = parts.map((part, i) => (i === 0 ? part[0]!.toLowerCase() : part[0]!.toUpperCase()) + part.slice(1)).join("");
  if (out === "") out = "tool";
  if (/^[0-9]/.test(out)) out = `_${out}`;
  return RESERVED.has(out) ? `${out}Tool` : out;
}

/**
 * The pack directory narrow edits. A directory as given; a module file or package only
 * when its package root has src/curated.ts and is not an installed copy.
 */
function packDirectory(spec: string, cwd: string): string {
  const path = resolve(cwd, spec);
  const resolved = resolvePack(spec, cwd);
  let dir: string | undefined = existsSync(path) && statSync(path).isDirectory() ? path : packageRoot(resolved.file);
  if (dir !== undefined && dir.split(sep).includes("node_modules")) dir = undefined;
  if (dir === undefined || !existsSync(join(dir, CURATED_FILE))) {
    throw new SluiceError(
      "FILE_NOT_FOUND",
      `narrow edits a pack's src/curated.ts, and ${spec} ${dir === undefined ? `(${resolved.file}) is not a pack directory of yours` : `(${dir}) has no src/curated.ts`}; give the directory of a pack written by sluice generate.`,
    );
  }
  return dir;
}

function packageRoot(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The generated tools by value, each with the name tools.gen.ts exports it under. */
async function generatedTools(module: Record<string, unknown>, dir: string): Promise<Map<Tool<object>, string>> {
  const exported = module.generatedTools;
  const source = typeof exported === "object" && exported !== null ? (exported as Record<string, unknown>) : await importModule(join(dir, "src", "tools.gen.ts"), `${dir} (src/tools.gen.ts)`);
  const out = new Map<Tool<object>, string>();
  for (const key of Object.keys(source).sort()) {
    const value = source[key];
    if (value instanceof Tool && !out.has(value)) out.set(value, key);
  }
  if (out.size === 0) throw new SluiceError("PACK_NOT_FOUND", `${dir}: src/tools.gen.ts exports no tools; regenerate the pack with sluice generate.`);
  return out;
}

/** The export of curated.ts that already holds a tool of this name (a projection to update in place), if any. */
function heldUnder(curatedModule: Record<string, unknown>, name: string): string | undefined {
  return Object.keys(curatedModule)
    .sort()
    .find((key) => {
      const value = curatedModule[key];
      return value instanceof Tool && value.name === name;
    });
}

/**
 * The new name must not take another tool's place: it may only be the tool's own name, a
 * new name, or the name of a projection this file already holds under the same variable.
 */
function checkNames(request: NarrowRequest, variable: string, tools: readonly Tool<object>[], generated: readonly Tool<object>[], curatedModule: Record<string, unknown>): void {
  const held = hasOwn(curatedModule, variable) ? curatedModule[variable] : undefined;
  if (held !== undefined && !(held instanceof Tool && held.name === request.name)) {
    const what = held instanceof Tool ? `the tool ${held.name}` : "something other than a tool";
    throw new SluiceError("INVALID_NAME", `src/curated.ts already exports ${variable} (the variable for ${request.name}) holding ${what}; choose another --name, or rename ${variable}.`);
  }
  if (request.name === request.tool) return;
  if (generated.some((tool) => tool.name === request.name)) throw new SluiceError("INVALID_NAME", `${request.name} is a generated tool of the pack; a derived tool needs a new --name (or narrow ${request.name} itself with --name ${request.name}).`);
  const taken = tools.find((tool) => tool.name === request.name);
  if (taken !== undefined && taken !== held) throw new SluiceError("INVALID_NAME", `the pack already has a tool named ${request.name}; choose another --name (or --name ${request.tool} to replace ${request.tool}).`);
  const twinOf = generated.find((tool) => fullNameOf(tool.name) === request.name);
  if (twinOf !== undefined) throw new SluiceError("INVALID_NAME", `${request.name} is kept for the original of ${twinOf.name} once it is curated; choose another --name.`);
}

/** True when the pack's entry module imports `derived` from curated.ts (the scaffold's index.ts does). */
function indexServesDerived(entry: string): boolean {
  if (!/\.[mc]?[jt]s$/.test(entry)) return false;
  const text = readFileSync(entry, "utf8");
  for (const match of text.matchAll(/import\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/g)) {
    if (match[1] !== undefined || !CURATED_MODULE.test(match[3]!)) continue;
    const clause = match[2]!;
    const named = /\{([^}]*)\}/.exec(clause);
    if (named !== null && named[1]!.split(",").some((part) => /^\s*derived\s*(?:as\s+[\w$]+\s*)?$/.test(part))) return true;
    const namespace = /\*\s+as\s+([\w$]+)/.exec(clause);
    if (namespace !== null && text.includes(`${namespace[1]}.derived`)) return true;
  }
  return false;
}

/**
 * The pack's tools as a reload would give them, for --dry-run: the projection in place of
 * the tool of its name (and, when it first replaces a generated tool, its `_full` twin).
 */
function predictedTools(tools: readonly Tool<object>[], tool: Tool<object>, projection: Tool<object>): Tool<object>[] {
  const out = tools.filter((t) => t.name !== projection.name);
  out.push(projection);
  if (projection.name === tool.name && !out.some((t) => t.name === fullNameOf(tool.name))) out.push(tool.derived({ name: fullNameOf(tool.name) }));
  return out;
}

/**
 * Writes egress_map.txt as `sluice egress <dir> --out` does (and the served list, when the
 * pack has one), in a child process: ESM keeps
 * the modules of this process as they were before the edit. On failure the edit is undone.
 */
function rewriteEgressMap(dir: string, mapFile: string, cwd: string, undo: () => void): string {
  // The served list too, when the pack has one: its key covers curated.ts, so the old one would be drift.
  const servedList = existsSync(join(dir, "src", "served-tools.gen.json")) ? ["--served-list"] : [];
  const child = spawnSync(process.execPath, [BIN, "egress", dir, "--out", mapFile, ...servedList], { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (child.status !== 0) {
    undo();
    const reason = (child.stderr ?? "").trim().split("\n").pop() ?? "";
    throw new SluiceError("IMPORT_FAILED", `the edited pack did not load to write egress_map.txt (${reason || child.error?.message || `exit ${String(child.status)}`}); src/curated.ts is restored.`);
  }
  return readFileSync(mapFile, "utf8");
}

/** The TypeScript of a projection's options: keys only when given, strings JSON-quoted. */
function optionsSource(request: NarrowRequest, withName: boolean): string {
  const parts: string[] = [];
  if (withName) parts.push(`name: ${JSON.stringify(request.name)}`);
  for (const key of ["drop", "keep"] as const) {
    const list = request[key];
    if (list !== undefined) parts.push(`${key}: [${list.map((s) => JSON.stringify(s)).join(", ")}]`);
  }
  if (request.pin !== undefined) {
    const pins = Object.keys(request.pin).map((key) => `${pinKeySource(key)}: ${valueSource(request.pin![key])}`);
    parts.push(`pin: { ${pins.join(", ")} }`);
  }
  return `{ ${parts.join(", ")} }`;
}

function pinKeySource(key: string): string {
  // In an object literal a plain __proto__ key sets the prototype; computed, it is a property.
  if (key === "__proto__") return `["__proto__"]`;
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

function valueSource(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('"__proto__"') ? `JSON.parse(${JSON.stringify(json)})` : json;
}

interface Splice {
  pos: number;
  end: number;
  text: string;
}

/**
 * curated.ts with the projection written in: the initializer of an exported const of the
 * projection's variable replaced, or a new exported const added just before the list it
 * joins (`curated` for the tool's own name, `derived` for a new one) and its name added to
 * that list. The imports it needs (`curate`, the generated tools, `Tool`) are added to the
 * existing imports. Nothing else in the text changes.
 */
export async function editCuratedSource(text: string, request: NarrowRequest, context: { derivedServed: boolean; variable?: string }): Promise<CuratedEdit> {
  const { Node, Project } = await import("ts-morph");
  const file: SourceFile = new Project({ useInMemoryFileSystem: true }).createSourceFile("curated.ts", text);
  const newline = text.includes("\r\n") ? "\r\n" : "\n";
  const variable = context.variable ?? variableName(request.name);
  const listName = request.name === request.tool ? "curated" : "derived";
  const otherList = listName === "curated" ? "derived" : "curated";
  const problem = (message: string) => new SluiceError("INVALID_OPTION", `src/curated.ts: ${message}`);
  const splices: Splice[] = [];

  const statements = file.getStatements();
  const imports = statements.filter((s): s is ImportDeclaration => Node.isImportDeclaration(s));
  const locals = topLevelNames(statements, Node);

  // Either entry: @sluice/core/pack (what packs import, so that serving loads less) exports the same curate and Tool.
  const coreImports = imports.filter((i) => CORE_ENTRIES.has(i.getModuleSpecifierValue()));
  const coreNamespace = coreImports.map((i) => i.getNamespaceImport()?.getText()).find((n) => n !== undefined);
  const importAfter = imports.length > 0 ? imports[imports.length - 1]!.getEnd() : 0;
  const newImports: string[] = [];
  const coreNamed: string[] = [];
  /** The local name of an @sluice/core export, added to the imports when missing. */
  const coreName = (exported: string, typeOnly: boolean): string => {
    for (const declaration of coreImports) {
      for (const specifier of declaration.getNamedImports()) {
        if (specifier.getName() !== exported) continue;
        if (!typeOnly && (declaration.isTypeOnly() || specifier.isTypeOnly())) continue;
        return specifier.getAliasNode()?.getText() ?? exported;
      }
    }
    if (coreNamespace !== undefined) return `${coreNamespace}.${exported}`;
    if (locals.has(exported)) throw problem(`${exported} is declared here but is not @sluice/core's; rename it so that narrow can import ${exported}.`);
    coreNamed.push(typeOnly ? `type ${exported}` : exported);
    return exported;
  };

  const generatedImport = imports.find((i) => !i.isTypeOnly() && GENERATED_MODULE.test(i.getModuleSpecifierValue()) && i.getNamespaceImport() !== undefined);
  let generatedName = generatedImport?.getNamespaceImport()?.getText();
  if (generatedName === undefined) {
    if (locals.has("generated")) throw problem(`import the generated tools as a namespace (import * as generated from "./tools.gen.ts"); "generated" is taken.`);
    generatedName = "generated";
    newImports.push(`import * as generated from "./tools.gen.ts";`);
  }

  const declarationOf = (name: string): { statement: Statement; declaration: VariableDeclaration } | undefined => {
    for (const statement of statements) {
      if (!Node.isVariableStatement(statement)) continue;
      const declaration = statement.getDeclarations().find((d) => d.getName() === name);
      if (declaration !== undefined) return { statement, declaration };
    }
    return undefined;
  };
  const arrayOf = (name: string): ArrayLiteralExpression | undefined => {
    const found = declarationOf(name);
    if (found === undefined) return undefined;
    let init: Expression | undefined = found.declaration.getInitializer();
    while (init !== undefined && (Node.isAsExpression(init) || Node.isSatisfiesExpression(init) || Node.isParenthesizedExpression(init) || Node.isTypeAssertion(init))) init = init.getExpression();
    if (init === undefined || !Node.isArrayLiteralExpression(init)) throw problem(`\`${name}\` is not an array literal; add ${variable} to it by hand, or make it one.`);
    return init;
  };
  const holds = (array: ArrayLiteralExpression | undefined): boolean => array?.getElements().some((e) => Node.isIdentifier(e) && e.getText() === variable) ?? false;

  const curatedList = declarationOf("curated");
  if (curatedList === undefined) throw problem("has no `curated` list (export const curated: readonly Tool<object>[] = [...]).");
  const target = arrayOf(listName);
  if (holds(arrayOf(otherList))) throw problem(`${variable} is in the \`${otherList}\` list, and ${request.name} ${listName === "curated" ? "replaces a generated tool" : "is a new tool"}; choose another --name.`);

  const callee = listName === "curated" ? `${coreName("curate", false)}(${generatedName}.${request.exportName}, ${optionsSource(request, false)})` : `${generatedName}.${request.exportName}.derived(${optionsSource(request, true)})`;

  const existing = declarationOf(variable);
  let added = false;
  if (existing !== undefined) {
    const { statement, declaration } = existing;
    const initializer = declaration.getInitializer();
    const exportedConst = Node.isVariableStatement(statement) && statement.isExported() && statement.getDeclarationKind() === "const";
    if (!exportedConst || initializer === undefined) throw problem(`${variable} is declared but is not an exported const with a value; rename it, or make it one.`);
    splices.push({ pos: initializer.getStart(), end: initializer.getEnd(), text: callee });
  } else {
    if (locals.has(variable)) throw problem(`${variable} (the variable for ${request.name}) is already declared here; rename it, or choose another --name.`);
    added = true;
  }

  if (target !== undefined) {
    if (added) splices.push({ pos: attachedStart(declarationOf(listName)!.statement, text), end: attachedStart(declarationOf(listName)!.statement, text), text: `export const ${variable} = ${callee};${newline}${newline}` });
    if (!holds(target)) splices.push(...appendElement(target, variable, text, newline));
  } else {
    // Only `derived` can be missing: older packs have the curated list alone.
    if (!context.derivedServed) {
      throw problem(
        `${request.name} is a new tool, but this pack has no \`derived\` list that its index serves. Add \`export const derived: readonly Tool<object>[] = [];\` to src/curated.ts and \`...derived\` to the tools of src/index.ts (importing it from ./curated.ts), or give --name ${request.tool} to replace ${request.tool}.`,
      );
    }
    const tool = coreName("Tool", true);
    const after = curatedList.statement.getEnd();
    const declaration = added ? `${newline}${newline}export const ${variable} = ${callee};` : "";
    splices.push({ pos: after, end: after, text: `${declaration}${newline}${newline}export const derived: readonly ${tool}<object>[] = [${variable}];` });
  }

  if (coreNamed.length > 0) {
    const into = coreImports.find((i) => !i.isTypeOnly() && i.getNamespaceImport() === undefined && i.getDefaultImport() === undefined && i.getNamedImports().length > 0);
    const typeInto = coreImports.find((i) => i.isTypeOnly() && i.getNamedImports().length > 0);
    if (into !== undefined) {
      splices.push({ pos: into.getNamedImports()[0]!.getStart(), end: into.getNamedImports()[0]!.getStart(), text: coreNamed.map((n) => `${n}, `).join("") });
    } else if (typeInto !== undefined && coreNamed.every((n) => n.startsWith("type "))) {
      splices.push({ pos: typeInto.getNamedImports()[0]!.getStart(), end: typeInto.getNamedImports()[0]!.getStart(), text: coreNamed.map((n) => `${n.slice("type ".length)}, `).join("") });
    } else {
      // The entry the file already imports from, else the one generated packs use.
      newImports.unshift(`import { ${coreNamed.join(", ")} } from "${coreImports[0]?.getModuleSpecifierValue() ?? "@sluice/core/pack"}";`);
    }
  }
  if (newImports.length > 0) {
    const lines = newImports.join(newline);
    splices.push(importAfter === 0 ? { pos: 0, end: 0, text: `${lines}${newline}${newline}` } : { pos: importAfter, end: importAfter, text: `${newline}${lines}` });
  }
  return { text: applySplices(text, splices), variable, added };
}

/** Names declared at the top level (imports, variables, functions, classes, types). */
function topLevelNames(statements: readonly Statement[], Node: typeof import("ts-morph").Node): Set<string> {
  const names = new Set<string>();
  for (const statement of statements) {
    if (Node.isImportDeclaration(statement)) {
      const namespace = statement.getNamespaceImport();
      if (namespace !== undefined) names.add(namespace.getText());
      const dflt = statement.getDefaultImport();
      if (dflt !== undefined) names.add(dflt.getText());
      for (const specifier of statement.getNamedImports()) names.add(specifier.getAliasNode()?.getText() ?? specifier.getName());
    } else if (Node.isVariableStatement(statement)) {
      for (const declaration of statement.getDeclarations()) {
        const nameNode = declaration.getNameNode();
        if (Node.isIdentifier(nameNode)) names.add(nameNode.getText());
        else for (const id of nameNode.getDescendants()) if (Node.isIdentifier(id)) names.add(id.getText());
      }
    } else if (Node.isFunctionDeclaration(statement) || Node.isClassDeclaration(statement) || Node.isEnumDeclaration(statement) || Node.isInterfaceDeclaration(statement) || Node.isTypeAliasDeclaration(statement) || Node.isModuleDeclaration(statement)) {
      const name = statement.getName();
      if (name !== undefined) names.add(name);
    }
  }
  return names;
}

/** Where a statement begins together with the comments right above it (no blank line between), so a new declaration goes above them. */
function attachedStart(statement: Statement, text: string): number {
  let start = statement.getStart(true);
  const ranges = statement.getLeadingCommentRanges();
  for (let i = ranges.length - 1; i >= 0; i--) {
    const range = ranges[i]!;
    const between = text.slice(range.getEnd(), start);
    if (range.getPos() >= start) continue;
    if (/\S/.test(between) || (between.match(/\n/g)?.length ?? 0) > 1) break;
    start = range.getPos();
  }
  // Keep the line's indentation in front of what is inserted.
  return start;
}

/** The splice that appends `name` to an array literal in its own layout: one line, or one element per line. */
function appendElement(array: ArrayLiteralExpression, name: string, text: string, newline: string): Splice[] {
  const elements = array.getElements();
  const open = array.getStart() + 1;
  const close = array.getEnd() - 1;
  if (elements.length === 0) {
    // `[\n  // a comment\n]`: on a line of its own above the bracket, indented one step more.
    const closeLine = text.lastIndexOf("\n", close - 1) + 1;
    if (text.slice(open, close).includes("\n") && /^[ \t]*$/.test(text.slice(closeLine, close))) {
      const indent = text.slice(closeLine, close);
      return [{ pos: closeLine, end: closeLine, text: `${indent}  ${name},${newline}` }];
    }
    return [{ pos: open, end: open, text: name }];
  }
  const last = elements[elements.length - 1]!;
  const trailingComma = array.compilerNode.elements.hasTrailingComma;
  const afterLast = trailingComma ? text.indexOf(",", last.getEnd()) + 1 : last.getEnd();
  const multiline = text.slice(open, close).includes("\n");
  if (!multiline) return [{ pos: afterLast, end: afterLast, text: trailingComma ? ` ${name},` : `, ${name}` }];
  const lineStart = text.lastIndexOf("\n", last.getStart()) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const lineEnd = text.indexOf("\n", afterLast);
  // After a comment on the last element's line, unless the bracket closes on that line.
  const closesHere = lineEnd === -1 || close < lineEnd;
  let at = closesHere ? afterLast : lineEnd;
  if (!closesHere && text[at - 1] === "\r") at -= 1;
  // The comma goes right after the element, the name on a line of its own below any comment.
  return trailingComma
    ? [{ pos: at, end: at, text: `${newline}${indent}${name},` }]
    : [
        { pos: afterLast, end: afterLast, text: "," },
        { pos: at, end: at, text: `${newline}${indent}${name}` },
      ];
}

function applySplices(text: string, splices: readonly Splice[]): string {
  // From the end, so that earlier positions stay valid; insertions at one point keep their order.
  const ordered = splices.map((splice, index) => ({ splice, index })).sort((a, b) => b.splice.pos - a.splice.pos || b.index - a.index);
  let out = text;
  for (const { splice } of ordered) out = out.slice(0, splice.pos) + splice.text + out.slice(splice.end);
  return out;
}
