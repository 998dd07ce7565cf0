/**
 * bin/typescript-esm-hooks.mjs takes a pack's generated data module (src/pack-data.gen.ts,
 * plain JavaScript) from tsx: Node gets a stub whose tables bin/pack-data-reader.mjs reads
 * from the file, so neither tsx nor V8's compiler goes through its megabytes; any other
 * file, and a data module whose marker line is gone (edited by hand), goes on to tsx; a
 * tools.gen.ts in the generated form reaches Node with its type annotations taken off.
 * Checked on the hook itself, and in bare node processes on committed packs: loaded as the
 * CLI loads them (tsx and the hook) and by tsx alone (V8 compiles the real module, the
 * oracle), the same tables, tools and egress map come out.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { sweep } from "../../../test/support/tier.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const HOOKS = new URL("../bin/typescript-esm-hooks.mjs", import.meta.url).href;
const STRIPE_SRC = join(ROOT, "packs/stripe/src");
const DATA = join(STRIPE_SRC, "pack-data.gen.ts");
const MARKER = "// Plain JavaScript (no TypeScript syntax): the sluice CLI loads this file without a TypeScript transform.";

type Loaded = { format?: string; source?: unknown; shortCircuit?: boolean };
type LoadHook = (url: string, context: object, next: (url: string, context: object) => Promise<Loaded>) => Promise<Loaded>;

/** The hook's answer for `file`, and whether it handed the file on to the next loader (tsx). */
async function loadThroughHook(file: string): Promise<{ result: Loaded; passedOn: boolean }> {
  const { load } = (await import(HOOKS)) as { load: LoadHook };
  let passedOn = false;
  const result = await load(pathToFileURL(file).href, { format: "module" }, async () => {
    passedOn = true;
    return { format: "module", source: "transformed by the next loader" };
  });
  return { result, passedOn };
}

/**
 * `pack` (a committed pack's name, or a src/ directory) loaded in a bare node process: as the CLI loads it (`cli`: tsx and the hook) or by
 * tsx alone (`tsx`: V8 compiles the data module itself). Digests of the data module's tables
 * and of every tool as sent; counts; and whether the data module and tools.gen.ts carry a
 * source map (tsx maps what it transforms; the hook's answers are not).
 */
