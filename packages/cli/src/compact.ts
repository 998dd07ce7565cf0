import { readFile } from "node:fs/promises";
import { resolve as resolvePath } from "node:path";
import { parseArgs } from "node:util";
import { textTokens, type Encoding } from "@sluice/core/tokens";
import {
  cacheBreakEven,
  dispatchLevel1,
  dispatchLevel3,
  filterTools,
  reduceDescriptions,
  stripAnnotationBytes,
  stripAnnotations,
  type CatalogTool,
  type CompactionResult,
} from "@sluice/catalog";
import { closest } from "./args.ts";

export interface CompactIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
  /** The catalog; `process.stdin` when absent. */
  stdin?: AsyncIterable<string | Uint8Array>;
}

const MODES = ["strip", "strip-bytes", "reduce", "filter", "level1", "level3"] as const;
type Mode = (typeof MODES)[number];
const ENCODINGS: readonly Encoding[] = ["o200k_base", "cl100k_base"];

export const COMPACT_USAGE = [
  "usage: sluice compact --mode strip|strip-bytes|reduce|filter|level1|level3 [--encoding o200k_base|cl100k_base] [--warm] < catalog.json",
  "       --mode filter --remove a,b,mcp__server [--tool-choice NAME] [--system FILE]",
].join("\n");

/**
 * `sluice compact`: a catalog (JSON text) on stdin, the compacted catalog on stdout, and a
 * one-line JSON report on stderr (tokens before and after, ratio, method, lossless,
 * adopted, and the prompt-cache break-even of adopting it; `--warm` when the current
 * catalog is already cached). When a text mode leaves the input untouched, stdout is the
 * input byte for byte; the filter and dispatcher modes always write their result and say
 * in `adopted` whether it is smaller. `level3` writes `{ tools, system }`: the system
 * text carries the code map. Exit 0 on success (adopted or not), 2 on a usage error or unreadable catalog.
 */
