/**
 * A config as a value, checked before anything of it is trusted: by sluice generate after it
 * loads the file, and by generatePack() given an object. A misspelt key is refused, never
 * ignored (a `readonly: true` that did nothing would serve write tools).
 */
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { SluiceError, TOOL_NAME_PATTERN } from "@sluice/schema";
import { checkedPagination } from "@sluice/core";
import { closest } from "@sluice/core/edit-distance";
import { REFORMATTER_NAMES } from "@sluice/core/pack";
import type { PackConfig, SluiceConfig } from "./config.ts";
import { PACK_NAME, PACK_NAME_MAX_LENGTH, packNameProblem } from "./pack-name.ts";

export { packNameProblem, suggestPackName } from "./pack-name.ts";

const PACK_KEYS: Readonly<Record<keyof PackConfig, "string" | "selection" | "record" | "boolean" | "kind" | "responses" | "reformatters" | "toolChoices" | "mcp" | "pagination">> = {
  spec: "string",
  mcp: "mcp",
  name: "string",
  out: "string",
  kind: "kind",
  include: "selection",
  exclude: "selection",
  readOnly: "boolean",
  tools: "toolChoices",
  withhold: "record",
  credentialArguments: "record",
  detectCredentialArguments: "boolean",
  baseUrl: "string",
  endpoint: "string",
  authHeader: "string",
  env: "record",
  toolPrefix: "string",
  responses: "responses",
  reformatters: "reformatters",
  externalRefs: "record",
  pagination: "pagination",
  allowOutside: "boolean",
};
const SELECTION_KEYS = ["tags", "paths", "operations", "tools"] as const;
const TOOL_CHOICE_KEYS = ["name", "description", "reformatters"] as const;
const CONFIG_KEYS = ["$schema", "packs"] as const;
// Path Item Object methods (https://spec.openapis.org/oas/v3.1.0#path-item-object).
const HTTP_METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"];

/**
 * The patterns validateConfig holds strings to, as ECMA-262 source without flags (JSON
 * Schema's `pattern` has none): the config's JSON schema (packages/cli/config.schema.json)
 * is generated from these very values, so the two cannot drift apart.
 */
export const CONFIG_PATTERNS = {
  packName: PACK_NAME.source,
  packNameMaxLength: PACK_NAME_MAX_LENGTH,
  toolName: TOOL_NAME_PATTERN.source,
  toolPrefix: "^[a-zA-Z0-9_-]{0,20}$",
  // An HTTP field name (RFC 9110 token).
  headerName: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
  envName: "^[A-Za-z_][A-Za-z0-9_]*$",
  // The scheme is case-insensitive; spelt out because a schema pattern takes no `i` flag.
  httpUrl: "^[hH][tT][tT][pP][sS]?://",
  // `include.paths`: a path (`/pets/**`), a glob (`*`), or an HTTP method (any case) and a path.
  pathGlob: `^(?:[/*]|(?:${HTTP_METHODS.map((method) => [...method].map((c) => `[${c}${c.toLowerCase()}]`).join("")).join("|")})\\s+\\S)`,
  // A tool choice's text: something other than white space.
  notBlank: "\\S",
  // A file path: the file system refuses a NUL, and Node throws an uncoded error on one.
  filePath: "^[^\\u0000]*$",
} as const;

/** Options an MCP pack refuses: they describe a spec's security schemes, servers and documents. */
export const SPEC_ONLY_KEYS = ["credentialArguments", "detectCredentialArguments", "baseUrl", "endpoint", "authHeader", "env", "externalRefs"] as const;
/** Options a pack of `kind: "graphql"` refuses. */
export const OPENAPI_ONLY_KEYS = ["detectCredentialArguments", "baseUrl", "externalRefs"] as const;
/** Options a pack of `kind: "openapi"` refuses, with why. */
export const GRAPHQL_ONLY_KEYS = { endpoint: "an OpenAPI pack takes baseUrl", authHeader: "an OpenAPI pack's credentials come from its security schemes" } as const;

const TOOL_PREFIX = new RegExp(CONFIG_PATTERNS.toolPrefix, "u");
const HEADER_NAME = new RegExp(CONFIG_PATTERNS.headerName, "u");
const ENV_NAME = new RegExp(CONFIG_PATTERNS.envName, "u");
const HTTP_URL = new RegExp(CONFIG_PATTERNS.httpUrl, "u");

