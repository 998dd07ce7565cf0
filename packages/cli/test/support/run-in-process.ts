import { Readable } from "node:stream";
import { main } from "../../src/main.ts";
import type { ChildResult } from "./run-child.ts";

/**
 * `sluice <args>` run by the CLI's own `main` in the test worker, with stdout, stderr and
 * the exit code captured: what the bin does after it has loaded, without a node child that
 * loads tsx and every source again (one to two seconds each, most of what the CLI tests cost).
 *
 * Only for commands whose modules do not change during the test file: the worker keeps every
 * module it has imported (vitest caches the transformed file by path), so a pack rewritten
 * after it was loaded here would be loaded stale. A command that loads a pack the file
 * rewrites (narrow, then egress) runs as a child (run-child.ts); so do the bin's own
 * behaviours (static --help and --version, signals, pipes).
 */
export async function runInProcess(args: readonly string[], options: { cwd: string; env?: Record<string, string | undefined>; stdin?: string }): Promise<ChildResult> {
  let stdout = "";
  let stderr = "";
  const saved = new Map<string, string | undefined>();
  // The variables a child would get; restored after, since the worker runs the next test.
  for (const [key, value] of Object.entries(options.env ?? {})) {
    saved.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    const code = await main(args, {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      cwd: options.cwd,
      ...(options.stdin === undefined ? {} : { stdin: Readable.from([options.stdin]) }),
    } as Parameters<typeof main>[1]);
    return { code, stdout, stderr };
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
