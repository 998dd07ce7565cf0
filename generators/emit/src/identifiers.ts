import type { PackIR } from "@sluice/core";

/** ECMAScript reserved words plus TypeScript type keywords, which cannot name a binding or a type. */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if " +
    "import in instanceof new null return super switch this throw true try typeof var void while with yield let static " +
    "implements interface package private protected public await any unknown never string number boolean symbol object " +
    "bigint undefined arguments eval as async from of type keyof infer is declare module namespace require global"
  ).split(" "),
);
/** Names the generated modules declare themselves. */
const TAKEN_IN_TOOLS_MODULE = new Set(["pack", "tools", "defs", "withheldMembers", "T", "definePack", "Tool", "ToolIR", "toolsIR", "runtime"]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name);
}

/** A def name usable as a TypeScript type name, on its own (see `typeNamesForDefs` for a whole pack). */
export function typeNameForDef(name: string): string {
  if (isIdentifier(name)) return name;
  const sanitised = `${name.replace(/[^A-Za-z0-9_$]/g, "_")}_`;
  return /^[0-9]/.test(sanitised) ? `_${sanitised}` : sanitised; // `9x` cannot start a name
}

/**
 * The TypeScript type name of every def of a pack, never two alike: sanitising alone maps
 * `A-B` and `A_B_` (or `class` and `class_`) to one name, and two interfaces of one name
 * merge silently or fail to compile. A def whose name is already an identifier keeps it;
 * the others, in sorted order, take the sanitised name, with `2`, `3`... added while it is
 * taken. A pure function of the names, so output stays deterministic.
 */
export function typeNamesForDefs(defNames: Iterable<string>): Map<string, string> {
  const names = [...new Set(defNames)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const taken = new Set(names.filter(isIdentifier));
  const out = new Map<string, string>();
  for (const name of names) {
    if (isIdentifier(name)) out.set(name, name);
    else out.set(name, unique(typeNameForDef(name), taken));
  }
  return out;
}

export interface ToolIdentifiers {
  /** camelCase binding exported from tools.gen.ts. */
  value: string;
  /** `<PascalName>Args` interface in types.gen.ts. */
  args: string;
}

/** Identifiers per tool name, unique and stable: a pure function of the IR (`defTypes`: its `typeNamesForDefs`). */
export function toolIdentifiers(pack: PackIR, defTypes: ReadonlyMap<string, string> = typeNamesForDefs(Object.keys(pack.defs))): Map<string, ToolIdentifiers> {
  const typeNames = new Set(defTypes.values());
  const values = new Set<string>(TAKEN_IN_TOOLS_MODULE);
  const result = new Map<string, ToolIdentifiers>();
  for (const tool of pack.tools) {
    const words = tool.name.split(/[^A-Za-z0-9]+/).filter((word) => word !== "");
    const pascal = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
    const safePascal = /^[0-9]/.test(pascal) ? `Tool${pascal}` : pascal;
    const camel = safePascal.charAt(0).toLowerCase() + safePascal.slice(1);
    const value = unique(isIdentifier(camel) ? camel : `${camel}Tool`, values);
    const args = unique(`${safePascal}Args`, typeNames);
    result.set(tool.name, { value, args });
  }
  return result;
}

function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${name}${n}`;
  taken.add(candidate);
  return candidate;
}
