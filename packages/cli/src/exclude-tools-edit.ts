/**
 * `sluice usage --apply`: adds tools to `exclude.tools` of packs in a sluice.config. The
 * file is the user's, so a module (.ts, .mts, .js, .mjs, .cjs) is edited, not rewritten:
 * ts-morph only locates the pack's object literal, and the new text is spliced in, so
 * nothing else changes (comments, quotes, layout). A `.json` config is parsed and written
 * back with its own indentation. An entry `tools: { <name>: ... }` (a rename or new
 * description) of an excluded tool is removed too: generate refuses a choice for a tool that
 * is left out. Anything the edit cannot find as literal text is USAGE_APPLY_UNSUPPORTED.
 */
import type { Expression, Node as MorphNode, ObjectLiteralExpression, PropertyAssignment } from "ts-morph";
import { SluiceError } from "@sluice/schema";

export interface ExcludeRequest {
  /** Index of the pack in the config's `packs`. */
  index: number;
  /** The pack's `name`, checked against the entry found. */
  pack: string;
  /** Generated tool names to exclude. */
  tools: readonly string[];
}

export interface ExcludeEdit {
  text: string;
  /** One line per change, for the user: `pack pets: exclude.tools += "deletePet"`. */
  changes: string[];
}

interface Splice {
  at: number;
  end: number;
  text: string;
}

function unsupported(file: string, problem: string): SluiceError {
  return new SluiceError("USAGE_APPLY_UNSUPPORTED", `${file}: ${problem}; add the entries shown by sluice usage by hand.`);
}

function quote(name: string): string {
  return JSON.stringify(name);
}

export async function excludeToolsEdit(file: string, text: string, requests: readonly ExcludeRequest[]): Promise<ExcludeEdit> {
  if (file.endsWith(".json")) return excludeInJson(file, text, requests);
  const { Node, Project, ScriptKind } = await import("ts-morph");
  const kind = /\.[mc]?ts$/.test(file) ? ScriptKind.TS : ScriptKind.JS;
  const source = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true } }).createSourceFile(kind === ScriptKind.TS ? "config.ts" : "config.js", text, { scriptKind: kind });
  const newline = text.includes("\r\n") ? "\r\n" : "\n";

  const unwrap = (expression: Expression | undefined): Expression | undefined => {
    let current = expression;
    for (;;) {
      if (current === undefined) return undefined;
      if (Node.isParenthesizedExpression(current) || Node.isAsExpression(current) || Node.isSatisfiesExpression(current)) current = current.getExpression();
      else if (Node.isCallExpression(current) && current.getArguments().length === 1) current = current.getArguments()[0] as Expression;
      else return current;
    }
  };
  // export default X; export const config = X; module.exports = X (X possibly defineConfig(...) or a const's name).
  let root: Expression | undefined;
  const exported = source.getExportAssignment((assignment) => !assignment.isExportEquals());
  if (exported !== undefined) root = exported.getExpression();
  if (root === undefined) root = source.getVariableDeclaration("config")?.getInitializer();
  if (root === undefined) {
    for (const statement of source.getStatements()) {
      if (!Node.isExpressionStatement(statement)) continue;
      const expression = statement.getExpression();
      if (Node.isBinaryExpression(expression) && expression.getLeft().getText().replace(/\s/g, "") === "module.exports") root = expression.getRight();
    }
  }
  root = unwrap(root);
  if (root !== undefined && Node.isIdentifier(root)) root = unwrap(source.getVariableDeclaration(root.getText())?.getInitializer());
  if (root === undefined || !Node.isObjectLiteralExpression(root)) throw unsupported(file, "the config is not an object literal exported as default, as config, or as module.exports");
  const packs = unwrap(assignment(root, "packs", Node)?.getInitializer());
  if (packs === undefined || !Node.isArrayLiteralExpression(packs)) throw unsupported(file, "`packs` is not an array literal");
  const elements = packs.getElements();
  if (elements.some((element) => Node.isSpreadElement(element))) throw unsupported(file, "`packs` spreads another array");

  const splices: Splice[] = [];
  const changes: string[] = [];
  for (const request of requests) {
    const element = unwrap(elements[request.index] as Expression | undefined);
    if (element === undefined || !Node.isObjectLiteralExpression(element)) throw unsupported(file, `packs[${request.index}] is not an object literal`);
    const name = unwrap(assignment(element, "name", Node)?.getInitializer());
    if (name === undefined || !Node.isStringLiteral(name) || name.getLiteralValue() !== request.pack) throw unsupported(file, `packs[${request.index}] is not the pack ${request.pack} as a literal name`);

    // Choices for excluded tools go: generate refuses a choice for a tool left out.
    const choices = assignment(element, "tools", Node);
    const choicesObject = unwrap(choices?.getInitializer());
    if (choicesObject !== undefined && Node.isObjectLiteralExpression(choicesObject)) {
      for (const tool of request.tools) {
        const choice = assignment(choicesObject, tool, Node);
        if (choice === undefined) continue;
        splices.push(removal(text, choice));
        changes.push(`pack ${request.pack}: removed tools.${tool} (a choice for a tool now excluded)`);
      }
    } else if (choices !== undefined) {
      throw unsupported(file, `packs[${request.index}].tools is not an object literal`);
    }

    const exclude = assignment(element, "exclude", Node);
    let addedTools = [...request.tools];
    const added = request.tools.map(quote);
    if (exclude === undefined) {
      splices.push(addition(text, element, `exclude: { tools: [${added.join(", ")}] }`, newline));
    } else {
      const excludeObject = unwrap(exclude.getInitializer());
      if (excludeObject === undefined || !Node.isObjectLiteralExpression(excludeObject)) throw unsupported(file, `packs[${request.index}].exclude is not an object literal`);
      const list = assignment(excludeObject, "tools", Node);
      if (list === undefined) {
        splices.push(addition(text, excludeObject, `tools: [${added.join(", ")}]`, newline));
      } else {
        const array = unwrap(list.getInitializer());
        if (array === undefined || !Node.isArrayLiteralExpression(array)) throw unsupported(file, `packs[${request.index}].exclude.tools is not an array literal`);
        const present = new Set(array.getElements().map((e) => (Node.isStringLiteral(e) ? e.getLiteralValue() : undefined)));
        addedTools = request.tools.filter((tool) => !present.has(tool));
        const fresh = addedTools.map(quote);
        if (fresh.length === 0) continue;
        const items = array.getElements();
        if (items.length === 0) splices.push({ at: array.getStart() + 1, end: array.getStart() + 1, text: fresh.join(", ") });
        else splices.push({ at: items.at(-1)!.getEnd(), end: items.at(-1)!.getEnd(), text: `, ${fresh.join(", ")}` });
      }
    }
    for (const tool of addedTools) changes.push(`pack ${request.pack}: exclude.tools += ${quote(tool)}`);
  }
  splices.sort((a, b) => b.at - a.at);
  let out = text;
  for (const splice of splices) out = out.slice(0, splice.at) + splice.text + out.slice(splice.end);
  return { text: out, changes };
}

