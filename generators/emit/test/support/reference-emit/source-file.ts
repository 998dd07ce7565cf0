/**
 * Top-level statements joined the way the generated files have always been laid out
 * (formerly printed by ts-morph, whose layout the committed packs pin byte for byte): one
 * statement per line, a blank line before an interface and after anything that ends with
 * `}`, and a final newline.
 */
export interface Statement {
  text: string;
  /** Interfaces (block declarations) stand apart from their neighbours. */
  block?: boolean;
}

export function printSourceFile(header: string, statements: Iterable<Statement>): string {
  const first = header.trimEnd();
  const parts: string[] = [first];
  let previous = first;
  for (const statement of statements) {
    parts.push(endsWithCloseBrace(previous) || statement.block === true ? "\n\n" : "\n", statement.text);
    previous = statement.text;
  }
  parts.push("\n");
  return parts.join("");
}

function endsWithCloseBrace(text: string): boolean {
  for (let i = text.length - 1; i >= 0; i -= 1) {
    const char = text[i]!;
    if (char === "}") return true;
    if (!/\s/.test(char)) return false;
  }
  return false;
}

/**
 * A JSDoc comment: one line when the text is one line, else ` * `-prefixed lines (a leading
 * empty line is dropped, empty lines keep a bare ` *`). `indent` prefixes every line after the first.
 */
export function jsDoc(text: string, indent: string): string {
  const lines = text.split(/\r?\n/);
  if (lines.length <= 1) {
    // The printer counted a lone `\r` as a line end: what followed it was indented.
    const space = text === "" || text.endsWith(" ") ? "" : text.endsWith("\r") ? `${indent} ` : " ";
    return `/** ${text}${space}*/`;
  }
  const out = ["/**\n"];
  for (let i = lines[0] === "" ? 1 : 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    out.push(indent, line === "" ? " *\n" : ` * ${line}\n`);
  }
  out.push(indent, " */");
  return out.join("");
}

/** A double-quoted module specifier, escaped as the import printer always escaped it. */
export function quoteModuleSpecifier(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (char === '"' || char === "\\") out += "\\";
    else if (char === "\r" && text[i + 1] === "\n") {
      out += "\\r\\n\\";
      i += 1;
    } else if (char === "\n") out += "\\n\\";
    out += text[i]!;
  }
  return `"${out}"`;
}
