import { parseArgs } from "node:util";
import type { Encoding } from "@sluice/core/tokens";
import { reduceDescriptions, stripAnnotationBytes, stripAnnotations, type CompactionResult } from "@sluice/catalog";

export interface CompactIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
  /** The catalog; `process.stdin` when absent. */
  stdin?: AsyncIterable<string | Uint8Array>;
}

const MODES = ["strip", "strip-bytes", "reduce"] as const;
type Mode = (typeof MODES)[number];
const ENCODINGS: readonly Encoding[] = ["o200k_base", "cl100k_base"];

export const COMPACT_USAGE = "usage: sluice compact --mode strip|strip-bytes|reduce [--encoding o200k_base|cl100k_base] < catalog.json";

/**
 * `sluice compact`: a catalog (JSON text) on stdin, the compacted catalog on stdout, and a
 * one-line JSON report on stderr (tokens before and after, ratio, method, lossless,
 * adopted). When a mode leaves the input untouched, stdout is the input byte for byte.
 * Exit 0 on success (adopted or not), 2 on a usage error.
 */
export async function runCompact(args: readonly string[], io: CompactIo): Promise<number> {
  let mode: Mode;
  let encoding: Encoding;
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { mode: { type: "string" }, encoding: { type: "string" } },
      allowPositionals: true,
    });
    if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
    if (values.mode === undefined || !(MODES as readonly string[]).includes(values.mode)) {
      throw new Error(values.mode === undefined ? "--mode is required" : `unknown mode "${values.mode}"`);
    }
    mode = values.mode as Mode;
    const requested = values.encoding ?? "o200k_base";
    if (!(ENCODINGS as readonly string[]).includes(requested)) throw new Error(`unknown encoding "${requested}"`);
    encoding = requested as Encoding;
  } catch (error) {
    io.stderr.write(`sluice compact: ${error instanceof Error ? error.message : String(error)}\n${COMPACT_USAGE}\n`);
    return 2;
  }

  const input = await readAll(io.stdin ?? process.stdin);
  const result: CompactionResult =
    mode === "strip" ? stripAnnotations(input, { encoding }) : mode === "strip-bytes" ? stripAnnotationBytes(input, { encoding }) : reduceDescriptions(input, { encoding });
  io.stdout.write(result.text);
  const { method, lossless, tokensBefore, tokensAfter, ratio, adopted, reason } = result.report;
  io.stderr.write(
    JSON.stringify({ method, lossless, encoding, tokensBefore, tokensAfter, ratio, adopted, ...(reason === undefined ? {} : { reason }) }) + "\n",
  );
  return 0;
}

async function readAll(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}
