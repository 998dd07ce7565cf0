/**
 * The files `sluice generate` writes once, when absent, and never again: they are the
 * user's. Everything else in a pack is generated and rewritten on every run.
 */
import { commentText, type EmittedFile } from "@sluice/emit";

/** Files of a pack that `sluice generate` rewrites (spec copy and egress map aside). */
export const GENERATED_SOURCES = ["src/pack-data.gen.ts", "src/defs.gen.ts", "src/tools.gen.ts", "src/types.gen.ts", "src/runtime.gen.ts"] as const;

/** `my-api` -> `MyApi`. */
export function pascalCase(name: string): string {
  return name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}

/** What the credentials section of a pack's index needs of one credential fact. */
export interface ScaffoldCredential {
  scheme: string;
  type: string;
  env: string;
  oauth2?: { clientIdEnv: string; clientSecretEnv: string; refreshTokenEnv: string };
}

/**
 * The part of a pack's `src/index.ts` that says how to give credentials in code: a type
 * keyed by the spec's security scheme names (what `ctx.credentials` takes), and
 * `credentialsFromEnv`, which reads them from the variables `sluice serve` reads too.
 */
export function credentialsSection(name: string, credentials: readonly ScaffoldCredential[]): string {
  const type = `${pascalCase(name)}Credentials`;
  const members = credentials.map((c) => `  ${JSON.stringify(c.scheme)}?: SchemeCredential;`).join("\n");
  const variables = credentials.flatMap((c) => {
    const value = c.type === "basic" ? "user:password" : c.type === "apiKey" ? "the key" : "a token";
    const line = ` *  - ${c.scheme} (${c.type}): ${c.env} (${value})`;
    return c.oauth2 === undefined ? [line] : [`${line}, or an OAuth 2 client:`, ` *    ${c.oauth2.clientIdEnv}, ${c.oauth2.clientSecretEnv}, optionally ${c.oauth2.refreshTokenEnv}`];
  });
  return `
/**
 * Credentials by security scheme, as \`ctx.credentials\` takes them (\`tool.call(args, {
 * credentials })\`): each a \`{ token }\`, a \`{ username, password }\` for basic, or an
 * \`oauth2Credential({ tokenUrl, clientId, clientSecret, refreshToken? })\` that fetches and
 * refreshes its tokens.
 */
export type ${type} = {${members === "" ? "" : `\n${members}\n`}};

/**
 * The credentials set in the environment (\`process.env\` unless \`env\` is given), by the
 * variables \`sluice serve\` reads:
${variables.length === 0 ? " *  (the spec declares no security scheme)" : variables.join("\n")}
 */
export function credentialsFromEnv(env?: EnvironmentVariables): ${type} {
  return credentialsFromVariables(facts, env);
}
`;
}

/** The scaffolds of a new pack: package.json, src/index.ts, src/curated.ts, src/runtime.ts. */
export function scaffoldFiles(name: string, specFile: string, coreVersion: string, credentials: readonly ScaffoldCredential[] = []): EmittedFile[] {
  const manifest = {
    name: `sluice-pack-${name}`,
    version: "0.0.0",
    private: true,
    type: "module",
    exports: { ".": "./src/index.ts" },
    dependencies: { "@sluice/core": `^${coreVersion}` },
  };
  return [
    { path: "package.json", text: `${JSON.stringify(manifest, null, 2)}\n` },
    {
      path: "src/index.ts",
      text: `/**
 * The ${name} pack: every operation of spec/${commentText(specFile)} as a tool (tools.gen.ts), with the
 * projections of curated.ts. Written once by sluice generate; yours to edit.
 */
import { credentialsFromEnv as credentialsFromVariables, packToolSets, type EnvironmentVariables, type SchemeCredential } from "@sluice/core/pack";
import { curated, derived } from "./curated.ts";
import { facts } from "./runtime.gen.ts";
import { pack } from "./tools.gen.ts";

export * as generatedTools from "./tools.gen.ts";
export type * as ${pascalCase(name)}Types from "./types.gen.ts";

/**
 * \`tools\`: what to hand an adapter, a ToolSession or \`sluice serve\`: curated tools in place
 * of the generated ones of the same name, the other generated tools, then the tools derived
 * under new names. \`allTools\`: the same plus each curated tool's unprojected original as
 * \`<name>_full\` (served only with --include-full), for code that asks for it by name.
 */
export const { tools, allTools } = packToolSets(pack.tools, curated, derived);
${credentialsSection(name, credentials)}`,
    },
    {
      path: "src/curated.ts",
      text: `/**
 * Projections of the ${name} pack's generated tools: yours to edit, and \`sluice narrow\`
 * edits it too. A projection can only narrow: \`drop\` and \`keep\` withhold arguments,
 * \`pin\` fixes values, and what is withheld is refused at call time.
 *
 *   curated: tools that replace the generated tool of the same name
 *            (curate(generated.issuesList, { drop: ["filter"] }));
 *   derived: new tools under new names
 *            (generated.issuesList.derived({ name: "my_issues", keep: ["first"] })).
 */
import { curate, type Tool } from "@sluice/core/pack";
import * as generated from "./tools.gen.ts";

export const curated: readonly Tool<object>[] = [];

export const derived: readonly Tool<object>[] = [];

// Referenced so that the imports stay when both lists are empty.
void curate;
void generated;
`,
    },
    {
      path: "src/runtime.ts",
      text: `/**
 * How the ${name} pack's tools are called: yours to edit. \`facts\` (runtime.gen.ts,
 * regenerated from the spec) holds what the spec says: the base URL or GraphQL endpoint,
 * each credential and its environment variable, pagination, response hints.
 * generatedRuntime turns them into the runtime; override per tool with \`tools\` or
 * \`forTool\` (a response handler, a pagination rule).
 */
import { generatedRuntime, type PackRuntime } from "@sluice/core/pack";
import { facts } from "./runtime.gen.ts";

export const runtime: PackRuntime = generatedRuntime(facts);
`,
    },
  ];
}

/** Marks generated files so that a pull request collapses them and shows the egress map. */
export function gitattributes(specFile: string | undefined): EmittedFile {
  return {
    path: ".gitattributes",
    text: [
      "# Written by sluice generate: generated files are collapsed in pull requests;",
      "# review egress_map.txt, which says what the model can see and send.",
      ...GENERATED_SOURCES.map((path) => `${path} linguist-generated=true`),
      // The served list (write-pack-files.ts), written after the sources it is keyed by.
      "src/served-tools.gen.json linguist-generated=true",
      ...(specFile === undefined ? [] : [`spec/${specFile} linguist-generated=true`]),
      "",
    ].join("\n"),
  };
}
