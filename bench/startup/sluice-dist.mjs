// The installed `sluice` command's path, from this repository: the CLI's compiled
// dist/main.js on plain node (packages/cli/bin/sluice.mjs would pick the TypeScript
// sources here, because they exist beside it).
import { main } from "../../packages/cli/dist/main.js";

process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
