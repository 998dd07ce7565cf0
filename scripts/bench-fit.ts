/**
 * fit() beside a naive full dereference, on the cyclic Linear filter tool and a Stripe
 * tool: time, output size and peak memory, each run in its own child process stopped at
 * a time cap and a heap cap. Writes bench/FIT.md.
 *
 *   pnpm bench:fit            (node --import tsx scripts/bench-fit.ts)
 *
 * The parent loads no pack (so that a child's peak RSS is its own, not inherited from a
 * large parent at fork); each child loads one pack, measures one operation, and prints
 * one JSON line.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

const TIME_CAP_MS = 30_000;
const HEAP_CAP_MB = 1024;
/** Serializing a circular object never ends; count its expansion up to this many bytes. */
const SERIALIZE_CAP_BYTES = 64 * 1024 * 1024;
const SELF = fileURLToPath(import.meta.url);

interface Case {
  id: string;
  pack: "linear" | "stripe";
  tool: string;
}
const CASES: Case[] = [
  { id: "linear", pack: "linear", tool: "issues_list_full" },
  { id: "stripe", pack: "stripe", tool: "post_issuing_cardholders_full" },
];

type Method = "fit-gemini-refuse" | "fit-gemini" | "fit-fireworks" | "ref-parser";
const METHODS: Array<{ method: Method; label: string }> = [
  { method: "fit-gemini-refuse", label: "sluice fit, gemini (no $ref: inline), unroll 2" },
  { method: "fit-gemini", label: "sluice fit, gemini (no $ref: inline), unroll 2, allowLossy" },
  { method: "fit-fireworks", label: "sluice fit, fireworks ($ref kept, depth 50), unroll 2" },
  { method: "ref-parser", label: "@apidevtools/json-schema-ref-parser dereference" },
];

interface ChildResult {
  ms: number;
  outputBytes: number | null;
  outputNote: string;
  rssBeforeKiB: number;
  maxRssKiB: number;
  tokens?: number;
}

// ----------------------------------------------------------------------------- child

/** Bytes of the JSON text of `value` read as a tree (shared and circular objects expanded), stopping past `cap`. */
function expandedJsonBytes(value: unknown, cap: number): { bytes: number; capped: boolean } {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") {
      bytes += JSON.stringify(node ?? null).length;
    } else if (Array.isArray(node)) {
      bytes += 2 + Math.max(0, node.length - 1);
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
    } else {
      const keys = Object.keys(node);
      bytes += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        bytes += JSON.stringify(key).length + 1;
        stack.push((node as Record<string, unknown>)[key]);
      }
    }
    if (bytes > cap) return { bytes, capped: true };
  }
  return { bytes, capped: false };
}

async function child(caseId: string, method: Method): Promise<void> {
  const spec = CASES.find((c) => c.id === caseId)!;
  const pack = (spec.pack === "linear" ? await import("@sluice/pack-linear") : await import("@sluice/pack-stripe")) as { allTools: Array<{ name: string; inputSchema: object }> };
  const tool = pack.allTools.find((t) => t.name === spec.tool)!; // the cases are *_full twins
  const source = tool.inputSchema; // built before the clock starts, for both methods
  const { canonicalJson, cloneJson } = await import("@sluice/schema");
  const rssBeforeKiB = Math.round(process.memoryUsage().rss / 1024);
  let result: Omit<ChildResult, "rssBeforeKiB" | "maxRssKiB">;
  let peakKiB: number | undefined;
  if (method === "ref-parser") {
    const { default: $RefParser } = await import("@apidevtools/json-schema-ref-parser");
    const input = cloneJson(source) as Record<string, unknown>;
    const started = performance.now();
    const parser = new $RefParser();
    const dereferenced = await parser.dereference(input);
    const derefMs = performance.now() - started;
    const size = expandedJsonBytes(dereferenced, SERIALIZE_CAP_BYTES);
    const ms = performance.now() - started;
    const circular = parser.$refs.circular;
    result = {
      ms,
      outputBytes: size.capped ? null : size.bytes,
      outputNote:
        `dereference ${derefMs.toFixed(0)} ms, then ` +
        (size.capped
          ? `a circular object (\`$refs.circular\` ${String(circular)}): its JSON text passed the ${SERIALIZE_CAP_BYTES / 1024 / 1024} MiB cap after ${(ms - derefMs).toFixed(0)} ms of counting (counted, not built; it has no end)`
          : `JSON text counted in ${(ms - derefMs).toFixed(0)} ms${circular ? ", circular" : ""}`),
    };
  } else {
    const { fit, profile } = await import("../packages/catalog/src/profiles/index.ts");
    const { schemaTokens } = await import("@sluice/core/tokens");
    const id = method === "fit-fireworks" ? "fireworks" : "gemini";
    const started = performance.now();
    try {
      const fitted = fit([tool as never], profile(id), { unroll: 2, allowLossy: method === "fit-gemini" });
      const text = canonicalJson(fitted.tools[0]!.inputSchema);
      const ms = performance.now() - started;
      peakKiB = process.resourceUsage().maxRSS; // before the report's own token count loads the tokenizer
      const unroll = fitted.changes.find((c) => c.action === "unroll-cycle");
      result = {
        ms,
        outputBytes: text.length,
        tokens: schemaTokens(fitted.tools[0]!),
        outputNote: unroll
          ? unroll.message.replace(/^Unrolled (\d+) cycles? \(.*?\) to depth/, "unrolled $1 cycles to depth").replace(/ Tokens \d+ -> \d+\./, "") + (text.includes("$ref") ? "" : "; no $ref left")
          : fitted.changes.map((c) => `${c.kind} ${c.action}`).join(", ") || "no change needed",
      };
    } catch (error) {
      const e = error as { code?: string; message?: string };
      result = { ms: performance.now() - started, outputBytes: null, outputNote: `refused: ${e.code ?? "?"}: ${(e.message ?? String(error)).split("\n")[0]!.replace(/^[^:]*: /, "").split(".")[0]!.replace(/:$/, "")}` };
    }
  }
  const maxRssKiB = peakKiB ?? process.resourceUsage().maxRSS;
  process.stdout.write(JSON.stringify({ ...result, rssBeforeKiB, maxRssKiB }) + "\n");
}

