/**
 * `egress --check` and `generate --check` on packs generated from real specs (vendored
 * outside specs and the corpus), through the real command: a narrowing is never a
 * widening, undoing it names exactly what it took away, and a spec edit that adds a query
 * parameter is named as a widening in text, JSON and GitHub annotations alike. A few
 * operations per spec (`include`) keep it fast; they still share types.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LONG, sweep } from "../../../test/support/tier.ts";
import { afterAll, describe, expect, it } from "vitest";
import { runSluice } from "./support/run-in-process.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const OUTSIDE = join(ROOT, "test/fixtures/outside");
const CORPUS = join(ROOT, "../shared/specs");
const SLOW = 240_000;

const project = mkdtempSync(join(tmpdir(), "sluice-egress-check-"));
mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
mkdirSync(join(project, "specs"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

interface Case {
  spec: string;
  name: string;
  include: Record<string, string[]>;
  /** One narrowing: the tool, and the path dropped from it (a member, a branch or a whole argument). */
  tool: string;
  drop: string;
  /** The map before has shared type sections (true) or positional union branches (false). */
  sharedTypes: boolean;
}

const CASES: Array<[string, Case]> = [
  [
    "Adyen Checkout (OpenAPI 3.1): a whole argument whose types other tools share",
    { spec: join(OUTSIDE, "adyen-checkout.yaml"), name: "adyen", include: { paths: ["POST /payments", "POST /donations", "POST /paymentLinks", "GET /paymentLinks/{linkId}"] }, tool: "post_payments", drop: "billingAddress", sharedTypes: true },
  ],
  [
    "LaunchDarkly (Swagger 2.0): a whole body member of a type used twice",
    { spec: join(OUTSIDE, "launchdarkly.yaml"), name: "ld", include: { tags: ["Feature flags"] }, tool: "copy_feature_flag", drop: "excludedActions", sharedTypes: true },
  ],
  [
    "Apideck accounting (Swagger 2.0): an argument whose type is then used once, so listed inline",
    { spec: join(OUTSIDE, "apideck-accounting.yaml"), name: "apideck", include: { operations: ["invoicesAdd", "customersAdd"] }, tool: "invoices_add", drop: "shipping_address", sharedTypes: true },
  ],
  [
    "Jira (corpus): a member of a shared type, below an argument",
    { spec: join(CORPUS, "jira/jira-openapi.yaml"), name: "jira", include: { operations: ["create_or_update_remote_issue_link", "update_remote_issue_link"] }, tool: "create_or_update_remote_issue_link", drop: "body.object.icon", sharedTypes: true },
  ],
  [
    "GitHub REST (corpus): a positional union branch, which renumbers the others",
    { spec: join(CORPUS, "github-rest/api.github.com.json"), name: "gh", include: { operations: ["issues_add_labels", "issues_set_labels"] }, tool: "issues_add_labels", drop: "body.oneOf[0]", sharedTypes: false },
  ],
];

/** The CLI's main in this worker until a pack it loaded changes (a narrow, a restored curated.ts), then the bin as a child (support/run-in-process.ts). */
function sluice(args: string[], env: Record<string, string> = {}) {
  return runSluice(args, { cwd: project, env: { GITHUB_ACTIONS: "", ...env }, timeout: 180_000 });
}

function config(cases: readonly Case[]) {
  const packs = cases.map((c) => ({ spec: `specs/${c.spec.split("/").pop()}`, name: c.name, out: `packs/${c.name}`, include: c.include }));
  // One operation of the LaunchDarkly spec, for the limit edits (a pack of one tool is quick to generate and check).
  packs.push({ spec: "specs/launchdarkly-copy.yaml", name: "ldl", out: "packs/ldl", include: { operations: ["copyFeatureFlag"] } });
  writeFileSync(join(project, "sluice.config.json"), JSON.stringify({ packs }));
}
config(CASES.map(([, c]) => c));

