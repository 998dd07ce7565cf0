/**
 * Writes or checks the committed egress map of every workspace pack
 * (`packs/<name>/egress_map.txt`), through the same code path as `sluice egress`: the
 * check compares what the model can see and send (checkEgressMap), and names widenings.
 *   pnpm egress:check            fail on any difference, naming widenings
 *   pnpm egress:write            rewrite the maps after reviewing a change
 */
import { fileURLToPath } from "node:url";
import { main } from "../packages/cli/src/main.ts";
import { workspacePacks } from "../packages/cli/src/load-tools.ts";

const write = process.argv.includes("--write");
const only = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const io = { stdout: process.stdout, stderr: process.stderr, cwd: fileURLToPath(new URL("..", import.meta.url)) };
let failed = 0;
for (const pack of only.length > 0 ? only : workspacePacks()) {
  const file = `packs/${pack}/egress_map.txt`;
  const code = await main(["egress", pack, write ? "--out" : "--check", file], io);
  if (code !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