/**
 * Checks a loaded config and returns it typed: an unknown key, a wrong type or a duplicate
 * pack is CONFIG_INVALID naming the place (`packs[2].include.tag`) and, for a misspelt
 * key, the nearest one. Nothing of a config is trusted before this.
 *
 * Paths are read from `dir` (default: the folder of `file`): two packs whose `out` is one
 * folder however spelt (`o`, `./o`, `o/`) are refused, and `out`, `spec` and the files of
 * `externalRefs` must lie inside `dir` unless the pack says `allowOutside: true`. Inside
 * is judged on the path as written (`..` resolved, symbolic links not followed): a link
 * the project itself keeps is the project's choice, a config that climbs out is not.
 */
export function validateConfig(value: unknown, file: string, dir: string = dirname(resolve(file))): SluiceConfig {
  const fail = (where: string, problem: string, candidates?: string[]): never => {
    throw new SluiceError("CONFIG_INVALID", `${file}: ${where}: ${problem}`, candidates === undefined ? undefined : { candidates });
  };
  if (!isPlainObject(value)) return fail("the config", "must be an object with a `packs` array (export default defineConfig({ packs: [...] }))");
  for (const key of Object.keys(value)) if (!(CONFIG_KEYS as readonly string[]).includes(key)) fail(key, "unknown key", closest(key, CONFIG_KEYS));
  if (Object.hasOwn(value, "$schema") && (typeof value["$schema"] !== "string" || value["$schema"] === "")) fail("$schema", "must be a non-empty string (the schema's path or URL)");
  const packs = value["packs"];
  if (!Array.isArray(packs) || packs.length === 0) return fail("packs", "must be a non-empty array");
  const names = new Set<string>();
  const outs = new Map<string, number>();
  packs.forEach((pack: unknown, i: number) => {
    const at = `packs[${i}]`;
    if (!isPlainObject(pack)) return fail(at, "must be an object");
    for (const [key, given] of Object.entries(pack)) {
      if (!Object.hasOwn(PACK_KEYS, key)) return fail(`${at}.${key}`, "unknown key", closest(key, Object.keys(PACK_KEYS)));
      const expected = PACK_KEYS[key as keyof PackConfig];
      const where = `${at}.${key}`;
      if (expected === "string" && (typeof given !== "string" || given === "")) fail(where, "must be a non-empty string");
      if (expected === "boolean" && typeof given !== "boolean") fail(where, "must be true or false");
      if (expected === "kind" && given !== "openapi" && given !== "graphql" && given !== "mcp") fail(where, 'must be "openapi", "graphql" or "mcp"');
      if (expected === "mcp") validateMcpSource(given, where, fail);
      if (expected === "responses" && given !== "default" && given !== "off") fail(where, 'must be "default" or "off"');
      if (expected === "reformatters") validateReformatters(given, where, fail);
      if (expected === "record" && (!isPlainObject(given) || Object.values(given).some((v) => typeof v !== "string" || v === ""))) fail(where, "must map names to non-empty strings");
      if (expected === "selection") {
        if (!isPlainObject(given)) return fail(where, "must be an object with tags, paths, operations or tools");
        for (const [sub, list] of Object.entries(given)) {
          if (!(SELECTION_KEYS as readonly string[]).includes(sub)) fail(`${where}.${sub}`, "unknown key", closest(sub, SELECTION_KEYS));
          if (!Array.isArray(list) || list.some((item) => typeof item !== "string" || item === "")) fail(`${where}.${sub}`, "must be an array of non-empty strings");
          if (sub !== "paths") continue;
          (list as string[]).forEach((glob, j) => {
            // `DELTE /**` would match nothing, silently: a word before the path must be a method.
            const method = /^([A-Za-z]+)\s+\S/.exec(glob)?.[1];
            if (method !== undefined && !HTTP_METHODS.includes(method.toUpperCase())) fail(`${where}.paths[${j}]`, `"${method}" is not an HTTP method`, closest(method.toUpperCase(), HTTP_METHODS));
            if (method === undefined && !glob.startsWith("/") && !glob.startsWith("*")) fail(`${where}.paths[${j}]`, `"${glob}" is neither a path ("/pets/**") nor a method and a path ("GET /pets/**")`);
          });
        }
      }
      if (expected === "toolChoices") {
        if (!isPlainObject(given)) return fail(where, 'must map generated tool names to { name, description } ({ "find_pets": { "name": "search_pets" } })');
        for (const [tool, choice] of Object.entries(given)) {
          const at = `${where}.${tool}`;
          if (!isPlainObject(choice)) return fail(at, "must be an object with name and/or description");
          if (Object.keys(choice).length === 0) fail(at, "is empty: give name, description or both");
          for (const [sub, text] of Object.entries(choice)) {
            if (!(TOOL_CHOICE_KEYS as readonly string[]).includes(sub)) fail(`${at}.${sub}`, "unknown key", closest(sub, TOOL_CHOICE_KEYS));
            if (sub === "reformatters") {
              validateReformatters(text, `${at}.reformatters`, fail);
              continue;
            }
            if (typeof text !== "string" || text.trim() === "") fail(`${at}.${sub}`, "must be a non-empty string");
            if (sub === "name" && !TOOL_NAME_PATTERN.test(text as string)) fail(`${at}.name`, `"${text as string}" is not a tool name (1 to 64 letters, digits, _ and -)`, [(text as string).replace(/[^a-zA-Z0-9_-]+/g, "_").slice(0, 64)]);
          }
        }
      }
      if (expected === "pagination") {
        if (!isPlainObject(given)) return fail(where, 'must map tool names or globs to a pagination ({ "list_*": { "style": "link", "arg": "cursor" } })');
        for (const [tool, declaration] of Object.entries(given)) {
          if (tool === "") fail(where, "has an empty tool name");
          try {
            checkedPagination(declaration, `${where}.${tool}`);
          } catch (error) {
            if (!(error instanceof SluiceError)) throw error;
            throw new SluiceError("CONFIG_INVALID", `${file}: ${error.message}`, error.candidates === undefined ? undefined : { candidates: [...error.candidates] });
          }
        }
      }
    }
    for (const required of ["name", "out"] as const) if (!Object.hasOwn(pack, required)) fail(`${at}.${required}`, "is required");
    if (Object.hasOwn(pack, "spec") === Object.hasOwn(pack, "mcp")) fail(at, Object.hasOwn(pack, "spec") ? "give either spec or mcp, not both" : "needs spec (a spec file) or mcp (an MCP server)");
    if (Object.hasOwn(pack, "mcp")) {
      if (Object.hasOwn(pack, "kind") && pack["kind"] !== "mcp") fail(`${at}.kind`, 'must be "mcp" (or absent) for a pack with an mcp source');
      for (const specOnly of SPEC_ONLY_KEYS) {
        if (Object.hasOwn(pack, specOnly)) fail(`${at}.${specOnly}`, "applies to spec packs only (an MCP server's own credentials go in mcp.env or mcp.headers as { fromEnv })");
      }
      if (Object.hasOwn(pack, "pagination")) fail(`${at}.pagination`, MCP_PAGINATION);
    } else if (pack["kind"] === "mcp") fail(`${at}.kind`, '"mcp" needs an mcp source');
    const name = pack["name"] as string;
    const problem = typeof name === "string" ? packNameProblem(name) : undefined;
    if (problem !== undefined) fail(`${at}.name`, problem);
    if (names.has(name)) fail(`${at}.name`, `a second pack is named "${name}"`);
    names.add(name);
    const out = pack["out"] as string;
    const outDir = resolve(dir, out);
    const first = outs.get(outDir);
    if (first !== undefined) fail(`${at}.out`, `"${out}" is the folder packs[${first}] (${JSON.stringify((packs[first] as Record<string, unknown>)["name"])}) writes to ("${(packs[first] as Record<string, unknown>)["out"] as string}"); give each pack its own out`);
    outs.set(outDir, i);
    const allowOutside = pack["allowOutside"] === true;
    const paths: Array<[string, unknown]> = [["out", out], ["spec", pack["spec"]], ...Object.entries(isPlainObject(pack["externalRefs"]) ? pack["externalRefs"] : {}).map(([ref, local]): [string, unknown] => [`externalRefs.${ref}`, local])];
    for (const [key, path] of paths) {
      if (typeof path !== "string") continue;
      if (path.includes("\0")) fail(`${at}.${key}`, "holds a NUL character, which no file path can");
      if (!allowOutside && outside(dir, path)) fail(`${at}.${key}`, `"${path}" is outside the config's folder (${dir}); keep it inside, or set allowOutside: true on this pack if it is meant to ${key === "out" ? "write" : "read"} there`);
    }
    const prefix = pack["toolPrefix"];
    if (typeof prefix === "string" && !TOOL_PREFIX.test(prefix)) fail(`${at}.toolPrefix`, "may hold up to 20 letters, digits, _ and -");
    const authHeader = pack["authHeader"];
    if (typeof authHeader === "string" && !HEADER_NAME.test(authHeader)) fail(`${at}.authHeader`, `"${authHeader}" is not an HTTP header name`);
    const kind = pack["kind"];
    if (kind === "graphql") {
      for (const openapiOnly of OPENAPI_ONLY_KEYS) {
        if (Object.hasOwn(pack, openapiOnly)) fail(`${at}.${openapiOnly}`, "applies to OpenAPI packs only");
      }
    }
    if (kind === "openapi") {
      for (const [graphqlOnly, why] of Object.entries(GRAPHQL_ONLY_KEYS)) if (Object.hasOwn(pack, graphqlOnly)) fail(`${at}.${graphqlOnly}`, `applies to GraphQL packs only (${why})`);
    }
  });
  return value as unknown as SluiceConfig;
}

