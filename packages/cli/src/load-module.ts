import { register } from "node:module";
import { pathToFileURL } from "node:url";
import { isSluiceError, SluiceError } from "@sluice/schema";

const TYPESCRIPT = /\.[mc]?ts$/;
/** Running from its own TypeScript sources, the CLI already sits behind a loader (tsx or vitest). */
let typeScriptReady = import.meta.url.endsWith(".ts");

/**
 * Imports a module file. A TypeScript file (.ts, .mts, .cts) gets tsx registered first,
 * once per process; nothing else pays for a loader. A failure to load names the import
 * that failed and the file that asked for it.
 */
export async function importModule(file: string, label: string, fresh?: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT.test(file)) await registerTypeScript(label);
  try {
    // `fresh` (generate --watch) makes a URL the module cache has not seen, so an edited file is read again.
    const url = pathToFileURL(file).href + (fresh === undefined ? "" : `?${encodeURIComponent(fresh)}`);
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw importFailure(error, file, label);
  }
}

async function registerTypeScript(label: string): Promise<void> {
  if (typeScriptReady) return;
  let api: { register: () => unknown };
  try {
    api = (await import("tsx/esm/api")) as { register: () => unknown };
  } catch {
    throw new SluiceError("IMPORT_FAILED", `${label} is TypeScript and tsx, which sluice loads it with, is not installed; install tsx, or compile the module to JavaScript.`);
  }
  api.register();
  // Registered after tsx, so it runs first: its resolve sees tsx's answer, and its load takes
  // a pack's generated data module (plain JavaScript) before tsx would transform it.
  register(new URL("../bin/typescript-esm-hooks.mjs", import.meta.url));
  typeScriptReady = true;
}

/** The error a failed import becomes: which specifier could not be loaded, from where, and what to do. */
export function importFailure(error: unknown, file: string, label: string): unknown {
  if (isSluiceError(error)) return error; // the module ran and threw one of ours (a bad projection, say)
  const { code, message = String(error) } = (error ?? {}) as { code?: string; message?: string };
  // bin/pack-data-reader.mjs, outside the bundle, names a data module it cannot read by this code.
  if (code === "IMPORT_FAILED") return new SluiceError("IMPORT_FAILED", `${label}: ${firstLine(message)}.`, { cause: error });
  const missing = /Cannot find (?:package|module) '([^']+)'(?: imported from (\S+))?/.exec(message);
  if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && missing !== null) {
    const [, specifier, from] = missing;
    const bare = !specifier!.startsWith("/") && !specifier!.startsWith(".") && !specifier!.startsWith("file:");
    const hint = bare ? `; install ${packageName(specifier!)} where ${label} can resolve it (npm install ${packageName(specifier!)})` : "";
    return new SluiceError("IMPORT_FAILED", `${label}: cannot import "${specifier}" (imported from ${from ?? file})${hint}.`, { cause: error });
  }
  if (code === "ERR_PACKAGE_PATH_NOT_EXPORTED" || code === "ERR_UNSUPPORTED_DIR_IMPORT" || code === "ERR_UNKNOWN_FILE_EXTENSION" || code === "ERR_REQUIRE_CYCLE_MODULE") {
    const hint = code === "ERR_REQUIRE_CYCLE_MODULE" ? " (the module was loaded as CommonJS: name it .mts, or set \"type\": \"module\" in its package.json)" : "";
    return new SluiceError("IMPORT_FAILED", `${label}: an import failed: ${firstLine(message)}${hint}.`, { cause: error });
  }
  if (error instanceof ReferenceError && /^(require|module|exports|__dirname|__filename) is not defined/.test(message)) {
    return new SluiceError("IMPORT_FAILED", `${label}: ${firstLine(message)}: sluice loads .ts and .mts modules as ES modules (import/export); a CommonJS module is named .cts or .cjs.`, { cause: error });
  }
  if (error instanceof SyntaxError) return new SluiceError("IMPORT_FAILED", `${label}: ${firstLine(message)} (in ${file} or a module it imports).`, { cause: error });
  return error;
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.replace(/\.$/, "");
}