interface JsonCheck {
  check: string;
  ok: boolean;
  widenings: Array<{ tool: string; path: string; kind: string; subject: string; line?: number }>;
  narrowings: Array<{ tool: string; path: string; kind: string; subject: string; line?: number }>;
}

const read = (path: string) => readFileSync(join(project, path), "utf8");

// The quick tier runs the corpus spec with a positional branch (the outside Swagger 2.0 spec
// with shared types is the generate --check case below; Adyen alone took 17 of the file's 38 s);
// the long tier all five.
const QUICK = new Set(["gh"]);

describe("a narrowing is no widening; undoing it names what it restores", () => {
  it.each(sweep(CASES, ([, c]) => QUICK.has(c.name)))(
    "%s",
    async (_title, c) => {
      copyFileSync(c.spec, join(project, "specs", c.spec.split("/").pop()!));
      expect(await sluice(["generate", c.name])).toMatchObject({ code: 0, stderr: "" });
      const pack = `packs/${c.name}`;
      const before = `${c.name}-before.txt`;
      expect((await sluice(["egress", pack, "--served", "--out", before])).code).toBe(0);
      if (c.sharedTypes) expect(read(before)).toMatch(/^type \S+/m);
      else expect(read(before)).toMatch(/\.oneOf\[2\]/);
      const curated = read(`${pack}/src/curated.ts`);

      // The narrow edits a copy: the worker loaded `pack` above, and once a module it holds
      // changes on disk every later runSluice of the worker (the next files' too) is a child
      // process (support/run-in-process.ts). The copy is the pack byte for byte until narrowed.
      const original = pack;
      const narrowedPack = `packs/${c.name}-narrowed`;
      cpSync(join(project, original), join(project, narrowedPack), { recursive: true });
      const narrow = await sluice(["narrow", narrowedPack, c.tool, "--name", c.tool, "--drop", c.drop]);
      expect(narrow.code).toBe(0);
      expect(narrow.stdout).not.toMatch(/^WIDENING:/m);

      const text = await sluice(["egress", narrowedPack, "--served", "--check", before]);
      expect(text.code).toBe(1); // drift: the committed map must be rewritten
      expect(text.stderr).toBe("");
      expect(text.stdout).not.toMatch(/^WIDENING:/m);
      expect(text.stdout).toMatch(new RegExp(`^${before}: OUT OF DATE: 0 widenings, [1-9]\\d* narrowings?, `, "m"));
      const checked = JSON.parse((await sluice(["egress", narrowedPack, "--served", "--check", before, "--json"])).stdout) as JsonCheck;
      expect(checked).toMatchObject({ check: "egress", ok: false, widenings: [] });
      expect(checked.narrowings.length).toBeGreaterThan(0);
      expect(checked.narrowings.every((n) => n.tool === c.tool)).toBe(true);
      const github = await sluice(["egress", narrowedPack, "--served", "--check", before, "--format", "github"]);
      expect(github.stdout).not.toMatch(/^::warning /m);

      // Undo: the map of the narrowed tools is the committed one now; the original tools widen it by what was dropped.
      const narrowed = `${c.name}-narrowed.txt`;
      expect((await sluice(["egress", narrowedPack, "--served", "--out", narrowed])).code).toBe(0);
      // Undone, the pack is the original again, byte for byte: its curated.ts as before the narrow.
      expect(read(`${original}/src/curated.ts`)).toBe(curated);
      const undo = JSON.parse((await sluice(["egress", original, "--served", "--check", narrowed, "--json"])).stdout) as JsonCheck;
      expect(undo.narrowings).toEqual([]);
      expect(undo.widenings.map((w) => w.path).sort()).toEqual(checked.narrowings.map((n) => n.path).sort());
      expect(undo.widenings.some((w) => w.path === c.drop && w.subject.endsWith("(was withheld: projection)"))).toBe(true);
      // Each widening points at a line of the committed (narrowed) map inside the tool.
      const lines = read(narrowed).split("\n");
      for (const w of undo.widenings) {
        const at = lines.slice(0, w.line!).reverse().find((line) => /^tool /.test(line));
        expect(at).toBe(`tool ${c.tool}`);
      }
      const undoText = (await sluice(["egress", original, "--served", "--check", narrowed])).stdout;
      for (const w of undo.widenings) expect(undoText).toContain(`\nWIDENING: ${w.subject} is newly visible to the model\n`);
      expect(await sluice(["egress", original, "--served", "--check", before])).toMatchObject({ code: 0, stdout: `${before}: up to date (${read(before).match(/^tool /gm)!.length} tools)\n` });
    },
    SLOW,
  );
});

