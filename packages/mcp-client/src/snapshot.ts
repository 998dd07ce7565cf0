import { readFile, writeFile } from "node:fs/promises";
import { SluiceError, type JsonSchemaObject } from "@sluice/schema";
import type { McpToolAnnotations } from "@sluice/core";

/**
 * The committed record of what an MCP server lists (`spec/tools.snapshot.json` in a pack):
 * the server's identity and each tool's definition as `tools/list` gave it, before any
 * normalisation, so it can be compared with the live server byte for byte. It holds no
 * configuration (command, URL, environment, headers), so no secret can reach it.
 */
export interface McpSnapshot {
  /** Format marker; a reader refuses any other. */
  format: typeof SNAPSHOT_FORMAT;
  /** From the server's `initialize` answer (`serverInfo`). */
  server: { name: string; version: string; title?: string };
  /** The protocol version the server and sluice agreed on. */
  protocolVersion: string;
  /** Every listed tool (all pages of `tools/list`), sorted by name. */
  tools: McpSnapshotTool[];
}

/** One tool of `tools/list` (MCP `Tool`), the parts that reach a model or decide a call. */
export interface McpSnapshotTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: McpToolAnnotations;
}

export const SNAPSHOT_FORMAT = "sluice.mcp-snapshot/1";
/** The snapshot's file name inside a pack's `spec/` folder. */
export const SNAPSHOT_FILE = "tools.snapshot.json";

/** Deeper JSON than this is not a tool definition; refused instead of overflowing the stack. */
const MAX_DEPTH = 256;

/**
 * A snapshot of listed tools: only the snapshot's own fields are kept (a server's `_meta`,
 * `icons` and the like are left out), tools sorted by name. Duplicate names are refused:
 * a client could not tell which one a call reaches.
 */
export function makeSnapshot(server: McpSnapshot["server"], protocolVersion: string, tools: readonly unknown[]): McpSnapshot {
  const picked = tools.map((tool, index) => toolOf(tool, `/tools/${index}`));
  picked.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < picked.length; i++) {
    if (picked[i]!.name === picked[i - 1]!.name) throw invalid(`the server lists two tools named ${JSON.stringify(picked[i]!.name)}`, "/tools");
  }
  const info: McpSnapshot["server"] = { name: server.name, version: server.version };
  if (server.title !== undefined) info.title = server.title;
  return { format: SNAPSHOT_FORMAT, server: info, protocolVersion, tools: picked };
}

/** Canonical, readable JSON: sorted keys, two-space indent, a final newline. The same snapshot always gives the same bytes. */
export function formatSnapshot(snapshot: McpSnapshot): string {
  return `${pretty(snapshot, "", 0)}\n`;
}

/** Parses and checks a snapshot's text; anything that is not what `formatSnapshot` writes is MCP_SNAPSHOT_INVALID. */
export function parseSnapshot(text: string, where = SNAPSHOT_FILE): McpSnapshot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new SluiceError("MCP_SNAPSHOT_INVALID", `${where} is not JSON (${(cause as Error).message}); regenerate it with \`sluice generate\``, { cause });
  }
  if (!isRecord(value) || value["format"] !== SNAPSHOT_FORMAT) throw invalid(`${where} is not a sluice MCP snapshot (format must be "${SNAPSHOT_FORMAT}")`, "/format");
  const server = value["server"];
  if (!isRecord(server) || typeof server["name"] !== "string" || typeof server["version"] !== "string" || (server["title"] !== undefined && typeof server["title"] !== "string")) {
    throw invalid(`${where}: server must be { name, version, title? } of strings`, "/server");
  }
  if (typeof value["protocolVersion"] !== "string") throw invalid(`${where}: protocolVersion must be a string`, "/protocolVersion");
  const tools = value["tools"];
  if (!Array.isArray(tools)) throw invalid(`${where}: tools must be a list`, "/tools");
  const title = server["title"];
  return makeSnapshot({ name: server["name"], version: server["version"], ...(typeof title === "string" ? { title } : {}) }, value["protocolVersion"], tools);
}

export async function readSnapshot(file: string): Promise<McpSnapshot> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    throw new SluiceError("FILE_NOT_FOUND", `No MCP snapshot at ${file}; generate the pack first (\`sluice generate\`)`, { cause });
  }
  return parseSnapshot(text, file);
}

export async function writeSnapshot(file: string, snapshot: McpSnapshot): Promise<void> {
  await writeFile(file, formatSnapshot(snapshot), "utf8");
}

const ANNOTATION_HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

function toolOf(tool: unknown, pointer: string): McpSnapshotTool {
  if (!isRecord(tool)) throw invalid("a listed tool is not an object", pointer);
  const name = tool["name"];
  if (typeof name !== "string" || name === "") throw invalid("a listed tool has no name", `${pointer}/name`);
  const out: McpSnapshotTool = { name, inputSchema: schemaOf(tool["inputSchema"], `${pointer}/inputSchema`, name) };
  for (const key of ["title", "description"] as const) {
    const text = tool[key];
    if (text === undefined) continue;
    if (typeof text !== "string") throw invalid(`${name}: ${key} must be a string`, `${pointer}/${key}`);
    out[key] = text;
  }
  if (tool["outputSchema"] !== undefined) out.outputSchema = schemaOf(tool["outputSchema"], `${pointer}/outputSchema`, name);
  const annotations = tool["annotations"];
  if (annotations !== undefined) {
    if (!isRecord(annotations)) throw invalid(`${name}: annotations must be an object`, `${pointer}/annotations`);
    const kept: McpToolAnnotations = {};
    if (typeof annotations["title"] === "string") kept.title = annotations["title"];
    for (const hint of ANNOTATION_HINTS) {
      const flag = annotations[hint];
      if (flag === undefined) continue;
      if (typeof flag !== "boolean") throw invalid(`${name}: annotations.${hint} must be true or false`, `${pointer}/annotations/${hint}`);
      kept[hint] = flag;
    }
    if (Object.keys(kept).length > 0) out.annotations = kept;
  }
  return out;
}

function schemaOf(value: unknown, pointer: string, tool: string): JsonSchemaObject {
  if (!isRecord(value)) throw invalid(`${tool}: the schema must be a JSON object`, pointer);
  checkJson(value, pointer, 0);
  return value as JsonSchemaObject;
}

/** Plain JSON only, bounded depth: what `formatSnapshot` can write and `JSON.parse` give back unchanged. */
function checkJson(value: unknown, pointer: string, depth: number): void {
  if (depth > MAX_DEPTH) throw invalid(`a schema nests deeper than ${MAX_DEPTH} levels`, pointer);
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw invalid("a schema holds a number JSON cannot write", pointer);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkJson(item, `${pointer}/${i}`, depth + 1));
    return;
  }
  if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) checkJson(item, `${pointer}/${escapePointer(key)}`, depth + 1);
    return;
  }
  throw invalid(`a schema holds a ${typeof value}, which is not JSON`, pointer);
}

function pretty(value: unknown, indent: string, depth: number): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const inner = indent + "  ";
    return `[\n${value.map((item) => inner + pretty(item, inner, depth + 1)).join(",\n")}\n${indent}]`;
  }
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    if (keys.length === 0) return "{}";
    const inner = indent + "  ";
    return `{\n${keys.map((key) => `${inner}${JSON.stringify(key)}: ${pretty(value[key], inner, depth + 1)}`).join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}

export function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(message: string, pointer: string): SluiceError {
  return new SluiceError("MCP_SNAPSHOT_INVALID", message, { pointer });
}
