import { readFileSync } from "node:fs";
import type { GeneratorInfo } from "./header.ts";

/** Name and version read from a generator's own package.json (pass `new URL("../package.json", import.meta.url)`). */
export function generatorInfoFrom(packageJson: URL): GeneratorInfo {
  const { name, version } = JSON.parse(readFileSync(packageJson, "utf8")) as { name: string; version: string };
  return { name, version };
}
