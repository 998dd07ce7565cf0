import { readFileSync } from "node:fs";
import { loadDocument } from "./load-document.ts";

/**
 * A file an external `$ref` was mapped to (`externalRefs`), parsed as the main document is
 * (JSON or YAML): what the shared resolver (@sluice/schema-convert's RefResolver) is given to
 * read one with. Only mapped files are read; nothing is fetched.
 */
export function loadReferencedFile(file: string): unknown {
  return loadDocument(readFileSync(file), file);
}
