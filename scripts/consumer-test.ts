/**
 * The consumer test: what a user installs, tried the way a user would.
 *
 *   pnpm consumer-test   (run by .ci/run after the tests)
 *
 * 1. scripts/pack-tarballs.mjs (the documented install path: `pnpm -r build`, then
 *    `pnpm -r pack` of every published package) into a temporary folder; each tarball's package.json has no `workspace:` ranges and nothing private, and the
 *    tarball holds dist/, LICENSE and no sources, tests, fixtures or benches.
 * 2. publint and @arethetypeswrong/cli (`--profile esm-only`) on each tarball.
 * 3. A project in a temporary folder outside the repository installs the tarballs with the
 *    one `npm install` the README gives (third-party dependencies from the registry), then, with plain `node` (no loader),
 *    runs scripts/consumer/run.mjs: derive a Linear tool and call it, directly and over
 *    MCP, against a local server on 127.0.0.1; scripts/consumer/guards.mjs: the installed
 *    guards are frozen and withoutGuard refuses, so an echoed credential is still redacted;
 *    and scripts/consumer/frameworks.mjs: the AI SDK, LangChain and the OpenAI Agents SDK
 *    (installed beside, as their optional peers) run their own loops on the helpers against
 *    a mock API on 127.0.0.1.
 * 4. `tsc --noEmit` (strict, types ["node"]) on a file importing every entry point of every
 *    package, under nodenext and under bundler resolution; and under nodenext with ES2023
 *    libs only (no DOM) on every package but @sluice/mcp (and @sluice/mcp/serve), @sluice/mcp-client and @sluice/generator-mcp (the MCP SDK's types need DOM), and the AI SDK and Agents SDK helper entries (their frameworks' types need DOM).
 * 5. The CLI from the installed tarball (`cliChecks`): --version, survey of an installed
 *    pack by short name, egress --out / --check, generate from a spec into the project and
 *    survey of that directory, user TypeScript modules (a "type": "commonjs" folder, a
 *    missing import), serve answered by the MCP SDK client over stdio, and a config's packs
 *    through generate, narrow, suggest, report (the HTML page), --check and serve; a pack
 *    generated from an MCP server in the project, served as a proxy (scripts/consumer/serve-mcp.mjs).
 *
 * Every step prints its duration; the total is printed at the end.
 */
import { execFileSync, spawnSync, type SpawnSyncOptions, type SpawnSyncReturns } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "node_modules", ".bin");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const KEEP = process.argv.includes("--keep");

/** Optional SDKs whose types must stay out of the published declarations. */
const OPTIONAL_SDKS = ["openai", "@anthropic-ai/sdk", "@google/genai"];
/** Paths no tarball may ship. */
const NOT_SHIPPED = /(^|\/)(src|test|tests|fixtures|bench|spec|node_modules)\/|\.test\.|tsconfig/;

const started = Date.now();
const failures: string[] = [];

function step<T>(title: string, run: () => T): T {
  const at = Date.now();
  process.stderr.write(`\n== ${title}\n`);
  const result = run();
  process.stderr.write(`   ${title}: ${((Date.now() - at) / 1000).toFixed(1)} s\n`);
  return result;
}