/** Why an MCP pack refuses `pagination` (here and as the MCP source's unsupported choice). */
export const MCP_PAGINATION = "applies to OpenAPI and GraphQL packs: sluice reads next-page markers from HTTP answers, and passes an MCP server's results on as it sends them";

/** `reformatters: { "path-fold": false, toon: true }`: known names to booleans; a misspelt name is refused with the nearest. */
function validateReformatters(given: unknown, where: string, fail: (where: string, problem: string, candidates?: string[]) => never): void {
  if (!isPlainObject(given)) fail(where, `must map reformatter names (${REFORMATTER_NAMES.join(", ")}) to true or false`);
  for (const [name, on] of Object.entries(given as Record<string, unknown>)) {
    if (!(REFORMATTER_NAMES as readonly string[]).includes(name)) fail(`${where}.${name}`, `unknown reformatter (the reformatters: ${REFORMATTER_NAMES.join(", ")})`, closest(name, REFORMATTER_NAMES));
    if (typeof on !== "boolean") fail(`${where}.${name}`, "must be true or false");
  }
}

const MCP_KEYS = { stdio: ["command", "args", "env", "cwd"], http: ["url", "headers"] } as const;

/** `mcp: { command, args?, env?, cwd? }` or `mcp: { url, headers? }`; values of env and headers a string or `{ fromEnv: "NAME" }`. */
function validateMcpSource(given: unknown, where: string, fail: (where: string, problem: string, candidates?: string[]) => never): void {
  if (!isPlainObject(given)) fail(where, "must be { command, args?, env?, cwd? } (stdio) or { url, headers? } (Streamable HTTP)");
  const source = given as Record<string, unknown>;
  const stdio = Object.hasOwn(source, "command");
  if (stdio === Object.hasOwn(source, "url")) fail(where, "needs either command (stdio) or url (Streamable HTTP)");
  const keys: readonly string[] = stdio ? MCP_KEYS.stdio : MCP_KEYS.http;
  for (const key of Object.keys(source)) if (!keys.includes(key)) fail(`${where}.${key}`, `unknown key for ${stdio ? "a stdio" : "an HTTP"} server`, closest(key, keys));
  for (const key of ["command", "url", "cwd"]) {
    if (Object.hasOwn(source, key) && (typeof source[key] !== "string" || source[key] === "")) fail(`${where}.${key}`, "must be a non-empty string");
  }
  if (typeof source["cwd"] === "string" && source["cwd"].includes("\0")) fail(`${where}.cwd`, "holds a NUL character, which no file path can");
  if (typeof source["url"] === "string" && !HTTP_URL.test(source["url"])) fail(`${where}.url`, "must be an http(s) URL");
  if (Object.hasOwn(source, "args") && (!Array.isArray(source["args"]) || source["args"].some((arg) => typeof arg !== "string"))) fail(`${where}.args`, "must be an array of strings");
  for (const key of ["env", "headers"]) {
    if (!Object.hasOwn(source, key)) continue;
    const record = source[key];
    if (!isPlainObject(record)) fail(`${where}.${key}`, 'must map names to strings or { fromEnv: "NAME" }');
    for (const [name, value] of Object.entries(record as Record<string, unknown>)) {
      if (key === "headers" && !HEADER_NAME.test(name)) fail(`${where}.headers.${name}`, "is not an HTTP header name");
      const fromEnv = isPlainObject(value) ? value["fromEnv"] : undefined;
      const ok = typeof value === "string" || (isPlainObject(value) && Object.keys(value).length === 1 && typeof fromEnv === "string" && ENV_NAME.test(fromEnv));
      if (!ok) fail(`${where}.${key}.${name}`, 'must be a string or { fromEnv: "NAME" } with an environment variable name');
    }
  }
}

/** Whether `path`, read from `dir`, leaves it (absolute elsewhere, or climbing above it with `..`). */
function outside(dir: string, path: string): boolean {
  const rel = relative(dir, resolve(dir, path));
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
