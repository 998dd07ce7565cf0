import { isSchemaObject, type JsonSchemaObject } from "@sluice/schema";

/**
 * Top-level argument names a model commonly gets slightly wrong, mapped back to the
 * declared name when exactly one declared argument fits:
 * - spelling: `teamId`, `team_id`, `team-id`, `TeamID` are one name (case, `_` and `-` ignored);
 * - `id` for the one `<thing>_id` / `<thing>Id` argument (or the one required such argument);
 * - `<thing>_id` for a tool whose argument is plainly `id`.
 * A key the schema declares is never renamed, and a rename never overwrites a supplied argument.
 */
export interface AliasResult {
  readonly args: Record<string, unknown>;
  readonly renamed: readonly (readonly [from: string, to: string])[];
}

function squash(name: string): string {
  return name.replace(/[_-]/g, "").toLowerCase();
}

/** Argument names the schema declares at the root, with the required ones. */
export function declaredArguments(inputSchema: JsonSchemaObject): { names: string[]; required: Set<string> } {
  const names = isSchemaObject(inputSchema.properties) ? Object.keys(inputSchema.properties) : [];
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.filter((r): r is string => typeof r === "string") : []);
  return { names, required };
}

function aliasTarget(key: string, names: readonly string[], required: ReadonlySet<string>): string | undefined {
  const squashed = squash(key);
  const spelled = names.filter((name) => squash(name) === squashed);
  if (spelled.length === 1) return spelled[0];
  if (spelled.length > 1) return undefined;
  if (squashed === "id") {
    const ids = names.filter((name) => squash(name).endsWith("id") && squash(name) !== "id" && /(?:_id|Id|ID|-id)$/.test(name));
    if (ids.length === 1) return ids[0];
    const requiredIds = ids.filter((name) => required.has(name));
    return requiredIds.length === 1 ? requiredIds[0] : undefined;
  }
  if (/(?:_id|Id|ID|-id)$/.test(key) && names.includes("id")) return "id";
  return undefined;
}

export function aliasArguments(args: Record<string, unknown>, inputSchema: JsonSchemaObject): AliasResult {
  const { names, required } = declaredArguments(inputSchema);
  const declared = new Set(names);
  const targets = new Map<string, string[]>();
  for (const key of Object.keys(args)) {
    if (declared.has(key)) continue;
    const target = aliasTarget(key, names, required);
    if (target === undefined || Object.hasOwn(args, target)) continue;
    targets.set(target, [...(targets.get(target) ?? []), key]);
  }
  const renames = new Map<string, string>();
  for (const [target, keys] of targets) {
    if (keys.length === 1) renames.set(keys[0]!, target); // two keys for one argument: leave both for the validator to report
  }
  if (renames.size === 0) return { args, renamed: [] };
  // fromEntries defines own properties, so an argument named __proto__ stays an argument.
  const out = Object.fromEntries(Object.entries(args).map(([key, value]) => [renames.get(key) ?? key, value])) as Record<string, unknown>;
  return { args: out, renamed: [...renames] };
}
