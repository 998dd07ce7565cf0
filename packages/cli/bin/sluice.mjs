#!/usr/bin/env node
// The `sluice` command. Installed, it runs the compiled JavaScript in dist/. Inside the
// sluice repository (src/ is never published) it runs the TypeScript sources through tsx
// with the "@sluice/source" export condition. Help and version come from static files before
// either is loaded, so they start about as fast as Node itself. A loader for a user's
// own TypeScript module is registered later, only when one is given (src/load-module.ts).
import { existsSync, readFileSync } from "node:fs";
import { register } from "node:module";

const argv = process.argv.slice(2);
// `sluice survey x | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});
const quick = quickAnswer(argv);
if (quick !== undefined) {
  process.stdout.write(quick);
} else {
  // Before anything is allocated: generate's peak memory is mostly young garbage (generate-heap.mjs).
  if (argv[0] === "generate") (await import("./generate-heap.mjs")).keepYoungGenerationSmall();
  const fromSource = existsSync(new URL("../src/main.ts", import.meta.url));
  if (fromSource) {
    // tsx's hooks, registered straight into the loader thread: tsx/esm/api would first load
    // tsx (and esbuild's API) into this thread too, for nothing a run from source uses (its
    // namespaces and CommonJS resolve patch), 0.1-0.2 s of CPU per start (bench/TEST-TIME.md).
    // `data` must be an object (tsx refuses to start without one); no port: nobody listens
    // for tsx's per-module messages. Source maps on, as tsx's own register does.
    process.setSourceMapsEnabled(true);
    register("tsx/esm", { parentURL: import.meta.url, data: {} });
    // Registered after tsx, so they run first: a .ts file outside a typed package loads as
    // ESM, and sluice's own packages resolve to their sources (only those: a third-party
    // package may export uncompiled files under "source" too).
    register("./typescript-esm-hooks.mjs", import.meta.url);
    const sourceCondition = `export function resolve(s, c, next) {
      return next(s, s.startsWith("@sluice/") ? { ...c, conditions: [...new Set([...c.conditions, "@sluice/source"])] } : c);
    }`;
    register(`data:text/javascript,${encodeURIComponent(sourceCondition)}`);
  }
  const { main } = await import(fromSource ? "../src/main.ts" : "../dist/main.js");
  process.exitCode = await main(argv, { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
}

/** The text for --version, --help, `help [command]` and `<command> --help`; undefined for anything else. */
function quickAnswer(args) {
  const [first, second] = args;
  if (args.length === 1 && (first === "--version" || first === "-V")) {
    return `${JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}\n`;
  }
  const table = () => JSON.parse(readFileSync(new URL("./commands.json", import.meta.url), "utf8"));
  if (args.length === 1 && (first === "--help" || first === "-h" || first === "help")) return table().overview.join("\n") + "\n";
  const helpFor = first === "help" && args.length === 2 ? second : args.length === 2 && (second === "--help" || second === "-h") ? first : undefined;
  if (helpFor === undefined) return undefined;
  const command = table().commands[helpFor];
  // Unknown commands (did-you-mean) and help that depends on installed modules are main's job.
  if (!Object.hasOwn(table().commands, helpFor) || command.dynamicHelp) return undefined;
  return command.help.join("\n") + "\n";
}
