import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { reduceDescriptions, stripAnnotationBytes, stripAnnotations } from "../src/compaction/index.ts";
import { determinismCatalogs, printCompactions } from "./compaction-fixtures/print-compactions.ts";
import { LONG } from "../../../test/support/tier.ts";

const run = promisify(execFile);
const child = fileURLToPath(new URL("./compaction-fixtures/print-compactions.ts", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

describe("compaction output is byte-identical for identical input", () => {
  // Two processes prove "across processes": in the quick tier this worker (whose memo other
  // files may have filled) and one child; the long tier adds four more children.
  it(`in this process and across ${LONG ? 5 : 1} child process${LONG ? "es" : ""}`, async () => {
    const here = printCompactions();
    const outputs = await Promise.all(
      Array.from({ length: LONG ? 5 : 1 }, () => run(process.execPath, ["--import", "tsx", child], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 }).then((r) => r.stdout)),
    );
    expect(here.split("\n").filter(Boolean)).toHaveLength(6);
    for (const output of outputs) expect(output).toBe(here);
  });

  // 400 calls in the long tier, 100 in the quick one.
  it("across repeated calls in one process (memo bypassed)", () => {
    // A caller-supplied counter disables the SHA-256 memo, so each call really recomputes.
    const options = { tokenCounter: (text: string): number => text.length };
    const [fixture, pack] = determinismCatalogs();
    for (const catalog of [fixture!, pack!]) {
      for (const transform of [stripAnnotations, stripAnnotationBytes, reduceDescriptions]) {
        const first = transform(catalog, options).text;
        if (catalog === pack) expect(first).not.toBe(catalog);
        for (let call = 1; call < (LONG ? 400 : 100); call++) {
          if (transform(catalog, options).text !== first) expect.fail(`${transform.name} differed on call ${call}`);
        }
      }
    }
  });
});
