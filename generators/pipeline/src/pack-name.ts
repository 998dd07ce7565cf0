/**
 * A pack's name becomes a package name (`sluice-pack-<name>`), a type namespace in the
 * scaffolded index.ts (`<PascalName>Types`), and environment variable names
 * (`<PACK>_TOKEN`): it must be all three. Lower-case words of letters and digits joined by
 * single dashes, starting with a letter (`9lives` would make `9livesTypes`, which does not
 * parse, and `9LIVES_TOKEN`, which no shell can set).
 */
export const PACK_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
export const PACK_NAME_MAX_LENGTH = 64;
const MAX_LENGTH = PACK_NAME_MAX_LENGTH;

/** Why `name` cannot name a pack, or undefined when it can. */
export function packNameProblem(name: string): string | undefined {
  if (PACK_NAME.test(name) && name.length <= MAX_LENGTH) return undefined;
  const shown = JSON.stringify(name);
  const why =
    name.length > MAX_LENGTH
      ? `is longer than ${MAX_LENGTH} characters`
      : /^[0-9]/.test(name)
        ? "starts with a digit (it names a TypeScript namespace and environment variables)"
        : "must be lower-case letters and digits in words joined by single dashes, starting with a letter";
  return `${shown} ${why}; try "${suggestPackName(name)}"`;
}

/** A valid pack name close to `name`: lower case, other characters as dashes, a leading digit prefixed. */
export function suggestPackName(name: string): string {
  let out = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_LENGTH - 4)
    .replace(/-+$/g, "");
  if (out === "") out = "pack";
  if (/^[0-9]/.test(out)) out = `api-${out}`;
  return out;
}
