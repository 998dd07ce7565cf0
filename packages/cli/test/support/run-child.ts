import { spawn } from "node:child_process";

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `node <args>` as a child process, awaited without blocking the test worker (spawnSync
 * would stall vitest's own messages while a slow command runs).
 */
export function runChild(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout: number }): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeout });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