/** The `key: value` property of an object literal (identifier or string key), or undefined. */
function assignment(object: ObjectLiteralExpression, key: string, Node: typeof MorphNode): PropertyAssignment | undefined {
  for (const property of object.getProperties()) {
    if (!Node.isPropertyAssignment(property)) continue;
    const nameNode = property.getNameNode();
    const name = Node.isStringLiteral(nameNode) || Node.isNoSubstitutionTemplateLiteral(nameNode) ? nameNode.getLiteralValue() : nameNode.getText();
    if (name === key) return property;
  }
  return undefined;
}

/** A new last property of an object literal, laid out as its properties are (one line, or one per line). */
function addition(text: string, object: ObjectLiteralExpression, property: string, newline: string): Splice {
  const properties = object.getProperties();
  const open = object.getStart() + 1;
  if (properties.length === 0) return { at: open, end: open, text: ` ${property} ` };
  const last = properties.at(-1)!;
  let end = last.getEnd();
  const trailing = /^\s*,/.exec(text.slice(end));
  if (trailing !== null) end += trailing[0].length;
  const multiline = text.slice(open, object.getEnd()).includes("\n");
  if (!multiline) return { at: end, end, text: trailing !== null ? ` ${property},` : `, ${property}` };
  const lineStart = text.lastIndexOf("\n", last.getStart()) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
  return { at: end, end, text: trailing !== null ? `${newline}${indent}${property},` : `,${newline}${indent}${property}` };
}

/** The text of one property removed with its comma (the one after it, else the one before). */
function removal(text: string, property: PropertyAssignment): Splice {
  let at = property.getStart();
  let end = property.getEnd();
  const after = /^\s*,[ \t]*/.exec(text.slice(end));
  if (after !== null) {
    end += after[0].length;
  } else {
    const before = /,\s*$/.exec(text.slice(0, at));
    if (before !== null) at -= before[0].length;
  }
  // A property alone on its line leaves no blank line behind.
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  if (/^[ \t]*$/.test(text.slice(lineStart, at)) && /^\r?\n/.test(text.slice(end))) {
    at = lineStart;
    end += /^\r?\n/.exec(text.slice(end))![0].length;
  }
  return { at, end, text: "" };
}

function excludeInJson(file: string, text: string, requests: readonly ExcludeRequest[]): ExcludeEdit {
  let config: { packs?: unknown };
  try {
    config = JSON.parse(text) as { packs?: unknown };
  } catch (error) {
    throw new SluiceError("CONFIG_INVALID", `${file}: not JSON (${(error as Error).message}).`);
  }
  const packs = config.packs;
  if (!Array.isArray(packs)) throw unsupported(file, "`packs` is not an array");
  const changes: string[] = [];
  for (const request of requests) {
    const pack = packs[request.index] as Record<string, unknown> | undefined;
    if (pack === undefined || pack === null || typeof pack !== "object" || pack.name !== request.pack) throw unsupported(file, `packs[${request.index}] is not the pack ${request.pack}`);
    const choices = pack.tools as Record<string, unknown> | undefined;
    for (const tool of request.tools) {
      if (choices !== undefined && typeof choices === "object" && Object.hasOwn(choices, tool)) {
        delete choices[tool];
        changes.push(`pack ${request.pack}: removed tools.${tool} (a choice for a tool now excluded)`);
      }
    }
    const exclude = (pack.exclude ?? {}) as Record<string, unknown>;
    if (typeof exclude !== "object" || Array.isArray(exclude)) throw unsupported(file, `packs[${request.index}].exclude is not an object`);
    const list = (exclude.tools ?? []) as unknown[];
    if (!Array.isArray(list)) throw unsupported(file, `packs[${request.index}].exclude.tools is not an array`);
    const fresh = request.tools.filter((tool) => !list.includes(tool));
    list.push(...fresh);
    exclude.tools = list;
    pack.exclude = exclude;
    for (const tool of fresh) changes.push(`pack ${request.pack}: exclude.tools += ${quote(tool)}`);
  }
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  const newline = text.includes("\r\n") ? "\r\n" : "\n";
  let out = JSON.stringify(config, null, indent);
  if (newline !== "\n") out = out.replace(/\n/g, newline);
  if (/\r?\n$/.test(text)) out += newline;
  return { text: out, changes };
}
