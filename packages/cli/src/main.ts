import { SluiceError, isSluiceError } from "@sluice/schema";
import { closest, usageError } from "./args.ts";
import { cliVersion, commandNames, commandTable } from "./commands.ts";

import type { Io } from "./io.ts";

export type { Io } from "./io.ts";

type Command = (args: readonly string[], io: Io) => Promise<number>;

/** Each command's module is imported when it runs, so `--help` and a typo load none of them. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  survey: async () => (await import("./inspect.ts")).surveyCommand,
  paths: async () => (await import("./inspect.ts")).pathsCommand,
  egress: async () => (await import("./inspect.ts")).egressCommand,
  generate: async () => (await import("./generate.ts")).generateCommand,
  narrow: async () => (await import("./narrow.ts")).narrowCommand,
  check: async () => (await import("./check-fit.ts")).checkCommand,
  fit: async () => (await import("./check-fit.ts")).fitCommand,
  compact: async () => (await import("./compact.ts")).compactCommand,
  serve: async () => (await import("./serve.ts")).serveCommand,
  usage: async () => (await import("./usage.ts")).usageCommand,
  suggest: async () => (await import("./suggest.ts")).suggestCommand,
  report: async () => (await import("./report/command.ts")).reportCommand,
  demo: async () => (await import("./demo.ts")).demoCommand,
};

/**
 * Runs one command; returns the exit code: 0 ok, 1 a check failed, 2 an error. Errors
 * are one line on stderr, `sluice: CODE: message`, never a stack trace.
 */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (thrown) {
    // Operations turn a RangeError into INTERNAL_LIMIT themselves; one that escaped them still gets a code.
    const error = thrown instanceof RangeError ? new SluiceError("INTERNAL_LIMIT", `sluice ${argv[0] ?? ""}: the input is past what this command handles (${thrown.message}).`, { cause: thrown }) : thrown;
    io.stderr.write(errorLine(error) + "\n");
    // A check that found a difference, and a spec that yields no tool, are failures (1), not errors (2).
    return isSluiceError(error, "EGRESS_MAP_CHANGED") || isSluiceError(error, "NO_TOOLS") ? 1 : 2;
  }
}

/** One line: the code, the message (its lines joined), and the candidates unless the message already names them. */
export function errorLine(error: unknown): string {
  // Every line says a code, so that a script (and --watch) can tell failures apart without reading the words.
  if (!isSluiceError(error)) return `sluice: INTERNAL_ERROR: ${oneLine(error instanceof Error ? error.message : String(error))}`;
  const candidates = error.candidates ?? [];
  const message = oneLine(error.message);
  const tail = candidates.length === 0 || message.includes("did you mean") ? "" : ` (candidates: ${candidates.join(", ")})`;
  return `sluice: ${error.code}: ${message}${tail}`;
}

function oneLine(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join(" ");
}

async function dispatch(argv: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.stderr.write(commandTable().overview.join("\n") + "\n");
    return 2;
  }
  if (command === "--version" || command === "-V") {
    io.stdout.write(cliVersion() + "\n");
    return 0;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    const topic = rest[0];
    if (topic === undefined) io.stdout.write(commandTable().overview.join("\n") + "\n");
    else if (Object.hasOwn(COMMANDS, topic)) return dispatch([topic, "--help"], io);
    else throw unknownCommand(topic);
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, command)) throw unknownCommand(command);
  const entry = commandTable().commands[command]!;
  // `--help` anywhere before `--` asks for help; serve's help lists credentials, so it prints its own.
  const helpAsked = rest.slice(0, rest.includes("--") ? rest.indexOf("--") : rest.length).some((arg) => arg === "--help" || arg === "-h");
  if (helpAsked && !entry.dynamicHelp) {
    io.stdout.write(entry.help.join("\n") + "\n");
    return 0;
  }
  return (await COMMANDS[command]!())(rest, io);
}

/** The options sluice takes before a command. */
const TOP_LEVEL_FLAGS = ["--version", "--help"];

function unknownCommand(command: string): SluiceError {
  if (command.startsWith("-")) {
    // `-v` means --version in most CLIs (sluice spells it -V).
    const near = command === "-v" ? ["--version"] : closest(command.startsWith("--") ? command : `-${command}`, TOP_LEVEL_FLAGS);
    return usageError("", `unknown option ${command}${near.length > 0 ? `; did you mean ${near.join(" or ")}?` : `: sluice takes --version, --help or a command first`}`, near);
  }
  const near = closest(command, commandNames());
  return usageError("", `unknown command "${command}"${near.length > 0 ? `; did you mean ${near.join(" or ")}?` : ""}`, near);
}
