/**
 * `pnpm test:tiers`: every test file and the tiers that run it (quick: the README's test
 * command; long: `pnpm test:long`). Exits 1 when a file runs in neither, so a file that a
 * config excludes from the quick tier cannot silently stop running. test-long.ts runs it first.
 */
import { pathToFileURL } from "node:url";
import { allTestFiles, longTierFiles, quickTierFiles } from "./tier-files.ts";

export async function tierTable(): Promise<{ lines: string[]; orphans: string[] }> {
  const quick = new Set(await quickTierFiles());
  const long = new Set(longTierFiles());
  const lines: string[] = [];
  const orphans: string[] = [];
  for (const file of allTestFiles()) {
    const tiers = [quick.has(file) ? "quick" : "", long.has(file) ? "long" : ""].filter(Boolean);
    if (tiers.length === 0) orphans.push(file);
    lines.push(`${(tiers.join("+") || "NONE").padEnd(10)} ${file}`);
  }
  // A config could name a file that is not on disk under the folders walked here.
  for (const file of quick) if (!lines.some((line) => line.endsWith(` ${file}`))) lines.push(`${"quick".padEnd(10)} ${file}`);
  return { lines, orphans };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { lines, orphans } = await tierTable();
  const quiet = process.argv.includes("--quiet");
  if (!quiet) process.stdout.write(lines.join("\n") + "\n");
  const counts = (tier: string) => lines.filter((line) => line.startsWith(tier)).length;
  process.stderr.write(`test:tiers: ${lines.length} files: ${counts("quick+long")} in both tiers, ${counts("quick ")} quick only, ${counts("long ")} long only, ${orphans.length} in neither\n`);
  if (orphans.length > 0) {
    process.stderr.write(`test:tiers: these files run in no tier:\n${orphans.map((file) => `  ${file}`).join("\n")}\n`);
    process.exit(1);
  }
  process.exit(0);
}
