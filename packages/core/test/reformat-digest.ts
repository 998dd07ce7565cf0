/**
 * One SHA-256 over what the reformatters make of three captures (a log, a hit list, a path
 * list) and of a JSON answer, stages included. reformat.test.ts compares the digest of its
 * worker with a child's that runs this file as a script: the same bytes from two processes.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { reformatText } from "../src/responses/reformat/reformat.ts";
import { enabledReformatters } from "../src/responses/reformat/reformat-choice.ts";

export function reformatDigest(): string {
  const dir = fileURLToPath(new URL("./fixtures/reformat/", import.meta.url));
  const hash = createHash("sha256");
  for (const name of readdirSync(dir).sort()) {
    if (!/^(vitest-tty|grep-rn-sdk|find-sdk)/.test(name)) continue;
    const out = reformatText(readFileSync(dir + name, "utf8"), enabledReformatters({ toon: true }));
    hash.update(name + "\0" + out.text + "\0" + JSON.stringify(out.stages) + "\0");
  }
  // A JSON answer: compact-json (with held JSON) and toon adopt.
  const records = Array.from({ length: 6 }, (_, i) => ({ id: i, name: "n" + i, ok: i % 2 === 0 }));
  const json = reformatText(JSON.stringify({ items: records, stdout: JSON.stringify({ total: 6 }, null, 2) }, null, 2), enabledReformatters({ toon: true }));
  hash.update(json.text + "\0" + JSON.stringify(json.stages));
  return hash.digest("hex");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(reformatDigest());
