import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { runInThisContext } from "node:vm";
import { isSluiceError, SluiceError } from "@sluice/schema";
import { validateConfig } from "@sluice/pipeline/config-check";
import { CONFIG_FILES, type SluiceConfig } from "./config.ts";
import { importFailure, importModule } from "./load-module.ts";

/** A config as loaded: where it is (paths in it are relative to its folder) and what it says. */
export interface LoadedConfig {
  file: string;
  dir: string;
  config: SluiceConfig;
}

/** The config file: `--config FILE`, else the first of CONFIG_FILES in cwd; CONFIG_INVALID when there is none. */
export async function loadConfig(cwd: string, given: string | undefined, fresh?: string): Promise<LoadedConfig> {
  const file = given !== undefined ? resolve(cwd, given) : CONFIG_FILES.map((name) => resolve(cwd, name)).find((path) => existsSync(path));
  if (file === undefined) {
    throw new SluiceError("CONFIG_INVALID", `no ${CONFIG_FILES.join(", ")} in ${cwd}: give sluice generate a spec (sluice generate <spec> --name <name> --out <dir>), or write a config (see sluice generate --help).`);
  }
  if (!existsSync(file)) throw new SluiceError("FILE_NOT_FOUND", `the config file ${given} does not exist (${file}).`);
  let value: unknown;
  if (file.endsWith(".json")) {
    try {
      value = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new SluiceError("CONFIG_INVALID", `${file}: not JSON (${(error as Error).message}).`, { cause: error });
    }
  } else {
    const module = await importConfigModule(file, given ?? file, fresh);
    value = Object.hasOwn(module, "default") ? module["default"] : module["config"];
  }
  return { file, dir: dirname(file), config: validateConfig(value, file) };
}

/**
 * A config module. A `.js` config written as CommonJS (`module.exports = ...`, `require`)
 * in a folder whose package.json says `"type": "module"` fails as an ES module; it is then
 * run as CommonJS, as Node would run it named `.cjs`, rather than refused: the user meant a config.
 */
async function importConfigModule(file: string, label: string, fresh: string | undefined): Promise<Record<string, unknown>> {
  try {
    return await importModule(file, label, fresh);
  } catch (error) {
    const cause = isSluiceError(error) ? (error as { cause?: unknown }).cause : undefined;
    const commonJs = cause instanceof ReferenceError && /^(require|module|exports|__dirname|__filename) is not defined/.test(cause.message);
    if (!file.endsWith(".js") || !commonJs) throw error;
    return { default: runCommonJs(file, label) };
  }
}

/** Runs a CommonJS file the way Node's loader does (its own `require`, `module`, `exports`), and returns `module.exports`. */
function runCommonJs(file: string, label: string): unknown {
  const source = readFileSync(file, "utf8").replace(/^#!.*/, "");
  const module = { exports: {} as unknown };
  try {
    const wrapper = runInThisContext(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file }) as (...args: unknown[]) => void;
    wrapper(module.exports, createRequire(file), module, file, dirname(file));
  } catch (error) {
    const failure = importFailure(error, file, label);
    if (isSluiceError(failure)) throw failure;
    throw new SluiceError("IMPORT_FAILED", `${label}: ${(error as Error).message.split("\n")[0]} (while running it as CommonJS, since it uses require or module.exports).`, { cause: error });
  }
  return module.exports;
}
