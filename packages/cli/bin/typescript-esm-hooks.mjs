// A module.register hook the CLI adds beside tsx: a .ts file in no package that declares
// its "type" (a generated pack in a project without "type": "module", say) is loaded as
// an ES module, as its import/export syntax asks, instead of as CommonJS.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const declared = new Map();

function declaresType(dir) {
  if (declared.has(dir)) return declared.get(dir);
  const manifest = join(dir, "package.json");
  let answer;
  if (existsSync(manifest)) {
    try {
      answer = typeof JSON.parse(readFileSync(manifest, "utf8")).type === "string";
    } catch {
      answer = false;
    }
  } else {
    answer = dirname(dir) === dir ? false : declaresType(dirname(dir));
  }
  declared.set(dir, answer);
  return answer;
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.startsWith("file:") && result.url.endsWith(".ts") && result.format !== "module" && !declaresType(dirname(fileURLToPath(result.url)))) {
    return { ...result, format: "module" };
  }
  return result;
}
