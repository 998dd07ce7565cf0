/**
 * What never-widen costs, measured (issue 21, item 4):
 *
 * 1. Dropping a oneOf branch: tokens saved by removing the branch, against keeping the
 *    remaining branches and repeating the dropped one as a `not` (the exact schema),
 *    for every oneOf branch of the Discord fixture and of Stripe.
 * 2. The parent check behind every derived tool's call: the ancestor's Ajv compile (once
 *    per ancestor schema) and the per-call price, on Linear issues_list and Stripe's
 *    fattest tool, each narrowed by one drop.
 *
 * Run: node --conditions=@sluice/source --import tsx scripts/bench-never-widen.ts
 */
import { readFileSync } from "node:fs";
import { definePack, Tool, type JsonSchemaObject, type PackDefinition } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { schemaTokens } from "@sluice/core/tokens";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { collectGarbage } from "@sluice/schema";
import { tools as stripe } from "@sluice/pack-stripe";
import { tools as linear } from "@sluice/pack-linear";

const binding = { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } as const;
const tokensOf = (inputSchema: JsonSchemaObject) => schemaTokens(Tool.create({ name: "t", description: "d", inputSchema, binding }));

type Path = Array<string | number>;
function oneOfHolders(node: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(node)) node.forEach((child, i) => oneOfHolders(child, [...path, i], out));
  else if (typeof node === "object" && node !== null) {
    if (Array.isArray((node as JsonSchemaObject).oneOf)) out.push(path);
    for (const [key, child] of Object.entries(node)) oneOfHolders(child, [...path, key], out);
  }
  return out;
}
const at = (root: unknown, path: Path): JsonSchemaObject => path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root) as JsonSchemaObject;

function oneOfCosts(label: string, tools: readonly Tool<object>[], focus: string): void {
  let drops = 0;
  let savedPlain = 0;
  let savedNot = 0;
  let focusPlain = 0;
  let focusNot = 0;
  let focusDrops = 0;
  let largest = { saved: 0, where: "" };
  for (const tool of tools) {
    const schema = tool.inputSchema;
    const before = tokensOf(schema);
    for (const path of oneOfHolders(schema)) {
      const count = (at(schema, path).oneOf as unknown[]).length;
      for (let i = 0; i < count; i++) {
        const plain = structuredClone(schema) as JsonSchemaObject;
        const dropped = (at(plain, path).oneOf as unknown[]).splice(i, 1)[0];
        const exact = structuredClone(plain);
        const holder = at(exact, path);
        holder.allOf = [...((holder.allOf as unknown[] | undefined) ?? []), { not: dropped }];
        const a = before - tokensOf(collectGarbage(plain));
        const b = before - tokensOf(collectGarbage(exact));
        drops++;
        savedPlain += a;
        savedNot += b;
        if (tool.name === focus) {
          focusDrops++;
          focusPlain += a;
          focusNot += b;
          if (a > largest.saved) largest = { saved: a, where: `${path.join("/")}/oneOf/${i}` };
        }
      }
    }
  }
  console.log(`${label}: ${drops} oneOf branch drops over ${tools.length} tools; tokens saved: removed ${savedPlain}, removed + not ${savedNot}`);
  if (focusDrops > 0) {
    console.log(`  ${focus}: ${focusDrops} drops; saved: removed ${focusPlain}, removed + not ${focusNot}; largest ${largest.saved} tokens (${largest.where})`);
  }
}

/** CPU milliseconds of `fn` (user + system): the machine may be shared, so wall time would measure the neighbours. */
function cpuMs<T>(fn: () => T): { value: T; ms: number } {
  const start = process.cpuUsage();
  const value = fn();
  const used = process.cpuUsage(start);
  return { value, ms: (used.user + used.system) / 1000 };
}

async function parentCheckCost(label: string, child: Tool<object>, args: Record<string, unknown>): Promise<void> {
  const parent = child.derivedFrom!;
  const own = await withoutGuard("parentCheck", () => cpuMs(() => child.check(args)));
  const withParent = cpuMs(() => child.check(args)); // compiles the parent's schema once
  if (own.value.length > 0 || withParent.value.length > 0) throw new Error(`${label}: the sample call is refused: ${JSON.stringify([...own.value, ...withParent.value])}`);
  const rounds = 500;
  const perCall = () => cpuMs(() => {
    for (let i = 0; i < rounds; i++) child.check(args);
  }).ms * 1000 / rounds;
  const off = await withoutGuard("parentCheck", perCall);
  const on = perCall();
  console.log(
    `${label} (${schemaTokens(child)} tokens, parent ${parent.name} ${schemaTokens(parent)} tokens): first check ${own.ms.toFixed(0)} ms CPU; ` +
      `the parent's first check adds ${withParent.ms.toFixed(0)} ms (once per parent schema); per call ${off.toFixed(0)} us without the parent check, ${on.toFixed(0)} us with it`,
  );
}

const discordDoc = loadDocument(readFileSync(new URL("../test/fixtures/discord/openapi.json", import.meta.url)), "openapi.json");
const discord = definePack(buildOpenAPIPackIR(discordDoc, { name: "discord", file: "openapi.json", sha256: "0".repeat(64) }) as unknown as PackDefinition);
oneOfCosts("Discord fixture", discord.tools as readonly Tool<object>[], "create_interaction_response");
oneOfCosts("Stripe", stripe as readonly Tool<object>[], "");

const byTokens = [...(stripe as readonly Tool<object>[])].map((tool) => ({ tool, tokens: schemaTokens(tool) })).sort((a, b) => b.tokens - a.tokens);
const fattest = byTokens[0]!.tool;
// Linear's curated issues_list, derived from the generated issues_list (its _full twin's schema).
await parentCheckCost("Linear issues_list (curated)", linear.find((t) => t.name === "issues_list")! as Tool<object>, { first: 10, filter: { title: { contains: "bug" } } });
await parentCheckCost(`Stripe ${fattest.name} narrowed by drop expand`, fattest.derived({ name: "narrowed", drop: ["expand"] }), {
  name: "Jenny Rosen",
  type: "individual",
  billing: { address: { city: "Berlin", country: "DE", line1: "Street 1", postal_code: "10115" } },
  metadata: { order: "6735" },
});