function loaded(pack: string, mode: "cli" | "tsx"): Record<string, unknown> {
  const src = pathToFileURL(isAbsolute(pack) ? pack : join(ROOT, "packs", pack, "src")).href;
  const script = `
    import { createHash } from "node:crypto";
    import { findSourceMap, register } from "node:module";
    (await import("tsx/esm/api")).register();
    if (process.argv[1] === "cli") register(${JSON.stringify(HOOKS)});
    const { allTools } = await import(${JSON.stringify(`${src}/index.ts`)});
    const data = await import(${JSON.stringify(`${src}/pack-data.gen.ts`)});
    const { egressMap, formatEgressMap } = await import("@sluice/core");
    const digest = (value) => createHash("sha256").update(JSON.stringify(value)).digest("hex");
    process.stdout.write(JSON.stringify({
      tables: digest([data.toolTexts, data.defTexts, data.withheldTexts]),
      sizes: [data.toolTexts.length, data.defTexts.length, data.withheldTexts.length],
      tools: digest(allTools.map((tool) => [tool.name, tool.description, tool.inputSchema])),
      egressMap: digest(formatEgressMap(egressMap(allTools))),
      count: allTools.length,
      dataMapped: findSourceMap(${JSON.stringify(`${src}/pack-data.gen.ts`)}) !== undefined,
      toolsMapped: findSourceMap(${JSON.stringify(`${src}/tools.gen.ts`)}) !== undefined,
    }));
  `;
  const run = spawnSync(process.execPath, ["--conditions=@sluice/source", "--input-type=module", "-e", script, mode], { cwd: ROOT, encoding: "utf8", timeout: 120_000, env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "" } });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe("the data module hook", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-esm-hooks-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const generated = readFileSync(DATA, "utf8");

  it("serves a generated pack-data.gen.ts as a stub that reads its tables, an ES module, without the next loader", async () => {
    expect(generated).toContain(`\n${MARKER}\n`);
    const { result, passedOn } = await loadThroughHook(DATA);
    expect(passedOn).toBe(false);
    expect(result.format).toBe("module");
    expect(result.shortCircuit).toBe(true);
    expect(result.source).toBe(
      `import { readPackData } from ${JSON.stringify(new URL("../bin/pack-data-reader.mjs", import.meta.url).href)};\n` +
        `const tables = readPackData(import.meta.url) ?? (await import(import.meta.url + (import.meta.url.includes("?") ? "&" : "?") + "sluice-as-written"));\n` +
        "export const { toolTexts, defTexts, withheldTexts } = tables;\n",
    );
  });

  it.each([
    ["its marker line edited away (a hand-edited file may hold TypeScript)", "pack-data.gen.ts", generated.replace(MARKER, "// edited by hand")],
    ["the marker without the generated header above it", "pack-data.gen.ts", `${MARKER}\nexport const toolTexts: string[] = [];\n`],
    ["the marker past the file's first 4 KiB", "pack-data.gen.ts", `// @generated by x\n${"//\n".repeat(2000)}${MARKER}\n`],
    ["Windows line ends (a checkout with core.autocrlf), which the reader's layout does not have", "pack-data.gen.ts", generated.replaceAll("\n", "\r\n")],
    ["the same bytes under another name", "runtime.gen.ts", generated],
    ["the same bytes as a .mts", "pack-data.gen.mts", generated],
  ])("hands a file on to tsx: %s", async (_name, fileName, text) => {
    const sub = mkdtempSync(join(dir, "case-"));
    const file = join(sub, fileName);
    writeFileSync(file, text);
    const { result, passedOn } = await loadThroughHook(file);
    expect(passedOn).toBe(true);
    expect(result.source).toBe("transformed by the next loader");
  });


  // gdocs: all three tables filled; Stripe (long tier: four processes are most of this file's
  // CPU; test/pack-data-reader.test.ts reads empty tables in every position quickly): no
  // definitions and no withheld members, empty tables in the middle and at the end.
  it.each(
    sweep(
      [
        ["stripe", 421],
        ["gdocs", 6],
      ] as const,
      ([pack]) => pack === "gdocs",
    ),
  )("in node processes, %s: the CLI's load gives the tables, tools and egress map tsx alone gives, neither generated module mapped", (pack, count) => {
    const cli = loaded(pack, "cli");
    const tsx = loaded(pack, "tsx");
    expect(cli).toEqual({ ...tsx, dataMapped: false, toolsMapped: false });
    expect(tsx["dataMapped"]).toBe(true);
    expect(tsx["toolsMapped"]).toBe(true);
    expect(cli["count"]).toBe(count);
  });
});

describe("a data module edited by hand, its marker kept", () => {
  // The reader does not answer for anything but the generated layout, and the stub then imports
  // the file as written (through tsx): the CLI must see the tool a hand edit adds, as the
  // pack's own program does, or its egress map and check would hide what the model can send.
  it("loads as written: the CLI sees the same tools as tsx alone, the added one included", () => {
    const copy = mkdtempSync(join(ROOT, "packs/gdocs/.edited-"));
    try {
      cpSync(join(ROOT, "packs/gdocs/src"), join(copy, "src"), { recursive: true });
      const file = join(copy, "src/pack-data.gen.ts");
      const text = readFileSync(file, "utf8");
      expect(text).toContain(`\n${MARKER}\n`);
      writeFileSync(file, `${text}toolTexts.push(toolTexts[0].replace('"name":"', '"name":"added_by_hand_'));\n`);
      const cli = loaded(join(copy, "src"), "cli");
      const tsx = loaded(join(copy, "src"), "tsx");
      // The committed pack has 6; tsx alone (the oracle) sees the added tool.
      expect(tsx["count"]).toBeGreaterThan(6);
      expect(cli).toEqual({ ...tsx, dataMapped: false, toolsMapped: false });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
