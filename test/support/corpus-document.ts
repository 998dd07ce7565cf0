/**
 * A vendored spec parsed once per test worker. With `isolate: false` a worker keeps this
 * module for every file it runs, and several files parse the same large documents (Asana,
 * Jira, Stripe, GitHub REST, DigitalOcean: 0.1-1.4 s each, YAML the most), so the second file
 * of a worker that asks gets the first one's parse. Keyed by the bytes, not the path: a
 * pack's spec/ copy (packs/stripe/spec/spec3.json) is the corpus file (stripe/spec3.json)
 * byte for byte. The document is deeply frozen: the
 * generators only read it, and a test that wrote to it would change what every later file
 * sees, so a write throws instead.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadDocument } from "@sluice/generator-openapi";

const documents = new Map<string, unknown>();

/** loadDocument of the file at `url` (a file: URL or an absolute path), `label` its name in messages. */
export function corpusDocument(url: URL | string, label: string): unknown {
  const bytes = readFileSync(typeof url === "string" ? url : fileURLToPath(url));
  const key = createHash("sha256").update(bytes).digest("hex");
  let document = documents.get(key);
  if (document === undefined) {
    document = deepFreeze(loadDocument(bytes, label));
    documents.set(key, document);
  }
  return document;
}

function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null || Object.isFrozen(node)) continue;
    Object.freeze(node);
    for (const child of Object.values(node)) stack.push(child);
  }
  return value;
}
