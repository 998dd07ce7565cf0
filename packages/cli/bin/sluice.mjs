#!/usr/bin/env node
// The `sluice` command. Runs the TypeScript sources through tsx, so packs and user
// modules written in TypeScript load without a build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