describe("generate --check names a widening from a spec edit, with the generated files stale too", () => {
  const edits: Array<[string, { name: string; file: string; after: string; insert: string; tool: string }]> = [
    [
      "LaunchDarkly (Swagger 2.0)",
      { name: "ld", file: "launchdarkly.yaml", after: "      operationId: copyFeatureFlag\n      parameters:\n", insert: "        - name: sluiceProbe\n          in: query\n          type: string\n", tool: "copy_feature_flag" },
    ],
    [
      "Adyen Checkout (OpenAPI 3.1)",
      {
        name: "adyen",
        file: "adyen-checkout.yaml",
        after: "      operationId: get-paymentLinks-linkId\n      parameters:\n",
        insert: "        - in: query\n          name: sluiceProbe\n          schema:\n            type: string\n",
        tool: "get_payment_links_link_id",
      },
    ],
  ];
  // The quick tier edits the Swagger 2.0 spec, the long tier both.
  it.each(sweep(edits, ([, e]) => e.name === "ld"))(
    "%s: the new query parameter, in text, JSON and GitHub formats",
    async (_title, e) => {
      const spec = join(project, "specs", e.file);
      copyFileSync(join(OUTSIDE, e.file), spec);
      expect((await sluice(["generate", e.name])).code).toBe(0);
      expect((await sluice(["generate", e.name, "--check"])).code).toBe(0);
      const original = readFileSync(spec, "utf8");
      expect(original).toContain(e.after);
      writeFileSync(spec, original.replace(e.after, e.after + e.insert));
      try {
        const subject = `tool ${e.tool}: sluiceProbe: string`;
        const text = await sluice(["generate", e.name, "--check"]);
        expect(text.code).toBe(1);
        expect(text.stderr).toBe("");
        expect(text.stdout).toMatch(/OUT OF DATE: .*src\/tools\.gen\.ts.*egress_map\.txt/);
        expect(text.stdout.match(/^WIDENING: .*$/gm)).toEqual([`WIDENING: ${subject} is newly visible to the model`]);

        const json = JSON.parse((await sluice(["generate", e.name, "--check", "--json"])).stdout) as { ok: boolean; packs: Array<JsonCheck & { changed: string[] }> };
        expect(json.ok).toBe(false);
        expect(json.packs[0]!.changed).toContain("egress_map.txt");
        expect(json.packs[0]!.widenings.map(({ tool, path, kind, subject }) => ({ tool, path, kind, subject }))).toEqual([{ tool: e.tool, path: "sluiceProbe", kind: "member", subject }]);
        const line = json.packs[0]!.widenings[0]!.line!;
        expect(read(`packs/${e.name}/egress_map.txt`).split("\n")[line - 1]).toBe(`tool ${e.tool}`);

        const github = await sluice(["generate", e.name, "--check", "--format", "github"]);
        expect(github.stdout).toContain(`\n::warning file=packs/${e.name}/egress_map.txt,line=${line},title=egress widening::${subject} is newly visible to the model.\n`);
        // On Actions the same annotations come without asking.
        expect((await sluice(["generate", e.name, "--check"], { GITHUB_ACTIONS: "true" })).stdout).toContain(`::warning file=packs/${e.name}/egress_map.txt,line=${line},`);
        // The check wrote nothing: no scratch copy is left beside the pack.
        expect(spawnSync("ls", ["-a", join(project, "packs")], { encoding: "utf8" }).stdout).not.toMatch(/sluice-check/);
      } finally {
        writeFileSync(spec, original);
      }
    },
    SLOW,
  );
});

