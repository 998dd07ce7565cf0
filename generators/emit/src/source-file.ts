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
  const file = new SourceText(header);
  for (const statement of statements) file.statement(statement.text, statement.block === true);
  return file.finish();
}

/**
 * The same layout written piece by piece: a statement is opened with `begin`, its text
 * pushed onto `parts` in as many pieces as it is built from, and closed with `end`. The
 * file is joined once in `finish`, so a statement's megabytes (the tools table) are not
 * concatenated into a statement first and copied into the file after.
 */
export class SourceText {
  readonly parts: string[];
  private start = 0;
  private afterBrace: boolean;

  constructor(header: string) {
    const first = header.trimEnd();
    this.parts = [first];
    this.afterBrace = endsWithCloseBrace(this.parts, 0);
  }

  /** Opens a statement (a block stands apart from its neighbours) and returns the parts to push its text onto. */
  begin(block = false): string[] {
    this.parts.push(this.afterBrace || block ? "\n\n" : "\n");
    this.start = this.parts.length;
    return this.parts;
  }

  /** Closes the statement opened last: whether it ends with `}` decides the next separator. */
  end(): void {
    this.afterBrace = endsWithCloseBrace(this.parts, this.start);
  }

  statement(text: string, block = false): void {
    this.begin(block).push(text);
    this.end();
  }

  finish(): string {
    this.parts.push("\n");
    return this.parts.join("");
  }
}

/** Whether the text of `parts[from..]` ends with `}`, whitespace after it aside. */
function endsWithCloseBrace(parts: readonly string[], from: number): boolean {
  for (let p = parts.length - 1; p >= from; p -= 1) {
    const text = parts[p]!;
    for (let i = text.length - 1; i >= 0; i -= 1) {
      const char = text[i]!;
      if (char === "}") return true;
      if (!/\s/.test(char)) return false;
    }
  }
  return false;
}

/**
 * A JSDoc comment: one line when the text is one line, else ` * `-prefixed lines (a leading
 * empty line is dropped, empty lines keep a bare ` *`). `indent` prefixes every line after the first.
 */
export function jsDoc(text: string, indent: string): string {
  if (!text.includes("\n")) {
    // The printer counted a lone `\r` as a line end: what followed it was indented.
    const space = text === "" || text.endsWith(" ") ? "" : text.endsWith("\r") ? `${indent} ` : " ";
    return `/** ${text}${space}*/`;
  }
  // Split at `\r?\n`: at each `\n`, and a `\r` just before it goes with it.
  const lines = text.split("\n");
  const out = ["/**\n"];
  for (let i = lines[0] === "" || lines[0] === "\r" ? 1 : 0; i < lines.length; i += 1) {
    const piece = lines[i]!;
    const line = i < lines.length - 1 && piece.endsWith("\r") ? piece.slice(0, -1) : piece;
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
