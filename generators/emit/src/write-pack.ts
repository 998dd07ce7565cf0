import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { EmittedFile } from "./pack-sources.ts";

/**
 * The one place that writes generated files: emitters stay pure. Given a lazy iterable
 * (`emitPackFiles`), each text is built, written and released before the next.
 */
export async function writePack(outDir: string, files: Iterable<EmittedFile>): Promise<string[]> {
  const written: string[] = [];
  for (const file of files) {
    const target = join(outDir, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.text, "utf8");
    written.push(target);
  }
  return written;
}