describe("a loosened limit is a widening and a tightened one a narrowing, in both checks and all three formats", () => {
  const after = "      operationId: copyFeatureFlag\n      parameters:\n";
  const parameter = (limits: string) => `        - name: sluiceLimit\n          in: query\n          type: string\n${limits}`;
  const TIGHT = parameter("          required: true\n          maxLength: 5\n");
  const LOOSE = parameter("          maxLength: 50\n");
  const WIDER = ["tool copy_feature_flag: sluiceLimit: maxLength 50 (was 5)", "tool copy_feature_flag: sluiceLimit: no longer required"];

  it(
    "LaunchDarkly (Swagger 2.0): maxLength raised and required dropped, then the reverse",
    async () => {
      // The operation alone with what it refers to: the limit edits need no more, and a 1 MB spec read per command made this 30 s.
      const spec = join(project, "specs", "launchdarkly-copy.yaml");
      const whole = readFileSync(join(OUTSIDE, "launchdarkly.yaml"), "utf8");
      const operation = whole.slice(whole.indexOf(`  "/flags/{projectKey}/{featureFlagKey}/copy":`), whole.indexOf('  "/flags/{projectKey}/{featureFlagKey}/dependent-flags":'));
      writeFileSync(spec, whole.slice(0, whole.indexOf("\npaths:\n") + 8) + operation + whole.slice(whole.indexOf("\ndefinitions:") + 1));
      const original = readFileSync(spec, "utf8");
      expect(original).toContain(after);
      const write = (insert: string) => writeFileSync(spec, original.replace(after, after + insert));
      try {
        write(TIGHT);
        expect((await sluice(["generate", "ldl"])).code).toBe(0);
        expect(read("packs/ldl/egress_map.txt")).toContain("  + sluiceLimit: string  {required, maxLength 5}\n");
        expect((await sluice(["egress", "packs/ldl", "--served", "--out", "ld-tight.txt"])).code).toBe(0);
        write(LOOSE);

        // generate --check: the committed map has the tight limits, the spec the loose ones.
        const text = await sluice(["generate", "ldl", "--check"]);
        expect(text.code).toBe(1);
        expect(text.stdout.match(/^(WIDENING|NARROWING): .*$/gm)).toEqual(WIDER.map((subject) => `WIDENING: ${subject} loosens what the model can send`));
        expect(text.stdout).toMatch(/egress_map\.txt: 2 widenings, 0 narrowings, 0 other changes/);
        const json = JSON.parse((await sluice(["generate", "ldl", "--check", "--json"])).stdout) as { packs: JsonCheck[] };
        expect(json.packs[0]!.widenings.map(({ kind, subject }) => [kind, subject])).toEqual([
          ["limit", WIDER[0]],
          ["required", WIDER[1]],
        ]);
        expect(json.packs[0]!.narrowings).toEqual([]);
        const line = json.packs[0]!.widenings[0]!.line!;
        expect(read("packs/ldl/egress_map.txt").split("\n")[line - 1]).toBe("  + sluiceLimit: string  {required, maxLength 5}");
        const github = (await sluice(["generate", "ldl", "--check", "--format", "github"])).stdout;
        for (const subject of WIDER) expect(github).toContain(`::warning file=packs/ldl/egress_map.txt,line=${line},title=egress widening::${subject} loosens what the model can send.\n`);

        // egress --check of the regenerated (loose) pack against the tight map: the same two
        // (long tier: three more commands, each a process; the check is the same function).
        if (!LONG) return;
        expect((await sluice(["generate", "ldl"])).code).toBe(0);
        expect(read("packs/ldl/egress_map.txt")).toContain("  + sluiceLimit: string  {maxLength 50}\n");
        const egress = await sluice(["egress", "packs/ldl", "--served", "--check", "ld-tight.txt"]);
        expect(egress.code).toBe(1);
        expect(egress.stdout.match(/^(WIDENING|NARROWING): .*$/gm)).toEqual(WIDER.map((subject) => `WIDENING: ${subject} loosens what the model can send`));
        const egressJson = JSON.parse((await sluice(["egress", "packs/ldl", "--served", "--check", "ld-tight.txt", "--json"])).stdout) as JsonCheck;
        expect(egressJson.widenings.map((w) => w.subject)).toEqual(WIDER);
        expect((await sluice(["egress", "packs/ldl", "--served", "--check", "ld-tight.txt", "--format", "github"])).stdout).toContain(`title=egress widening::${WIDER[0]} loosens what the model can send.\n`);

        // The reverse: tightening names only narrowings, and no warning annotation.
        expect((await sluice(["egress", "packs/ldl", "--served", "--out", "ld-loose.txt"])).code).toBe(0);
        write(TIGHT);
        const tightened = await sluice(["generate", "ldl", "--check", "--format", "github"]);
        expect(tightened.stdout.match(/^(WIDENING|NARROWING): .*$/gm)).toEqual([
          "NARROWING: tool copy_feature_flag: sluiceLimit: maxLength 5 (was 50) tightens what the model can send",
          "NARROWING: tool copy_feature_flag: sluiceLimit: now required tightens what the model can send",
        ]);
        expect(tightened.stdout).not.toMatch(/^::warning /m);
        expect((await sluice(["generate", "ldl"])).code).toBe(0);
        const back = JSON.parse((await sluice(["egress", "packs/ldl", "--served", "--check", "ld-loose.txt", "--json"])).stdout) as JsonCheck;
        expect(back.widenings).toEqual([]);
        expect(back.narrowings.map((n) => n.kind)).toEqual(["limit", "required"]);
      } finally {
        writeFileSync(spec, original);
      }
    },
    SLOW,
  );
});