function sh(command: string, args: readonly string[], options: SpawnSyncOptions = {}): void {
  const result = spawnSync(command, args, { stdio: "inherit", ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
}

/** Runs a check; a failure is recorded and reported at the end, the other checks still run. */
function check(what: string, command: string, args: readonly string[], options: SpawnSyncOptions = {}): boolean {
  const result = spawnSync(command, args, { stdio: "inherit", ...options });
  if (result.status === 0) return true;
  failures.push(`${what} (exit ${result.status ?? result.signal})`);
  return false;
}

const work = mkdtempSync(join(tmpdir(), "sluice-consumer-"));
if (!relative(ROOT, work).startsWith("..")) throw new Error(`the temporary folder ${work} is inside the repository; set TMPDIR elsewhere`);
const tarballs = join(work, "tarballs");
const unpacked = join(work, "unpacked");
const project = join(work, "project");
mkdirSync(tarballs);
mkdirSync(unpacked);
mkdirSync(project);

interface Packed {
  name: string;
  file: string;
  dir: string;
  manifest: Record<string, unknown> & { name: string; exports?: Record<string, unknown>; dependencies?: Record<string, string> };
}

try {
  // The script the README tells a user to run, so the documented path is the tested one.
  step("build and pack (scripts/pack-tarballs.mjs)", () => sh(process.execPath, [join(ROOT, "scripts", "pack-tarballs.mjs"), "--out", tarballs], { cwd: ROOT }));

  const packed: Packed[] = step("tarball contents", () =>
    readdirSync(tarballs)
      .filter((file) => file.endsWith(".tgz"))
      .sort()
      .map((file) => {
        const dir = join(unpacked, file.replace(/\.tgz$/, ""));
        mkdirSync(dir);
        execFileSync("tar", ["-xzf", join(tarballs, file), "-C", dir, "--strip-components=1"]);
        const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Packed["manifest"];
        const files = execFileSync("tar", ["-tzf", join(tarballs, file)], { encoding: "utf8" })
          .split("\n")
          .filter(Boolean)
          .map((path) => path.replace(/^package\//, ""));
        const problems: string[] = [];
        if (manifest["private"] !== undefined) problems.push("is private");
        if (manifest["license"] !== "MIT") problems.push("license is not MIT");
        for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
          for (const [dep, range] of Object.entries((manifest[field] as Record<string, string> | undefined) ?? {})) {
            if (range.startsWith("workspace:")) problems.push(`${field}.${dep} is ${range}`);
          }
        }
        if (!files.includes("LICENSE")) problems.push("no LICENSE");
        if (!files.some((path) => path.startsWith("dist/") && path.endsWith(".d.ts"))) problems.push("no dist/*.d.ts");
        for (const path of files.filter((path) => NOT_SHIPPED.test(path))) problems.push(`ships ${path}`);
        for (const path of files.filter((path) => path.endsWith(".d.ts"))) {
          const text = readFileSync(join(dir, path), "utf8");
          for (const sdk of OPTIONAL_SDKS) {
            if (new RegExp(`(from|import\\()\\s*["']${sdk.replace("/", "\\/")}(["'/])`).test(text)) problems.push(`${path} imports types from ${sdk}`);
          }
        }
        for (const problem of problems) failures.push(`${manifest.name}: ${problem}`);
        process.stderr.write(`   ${manifest.name}: ${files.length} files${problems.length === 0 ? "" : `, ${problems.length} problem(s)`}\n`);
        return { name: manifest.name, file: join(tarballs, file), dir, manifest };
      }),
  );

  step("publint --strict and attw --profile esm-only on each tarball", () => {
    for (const { name, file, dir } of packed) {
      check(`publint ${name}`, join(BIN, "publint"), ["--strict", "--pack", "false", dir]);
      // Quiet when it passes; on a problem, run again for the table.
      const attw = [file, "--profile", "esm-only"];
      if (spawnSync(join(BIN, "attw"), [...attw, "--quiet"], { stdio: "inherit" }).status !== 0) check(`attw ${name}`, join(BIN, "attw"), attw);
    }
  });

  step("npm install the tarballs into a project outside the repository, in one command as the README says", () => {
    const rootManifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    // The MCP client for run.mjs, and the agent frameworks @sluice/catalog's helper entries are
    // written for (optional peers), as a user adds them: from the registry, in the same command.
    const catalogManifest = JSON.parse(readFileSync(join(ROOT, "packages", "catalog", "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    const extras = [
      `@modelcontextprotocol/sdk@${rootManifest.devDependencies["@modelcontextprotocol/sdk"]!}`,
      ...["ai", "@langchain/core", "langchain", "@openai/agents", "zod"].map((framework) => `${framework}@${catalogManifest.devDependencies[framework]!}`),
    ];
    // Node's types for tsc.
    const manifest = { name: "sluice-consumer", private: true, type: "module", devDependencies: { "@types/node": rootManifest.devDependencies["@types/node"]! } };
    writeFileSync(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...packed.map(({ file }) => file), ...extras], { cwd: project });
  });

  step("plain node: derive a tool and call it (directly and over MCP) against 127.0.0.1", () => {
    copyFileSync(join(ROOT, "scripts", "consumer", "run.mjs"), join(project, "run.mjs"));
    check("node run.mjs", process.execPath, ["run.mjs"], { cwd: project, env: { ...process.env, NODE_OPTIONS: "" } });
  });

  step("plain node: the installed guards cannot be switched off (redaction of an echoed credential holds)", () => {
    copyFileSync(join(ROOT, "scripts", "consumer", "guards.mjs"), join(project, "guards.mjs"));
    check("node guards.mjs", process.execPath, ["guards.mjs"], { cwd: project, env: { ...process.env, NODE_OPTIONS: "" } });
  });

  step("agent frameworks: the AI SDK, LangChain and the OpenAI Agents SDK run their own loops on the installed helpers", () => {
    copyFileSync(join(ROOT, "scripts", "consumer", "frameworks.mjs"), join(project, "frameworks.mjs"));
    check("node frameworks.mjs", process.execPath, ["frameworks.mjs"], { cwd: project, env: { ...process.env, NODE_OPTIONS: "" } });
  });

  step("tsc --noEmit on every entry point (nodenext; bundler; nodenext without DOM)", () => {
    const entries = packed.flatMap(({ name, manifest }) => Object.keys(manifest.exports ?? {}).map((subpath) => (subpath === "." ? name : `${name}${subpath.slice(1)}`)));
    // @sluice/mcp's declarations carry the MCP SDK's, which use DOM types (HeadersInit):
    // the check without DOM covers every other package.
    const sourceOf = (names: readonly string[]) =>
      [
        // A JSON export (the config schema) is imported as JSON, which nodenext asks to say so.
        ...names.map((entry, i) => (entry.endsWith(".json") ? `import m${i} from "${entry}" with { type: "json" };` : `import * as m${i} from "${entry}";`)),
        `import { toOpenAIChat, type OpenAIChatTool } from "@sluice/catalog";`,
        `import { allTools, generatedTools, tools } from "@sluice/pack-linear";`,
        ``,
        `export const modules: readonly object[] = [${names.map((_, i) => `m${i}`).join(", ")}];`,
        `// Typed projections work from the installed declarations: a wrong pin is a compile error.`,
        `const byTeam = generatedTools.issuesList.derived({ name: "issues_by_team", keep: ["first", "filter.team"], pin: { includeArchived: false } });`,
        `export const chat: OpenAIChatTool[] = toOpenAIChat([byTeam]);`,
        `// The served set and every tool, both typed arrays of tools in the declarations.`,
        `export const served: OpenAIChatTool[] = toOpenAIChat(tools);`,
        `export const everyTool: OpenAIChatTool[] = toOpenAIChat(allTools);`,
        `// @ts-expect-error includeArchived is a boolean`,
        `generatedTools.issuesList.derived({ name: "wrong", pin: { includeArchived: "no" } });`,
        ``,
      ].join("\n");
    writeFileSync(join(project, "every-package.ts"), sourceOf(entries));
    // The MCP SDK's declarations need DOM (HeadersInit): @sluice/mcp (both entries), @sluice/mcp-client (its connection) and @sluice/generator-mcp (through the client's snapshot types) carry them.
    // So do the AI SDK's (HeadersInit, FileList) and the Agents SDK's (RTCPeerConnection), which their helper entries carry; LangChain's do not.
    const domTyped = new Set(["@sluice/mcp-client", "@sluice/generator-mcp", "@sluice/catalog/ai-sdk", "@sluice/catalog/openai-agents"]);
    const sdkTyped = (entry: string) => entry === "@sluice/mcp" || entry.startsWith("@sluice/mcp/") || entry.startsWith("@sluice/mcp-client/") || domTyped.has(entry);
    writeFileSync(join(project, "without-dom.ts"), sourceOf(entries.filter((entry) => !sdkTyped(entry))));
    // resolveJsonModule: the config schema is a JSON export a user imports too.
    const base = { strict: true, noEmit: true, types: ["node"], resolveJsonModule: true };
    const configs = {
      "tsconfig.nodenext.json": { compilerOptions: { ...base, module: "nodenext", moduleResolution: "nodenext" }, files: ["every-package.ts"] },
      "tsconfig.bundler.json": { compilerOptions: { ...base, module: "esnext", moduleResolution: "bundler", target: "es2022" }, files: ["every-package.ts"] },
      "tsconfig.no-dom.json": { compilerOptions: { ...base, module: "nodenext", moduleResolution: "nodenext", lib: ["es2023"] }, files: ["without-dom.ts"] },
    };
    for (const [file, config] of Object.entries(configs)) {
      writeFileSync(join(project, file), `${JSON.stringify(config, null, 2)}\n`);
      check(`tsc -p ${file}`, process.execPath, [TSC, "-p", file], { cwd: project });
    }
  });

  step("the sluice command from the installed tarball", () => cliChecks(project));

  step("the new user's walkthrough: generate, narrow, egress check, report, serve with an OAuth-refreshed call, a provider round trip", () => {
    copyFileSync(join(ROOT, "scripts", "consumer", "walkthrough.mjs"), join(project, "walkthrough.mjs"));
    check("node walkthrough.mjs", process.execPath, ["walkthrough.mjs"], { cwd: project, env: { ...process.env, NODE_OPTIONS: "" } });
  });
} finally {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (KEEP) process.stderr.write(`\nkept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
  process.stderr.write(`\nconsumer test: ${seconds} s\n`);
}

/** The installed `sluice` command, run the way a user runs it in their project. */
function cliChecks(cwd: string): void {
  const sluice = join(cwd, "node_modules", ".bin", "sluice");
  if (!existsSync(sluice)) {
    failures.push("no node_modules/.bin/sluice in the consumer project");
    return;
  }
  const env = { ...process.env, NODE_OPTIONS: "" };
  const version = spawnSync(sluice, ["--version"], { cwd, env, encoding: "utf8" });
  if (version.status !== 0) {
    failures.push(`sluice --version: exit ${version.status}: ${version.stderr.trim().slice(0, 300)}`);
    return;
  }
  process.stderr.write(`   sluice --version: ${version.stdout.trim()}\n`);
  const run = (args: string[]) => spawnSync(sluice, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  // The installed pack by its short name, resolved from the project, not from the CLI.
  const survey = run(["survey", "linear", "--top", "3", "--json"]);
  const fattest = survey.status === 0 ? (JSON.parse(survey.stdout) as Array<{ tool: string; tokens: number }>) : [];
  if (fattest.length !== 3 || !(fattest[0]!.tokens >= fattest[2]!.tokens)) failures.push(`sluice survey linear: exit ${survey.status}: ${survey.stderr.trim()}`);
  else process.stderr.write(`   sluice survey linear: fattest ${fattest[0]!.tool} (${fattest[0]!.tokens} tokens)\n`);
  // The egress map written, then checked in CI: the same bytes pass, an edited map fails with 1.
  const map = join(cwd, "egress_map.txt");
  const written = run(["egress", "linear", "--out", map]);
  const checked = run(["egress", "linear", "--check", map]);
  writeFileSync(map, readFileSync(map, "utf8").replace(/\n  \+ [^\n]*/, ""));
  const widened = run(["egress", "linear", "--check", map]);
  if (written.status !== 0 || checked.status !== 0 || widened.status !== 1) {
    failures.push(`sluice egress --out / --check: exits ${written.status}, ${checked.status}, ${widened.status} (want 0, 0, 1): ${widened.stderr.trim().slice(0, 300)}`);
  } else {
    process.stderr.write("   sluice egress --out, --check (same map: 0, a widening: 1)\n");
  }
  // A pack generated from a spec in the project, then surveyed by its directory.
  const spec = join(cwd, "specs", "petstore.json");
  mkdirSync(join(cwd, "specs"), { recursive: true });
  copyFileSync(join(ROOT, "..", "shared", "specs", "petstore", "petstore-expanded-3.0.json"), spec);
  const generated = run(["generate", "openapi", "specs/petstore.json", "--name", "petstore", "--out", "packs/petstore", "--json"]);
  const own = run(["survey", "packs/petstore", "--json"]);
  const ownTools = own.status === 0 ? (JSON.parse(own.stdout) as Array<{ tool: string }>).map((entry) => entry.tool) : [];
  if (generated.status !== 0 || !ownTools.includes("add_pet")) {
    failures.push(`sluice generate + survey <dir>: exits ${generated.status}, ${own.status}: ${(generated.stderr + own.stderr).trim().slice(0, 300)}`);
  } else {
    process.stderr.write(`   sluice generate openapi -> packs/petstore, survey packs/petstore: ${ownTools.length} tools\n`);
  }
  // A TypeScript module of the user's in a folder whose package.json says "type": "commonjs"
  // (what \`npm init\` writes) loads as an ES module; one with a missing import fails in one line.
  mkdirSync(join(cwd, "app"), { recursive: true });
  writeFileSync(join(cwd, "app", "package.json"), `${JSON.stringify({ name: "app", version: "1.0.0", type: "commonjs" })}\n`);
  writeFileSync(
    join(cwd, "app", "tools.ts"),
    `import { tools } from "@sluice/pack-linear";\nexport const mine = tools.find((tool) => tool.name === "issues_list")!.derived({ name: "my_issues", keep: ["first", "after"] });\n`,
  );
  writeFileSync(join(cwd, "app", "broken.ts"), `import { tools } from "@sluice/pack-nowhere";\nexport { tools };\n`);
  const mine = run(["survey", "app/tools.ts", "--json"]);
  const broken = run(["survey", "app/broken.ts"]);
  const brokenLines = broken.stderr.trim().split("\n");
  if (mine.status !== 0 || !mine.stdout.includes("my_issues")) failures.push(`sluice survey app/tools.ts ("type": "commonjs"): exit ${mine.status}: ${mine.stderr.trim().slice(0, 300)}`);
  else if (broken.status !== 2 || brokenLines.length !== 1 || !/IMPORT_FAILED.*@sluice\/pack-nowhere/.test(brokenLines[0]!)) {
    failures.push(`sluice survey app/broken.ts: exit ${broken.status} (want 2), ${brokenLines.length} stderr line(s) (want 1): ${broken.stderr.slice(0, 300)}`);
  } else {
    process.stderr.write("   a .ts module under \"type\": \"commonjs\" loads; a missing import is one IMPORT_FAILED line, exit 2\n");
  }
  // serve, answered by the MCP SDK's client over stdio, calling a local server with the credential from the environment.
  copyFileSync(join(ROOT, "scripts", "consumer", "serve.mjs"), join(cwd, "serve.mjs"));
  check("sluice serve linear (MCP client over stdio)", process.execPath, ["serve.mjs", "linear", "issues_list"], { cwd, env });
  configChecks(cwd, run, env);
}

/**
 * Packs for any API, the way a user keeps them: a config with an OpenAPI and a GraphQL
 * spec (one narrowed by include), generate, narrow, generate --check clean then dirty
 * after a spec edit, egress --check naming the widening, serve of a generated pack.
 */
function configChecks(cwd: string, run: (args: string[]) => SpawnSyncReturns<string>, env: NodeJS.ProcessEnv): void {
  const specs = join(ROOT, "..", "shared", "specs");
  copyFileSync(join(specs, "petstore", "swagger-petstore-3.0.yaml"), join(cwd, "specs", "store.yaml"));
  copyFileSync(join(specs, "linear", "schema.graphql"), join(cwd, "specs", "linear.graphql"));
  const config = {
    packs: [
      { spec: "specs/store.yaml", name: "store", out: "packs/store", include: { tags: ["pet"] } },
      { spec: "specs/linear.graphql", name: "tracker", out: "packs/tracker", include: { operations: ["issue", "issues", "team*"] } },
    ],
  };
  writeFileSync(join(cwd, "sluice.config.json"), `${JSON.stringify(config, null, 2)}\n`);
  const step = (what: string, result: SpawnSyncReturns<string>, want: number, also: (out: string) => boolean = () => true): boolean => {
    if (result.status === want && also(`${result.stdout}${result.stderr}`)) {
      process.stderr.write(`   ${what}: exit ${want}\n`);
      return true;
    }
    failures.push(`${what}: exit ${result.status} (want ${want}): ${`${result.stdout}${result.stderr}`.trim().slice(0, 400)}`);
    return false;
  };
  if (!step("sluice generate (config: store, tracker)", run(["generate"]), 0, (out) => /store: \d+ tools/.test(out) && /tracker: \d+ tools/.test(out))) return;
  step("sluice narrow packs/store find_pets_by_status --pin status=available", run(["narrow", "packs/store", "find_pets_by_status", "--name", "available_pets", "--pin", "status=available"]), 0);
  step("sluice generate --check (clean)", run(["generate", "--check"]), 0);
  // Deciding what to narrow: a projection suggested to a budget, and the cost report page
  // (its script, style and d3-hierarchy come from the installed tarballs, inlined).
  step("sluice suggest packs/tracker issues_list --budget 1000 --json", run(["suggest", "packs/tracker", "issues_list", "--budget", "1000", "--json"]), 0, (out) => {
    const suggestion = JSON.parse(out) as { tokens: number; drop: string[] };
    return suggestion.tokens <= 1000 && suggestion.drop.length > 0;
  });
  if (step("sluice report packs/tracker --out report.html", run(["report", "packs/tracker", "--out", "report.html"]), 0, (out) => /report\.html: \d+ bytes/.test(out))) {
    const page = readFileSync(join(cwd, "report.html"), "utf8");
    if (!page.includes("d3-hierarchy") || !page.includes('"issues_list"') || /<(?:script|link|img)[^>]+(?:src|href)=["']?https?:/i.test(page)) {
      failures.push("report.html: want d3-hierarchy inlined, the pack's tools, and no external script, style or image");
    }
  }
  const before = readFileSync(join(cwd, "packs", "store", "egress_map.txt"), "utf8");
  writeFileSync(join(cwd, "before_map.txt"), before);
  // The spec grows an optional query parameter on GET /pet/{petId}.
  const spec = readFileSync(join(cwd, "specs", "store.yaml"), "utf8");
  const edited = spec.replace(/(\n {6}operationId: getPetById\n(?: {6}.*\n)*? {6}parameters:\n)/, "$1        - name: fields\n          in: query\n          required: false\n          schema:\n            type: string\n");
  if (edited === spec) failures.push("could not edit specs/store.yaml for the drift check");
  writeFileSync(join(cwd, "specs", "store.yaml"), edited);
  step("sluice generate --check after a spec edit names the widening", run(["generate", "--check"]), 1, (out) => /OUT OF DATE: .*src\/tools\.gen\.ts/.test(out) && /^WIDENING: tool get_pet_by_id: fields\b/m.test(out));
  step("sluice generate store", run(["generate", "store"]), 0);
  step("sluice egress --check against the map before the edit names the widening", run(["egress", "packs/store", "--check", "before_map.txt"]), 1, (out) => /WIDENING: tool get_pet_by_id: fields\b/.test(out));
  copyFileSync(join(ROOT, "scripts", "consumer", "serve-generated.mjs"), join(cwd, "serve-generated.mjs"));
  check("sluice serve packs/store (MCP client, credential from STORE_API_KEY)", process.execPath, ["serve-generated.mjs", "packs/store", "get_pet_by_id", '{"petId":10}', "STORE_API_KEY", "api_key"], { cwd, env });
  // A pack from an MCP server of the project's own, then serve of it as a screening proxy.
  for (const file of ["mcp-server.mjs", "serve-mcp.mjs"]) copyFileSync(join(ROOT, "scripts", "consumer", file), join(cwd, file));
  check("sluice generate mcp + sluice serve packs/notes (proxy, MCP client over stdio)", process.execPath, ["serve-mcp.mjs"], { cwd, env });
}

if (failures.length > 0) {
  process.stderr.write(`\nconsumer test FAILED:\n${failures.map((failure) => `  - ${failure}`).join("\n")}\n`);
  process.exitCode = 1;
} else {
  process.stderr.write("\nconsumer test: ok\n");
}