export async function runCompact(args: readonly string[], io: CompactIo): Promise<number> {
  let mode: Mode;
  let encoding: Encoding;
  let flags: { remove?: string; "tool-choice"?: string; system?: string; warm?: boolean };
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: {
        mode: { type: "string" },
        encoding: { type: "string" },
        remove: { type: "string" },
        "tool-choice": { type: "string" },
        system: { type: "string" },
        warm: { type: "boolean" },
      },
      allowPositionals: true,
    });
    flags = values;
    if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
    if (values.mode === undefined || !(MODES as readonly string[]).includes(values.mode)) {
      throw new Error(values.mode === undefined ? "--mode is required" : `unknown mode "${values.mode}"`);
    }
    mode = values.mode as Mode;
    const requested = values.encoding ?? "o200k_base";
    if (!(ENCODINGS as readonly string[]).includes(requested)) throw new Error(`unknown encoding "${requested}"`);
    encoding = requested as Encoding;
  } catch (error) {
    // One line: the problem (with the nearest option or mode for a typo), then the usage to fix it.
    io.stderr.write(`sluice compact: ${compactProblem(error)}; ${COMPACT_USAGE.split("\n")[0]}\n`);
    return 2;
  }

  const input = await readAll(io.stdin ?? process.stdin);
  let report: Record<string, unknown>;
  try {
    if (mode === "strip" || mode === "strip-bytes" || mode === "reduce") {
      const result: CompactionResult =
        mode === "strip" ? stripAnnotations(input, { encoding }) : mode === "strip-bytes" ? stripAnnotationBytes(input, { encoding }) : reduceDescriptions(input, { encoding });
      io.stdout.write(result.text);
      const { method, lossless, tokensBefore, tokensAfter, ratio, adopted, reason } = result.report;
      report = { method, lossless, encoding, tokensBefore, tokensAfter, ratio, adopted, ...(reason === undefined ? {} : { reason }) };
    } else {
      const { text, extra } = await catalogMode(mode, input, flags, io.cwd);
      io.stdout.write(text);
      const tokensBefore = textTokens(input, { encoding });
      const tokensAfter = textTokens(text, { encoding });
      // stdout is the transformed catalog either way (the mode was asked for); `adopted` says whether it is smaller.
      report = { ...extra, encoding, tokensBefore, tokensAfter, ratio: round(tokensAfter / Math.max(1, tokensBefore)), adopted: tokensAfter < tokensBefore };
    }
  } catch (error) {
    io.stderr.write(`sluice compact: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const before = report.tokensBefore as number;
  const after = report.tokensAfter as number;
  if (report.adopted === true && after < before) {
    // The tools array is the start of the provider's cached prefix: adopting a change re-anchors it once.
    const { oneTimeCost, perRequestGain, breakEvenRequests, report: line } = cacheBreakEven({ prefixTokens: after, savedTokens: before - after, warm: flags.warm === true });
    report.cacheBreakEven = { warm: flags.warm === true, oneTimeCost, perRequestGain, breakEvenRequests, line };
  }
  io.stderr.write(JSON.stringify(report) + "\n");
  return 0;
}

function compactProblem(error: unknown): string {
  const { code, message = String(error) } = (error ?? {}) as { code?: string; message?: string };
  const unknownOption = code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /'(-[^' ]*)/.exec(message)?.[1] : undefined;
  if (unknownOption !== undefined) {
    const near = closest(unknownOption, ["--mode", "--encoding", "--remove", "--tool-choice", "--system", "--warm"]);
    return `unknown option ${unknownOption}${near.length > 0 ? `; did you mean ${near.join(" or ")}?` : ""}`;
  }
  const unknownMode = /^unknown mode "(.*)"$/.exec(message)?.[1];
  if (unknownMode !== undefined) {
    const near = closest(unknownMode, MODES);
    return `${message}${near.length > 0 ? `; did you mean ${near.join(" or ")}?` : ""}`;
  }
  return message.split("\n")[0]!;
}

/** `sluice compact` as main runs it: the catalog comes from stdin. */
export function compactCommand(args: readonly string[], io: CompactIo): Promise<number> {
  return runCompact(args, io);
}

/** The modes that work on the parsed catalog (a tools array, or an object with `tools`). */
async function catalogMode(
  mode: "filter" | "level1" | "level3",
  input: string,
  flags: { remove?: string; "tool-choice"?: string; system?: string },
  cwd: string,
): Promise<{ text: string; extra: Record<string, unknown> }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch (error) {
    throw new Error(`the catalog is not JSON: ${(error as Error).message}`);
  }
  const tools = (Array.isArray(parsed) ? parsed : (parsed as { tools?: unknown } | null)?.tools) as CatalogTool[] | undefined;
  if (!Array.isArray(tools)) throw new Error("the catalog must be a tools array or an object with a tools array");
  if (mode === "level1") return { text: JSON.stringify(dispatchLevel1(tools)), extra: { method: "dispatcher-level-1", lossless: false } };
  if (mode === "level3") {
    const dispatcher = dispatchLevel3(tools);
    // Every schema stays reachable through the lookup tool, so nothing is lost to the model.
    return { text: JSON.stringify({ tools: dispatcher.tools, system: dispatcher.system }), extra: { method: "dispatcher-level-3", lossless: true } };
  }
  if (flags.remove === undefined) throw new Error("--mode filter needs --remove a,b,...");
  const systemPrompt = flags.system === undefined ? undefined : await readFile(resolvePath(cwd, flags.system), "utf8");
  const result = filterTools(tools, {
    remove: flags.remove.split(",").filter((entry) => entry.length > 0),
    toolChoice: flags["tool-choice"],
    systemPrompt,
  });
  return { text: JSON.stringify(result.tools), extra: { method: "filter", lossless: false, removed: result.removed, refused: result.refused } };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

async function readAll(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}
