import { Tool, type DeriveOptions } from "../tool.ts";
import type { Binding } from "../tool-ir.ts";

/**
 * A curated projection of a pack tool, computed on first use (so importing a pack
 * projects nothing). `options` may be a function of the tool, for projections that
 * depend on its schema. The name defaults to the tool's own: a curated tool replaces
 * the generated one in the pack (see `withCurated`).
 */
export function curate<A extends object>(tool: Tool<A>, options: DeriveOptions<A> | ((tool: Tool<A>) => DeriveOptions<A>)): Tool<A> {
  const name = typeof options === "function" ? tool.name : (options.name ?? tool.name);
  return Tool.deferred<A>(
    name,
    () => {
      const resolved = typeof options === "function" ? options(tool) : options;
      return tool.derived({ ...resolved, name });
    },
    tool as Tool<object>,
  );
}

/** The argument names a binding can send (no schema is built). */
export function bindingArguments(binding: Binding): string[] {
  if (binding.kind === "graphql") return Object.keys(binding.variables);
  if (binding.kind === "mcp") return [...binding.arguments];
  const body = binding.body;
  return [
    ...binding.parameters.filter((p) => p.credential === undefined).map((p) => p.arg),
    ...Object.keys(body?.fields ?? {}).filter((arg) => body?.credentialFields?.[arg] === undefined),
    ...(body?.wholeBodyArg === undefined ? [] : [body.wholeBodyArg]),
  ];
}

/**
 * The same kind of curation over many tools: `choose` sees each tool's argument names
 * (read from its binding, so no schema is built) and returns the projection for it, or
 * undefined to leave the tool as generated. Tools named in `except` (curated by hand)
 * are left out. Used for pack-wide rules such as "the credential is never a model
 * argument".
 */
export function curateEach(
  tools: readonly Tool<object>[],
  choose: (args: readonly string[], tool: Tool<object>) => DeriveOptions<object> | undefined,
  options: { except?: readonly Tool<object>[] } = {},
): Tool<object>[] {
  const handled = new Set((options.except ?? []).map((tool) => tool.name));
  return tools.flatMap((tool) => {
    if (handled.has(tool.name)) return [];
    const projection = choose(bindingArguments(tool.binding), tool);
    return projection === undefined ? [] : [curate(tool, projection)];
  });
}

/** A `curateEach` chooser that withholds whichever of `names` a tool takes. */
export function withoutArguments(names: readonly string[]): (args: readonly string[]) => DeriveOptions<object> | undefined {
  return (args) => {
    const present = names.filter((name) => args.includes(name));
    return present.length > 0 ? { drop: present } : undefined;
  };
}
