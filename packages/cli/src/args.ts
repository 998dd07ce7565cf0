import { parseArgs } from "node:util";
// The light entries: every command parses its arguments, and most load @sluice/core only when they need it.
import { closest } from "@sluice/core/edit-distance";
import { SluiceError } from "@sluice/schema";
import { commandTable } from "./commands.ts";

export { closest };

/** A usage problem as one line, with the command's help as the hint. */
export function usageError(command: string, problem: string, candidates?: readonly string[]): SluiceError {
  return new SluiceError("INVALID_OPTION", `${problem} (see sluice ${command === "" ? "" : `${command} `}--help)`, candidates === undefined || candidates.length === 0 ? {} : { candidates });
}

export type OptionValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

export interface ParsedCommand {
  values: OptionValues;
  positionals: string[];
}

/** A string option's value (undefined when absent); the command table declares which options take strings. */
export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * The options and positionals of `sluice <command> ...`, checked against the command
 * table. An unknown option names the nearest known ones.
 */
export function parseCommand(command: string, args: readonly string[]): ParsedCommand {
  const options = { ...commandTable().commands[command]!.options, help: { type: "boolean" as const, short: "h" } };
  try {
    const { values, positionals } = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    return { values: values as OptionValues, positionals };
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const flag = /'(-[^' ]*)/.exec(message)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag !== undefined) {
      const known = Object.keys(options).map((name) => `--${name}`);
      const near = closest(flag.startsWith("--") ? flag : `-${flag}`, known);
      throw usageError(command, `unknown option ${flag} for sluice ${command}${near.length > 0 ? `; did you mean ${near.join(" or ")}?` : ""}`, near);
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && flag !== undefined) {
      throw usageError(command, `option ${flag} ${options[flag.replace(/^-+/, "") as keyof typeof options]?.type === "boolean" ? "takes no value" : "needs a value"}`);
    }
    throw usageError(command, message.split("\n")[0]!.replace(/\.$/, ""));
  }
}