describe("generate --check compares the served set, as egress --served --check does", () => {
  // Long tier: two CLI generates of a project (the quick tier is at its budget); the served-set
  // comparison itself is checkEgressMap on the served tools, held in the quick tier by egress --served.
  it.runIf(LONG)(
    "a curate() drop is a narrowing of the curated tool; its *_full twin is no widening",
    async () => {
      const spec = join(project, "specs", "launchdarkly-copy.yaml");
      const whole = readFileSync(join(OUTSIDE, "launchdarkly.yaml"), "utf8");
      const operation = whole.slice(whole.indexOf(`  "/flags/{projectKey}/{featureFlagKey}/copy":`), whole.indexOf('  "/flags/{projectKey}/{featureFlagKey}/dependent-flags":'));
      writeFileSync(spec, whole.slice(0, whole.indexOf("\npaths:\n") + 8) + operation + whole.slice(whole.indexOf("\ndefinitions:") + 1));
      expect((await sluice(["generate", "ldl"])).code).toBe(0);
      const curatedFile = join(project, "packs/ldl/src/curated.ts");
      const scaffold = readFileSync(curatedFile, "utf8");
      try {
        writeFileSync(curatedFile, scaffold.replace("export const curated: readonly Tool<object>[] = [];", 'export const curated: readonly Tool<object>[] = [curate(generated.copyFeatureFlag, { drop: ["comment"] })];'));
        const json = JSON.parse((await sluice(["generate", "ldl", "--check", "--json"])).stdout) as { packs: Array<JsonCheck & { changed: string[] }> };
        expect(json.packs[0]!.changed).toContain("egress_map.txt");
        expect(json.packs[0]!.widenings).toEqual([]);
        expect(json.packs[0]!.narrowings.map((n) => [n.tool, n.path, n.kind])).toEqual([["copy_feature_flag", "comment", "member"]]);
      } finally {
        writeFileSync(curatedFile, scaffold);
      }
    },
    SLOW,
  );
});
