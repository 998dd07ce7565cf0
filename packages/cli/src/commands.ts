import { readFileSync } from "node:fs";

/** One command's options as `util.parseArgs` takes them. */
export type OptionSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }>;

export interface CommandEntry {
  options: OptionSpec;
  help: string[];
  /** Help that needs modules loaded (serve lists credential variables); the bin leaves it to main. */
  dynamicHelp?: boolean;
}

export interface CommandTable {
  overview: string[];
  commands: Record<string, CommandEntry>;
}

let table: CommandTable | undefined;

/**
 * The command table in bin/commands.json: options, help and the overview. It is data so
 * that the bin can answer --help before any module of the CLI is loaded; the path is the
 * same from src/ and dist/.
 */
export function commandTable(): CommandTable {
  table ??= JSON.parse(readFileSync(new URL("../bin/commands.json", import.meta.url), "utf8")) as CommandTable;
  return table;
}

export function commandNames(): string[] {
  return Object.keys(commandTable().commands);
}

export function cliVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}