// ----------------------------------------------------------------------------- parent

function runChild(caseId: string, method: Method): ChildResult | { failed: string } {
  const run = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_CAP_MB}`, "--import", "tsx", SELF, "--child", caseId, method], {
    encoding: "utf8",
    timeout: TIME_CAP_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (run.error && (run.error as NodeJS.ErrnoException).code === "ETIMEDOUT") return { failed: `stopped at the ${TIME_CAP_MS / 1000} s time cap` };
  if (run.status !== 0) {
    const oom = /heap out of memory|Allocation failed/i.test(run.stderr);
    return { failed: oom ? `out of memory at the ${HEAP_CAP_MB} MB heap cap` : `exit ${run.status ?? run.signal}: ${run.stderr.trim().split("\n").pop()}` };
  }
  return JSON.parse(run.stdout.trim().split("\n").pop()!) as ChildResult;
}

function mib(kib: number): string {
  return (kib / 1024).toFixed(0);
}

function main(): void {
  const rows: string[] = [];
  for (const spec of CASES) {
    for (const { method, label } of METHODS) {
      process.stderr.write(`${spec.tool} / ${method} ...\n`);
      const r = runChild(spec.id, method);
      if ("failed" in r) rows.push(`| ${spec.tool} | ${label} | ${r.failed} | - | - | - | - |`);
      else {
        rows.push(
          `| ${spec.tool} | ${label} | ${r.ms.toFixed(0)} | ${r.outputBytes === null ? "-" : r.outputBytes.toLocaleString("en-US")} | ${r.tokens?.toLocaleString("en-US") ?? "-"} | ${mib(r.maxRssKiB)} (${mib(r.rssBeforeKiB)} before) | ${r.outputNote} |`,
        );
      }
    }
  }
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  const text = `# fit beside a naive full dereference

Generated by \`pnpm bench:fit\` (\`node --import tsx scripts/bench-fit.ts\`) on ${new Date().toISOString().slice(0, 10)},
Node ${process.version}, ${cpu} (${cpus().length} threads). Do not edit by hand; rerun the command.

Each cell is one child process (\`node --max-old-space-size=${HEAP_CAP_MB} --import tsx scripts/bench-fit.ts --child ...\`),
stopped at ${TIME_CAP_MS / 1000} s. The tool's input schema is built before the clock starts; **ms** covers the operation
and producing its output text (for fit: the canonical JSON; for the dereference: counting the JSON its object
would serialize to, capped at ${SERIALIZE_CAP_BYTES / 1024 / 1024} MiB because a circular object has no end).
**Peak RSS** is \`process.resourceUsage().maxRSS\` in the child (MiB), with the RSS just before the operation
(pack loaded) in brackets; the parent loads no pack, so the figure is the child's own. Tokens: o200k_base,
tool definition as sent.

| tool | method | ms | output bytes | tokens | peak RSS MiB | output |
|---|---|---:|---:|---:|---:|---|
${rows.join("\n")}

Reading it: on the recursive Linear filter (a 47-type cycle), the dereference finishes quickly because it
links the cycle into a circular JavaScript object, which no provider can receive: its JSON text has no end.
fit refuses (priced estimate, nothing built) when inlining a depth-2 unroll would pass the inline budget (4x
the original size); with allowLossy it lowers the depth until the inlined text fits; where the provider
resolves refs itself (Fireworks) depth 2 is kept. The Stripe tool has no $defs: every method is quick.
`;
  writeFileSync(new URL("../bench/FIT.md", import.meta.url), text);
  process.stderr.write("wrote bench/FIT.md\n");
}

const args = process.argv.slice(2);
if (args[0] === "--child") await child(args[1]!, args[2] as Method);
else main();
