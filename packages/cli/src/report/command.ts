import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { Encoding } from "@sluice/core/tokens";
import { parseCommand, stringOption, usageError } from "../args.ts";
import { loadTools } from "../load-tools.ts";
import type { Io } from "../io.ts";
import { progressOn } from "../progress.ts";
import { buildReport } from "./build-report.ts";

const DEFAULT_OUT = "sluice-report.html";

/**
 * `sluice report <pack> [--out FILE] [--json] [--tool NAME] [--budget N] [--depth N]`:
 * the cost report as one self-contained HTML page (default), or its data as JSON.
 */
export async function reportCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("report", args);
  const [spec] = positionals;
  if (spec === undefined || positionals.length > 1) throw usageError("report", "report takes one <pack|module>");
  const budget = positiveInteger(values.budget, "--budget");
  const depth = positiveInteger(values.depth, "--depth");
  const encoding = encodingOf(values.encoding);
  const tool = stringOption(values, "tool");
  const out = stringOption(values, "out");
  // Kubernetes' report takes seconds: a terminal sees the step under way (progress.ts).
  const progress = progressOn(io.stderr, { quiet: values.json === true });
  const step = (label: string) => progress.step(`report ${spec}: ${label}`);
  let data: Awaited<ReturnType<typeof buildReport>>;
  let html = "";
  try {
    step("loading the pack");
    const tools = await loadTools(spec, io.cwd);
    data = await buildReport(tools, {
      pack: spec,
      encoding,
      step,
      ...(budget === undefined ? {} : { budget }),
      ...(tool === undefined ? {} : { tool }),
      ...(depth === undefined ? {} : { depth }),
      // The served set, as check counts it, unless the twins are asked for.
      ...(values["include-full"] === true ? {} : { served: true }),
    });
    if (values.json !== true) {
      step("writing the page");
      // Loaded only for the page: it reads the page's assets and the layout library.
      const { renderReportHtml } = await import("./render-html.ts");
      html = renderReportHtml(data);
    }
  } finally {
    progress.clear();
  }
  if (values.json === true) {
    const text = JSON.stringify(data, null, 2) + "\n";
    if (out === undefined) io.stdout.write(text);
    else await writeOut(resolve(io.cwd, out), text);
    return 0;
  }
  const name = out ?? DEFAULT_OUT;
  await writeOut(resolve(io.cwd, name), html);
  const top = data.tools
    .slice(0, 3)
    .map((t) => `${t.name} ${t.tokens}`)
    .join(", ");
  io.stdout.write(`${name}: ${Buffer.byteLength(html)} bytes, ${data.totals.tools} tools, ${data.totals.tokens} tokens; fattest: ${top}\n`);
  if (data.budget !== undefined) {
    const unreachable = data.suggestions.filter((s) => s.error !== undefined).length;
    io.stdout.write(`budget ${data.budget}: ${data.suggestions.length} tools above it, ${data.suggestions.length - unreachable} with a projection that fits${unreachable > 0 ? `, ${unreachable} whose floor is above it` : ""}\n`);
  }
  return 0;
}

async function writeOut(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

function positiveInteger(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usageError("report", `${flag} takes a positive integer, got "${String(value)}"`);
  return n;
}

function encodingOf(value: unknown): Encoding {
  if (value === undefined) return "o200k_base";
  if (value !== "o200k_base" && value !== "cl100k_base") throw usageError("report", "--encoding must be o200k_base or cl100k_base");
  return value;
}
