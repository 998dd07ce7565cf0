import { IndentationText, NewLineKind, Project, QuoteKind, type StatementStructures } from "ts-morph";

/**
 * Print a whole file from ts-morph structures in one pass (adding nodes one by one re-parses
 * the file each time, which is quadratic on packs with hundreds of tools). Formatting settings
 * are fixed so output never depends on the machine.
 */
export function printSourceFile(header: string, statements: (string | StatementStructures)[]): string {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      newLineKind: NewLineKind.LineFeed,
      quoteKind: QuoteKind.Double,
      useTrailingCommas: true,
    },
  });
  const file = project.createSourceFile("generated.ts", { statements: [header.trimEnd(), ...statements] }, { overwrite: true });
  return file.getFullText();
}
