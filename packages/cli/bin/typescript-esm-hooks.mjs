// A module.register hook the CLI adds beside tsx. A .ts or .mts file of the user's (not
// under node_modules) is loaded as an ES module, as its import/export syntax asks, even
// in a package whose package.json says "type": "commonjs" (`npm init` writes that) or
// says nothing. Loaded as CommonJS instead, its `import "@sluice/core"` becomes a
// require() of an ES-only package and fails. A CommonJS TypeScript file is named .cts.
import { sep } from "node:path";
import { fileURLToPath } from "node:url";

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.format === "module" || !result.url.startsWith("file:") || !/\.m?ts$/.test(result.url)) return result;
  if (fileURLToPath(result.url).includes(`${sep}node_modules${sep}`)) return result;
  return { ...result, format: "module" };
}
