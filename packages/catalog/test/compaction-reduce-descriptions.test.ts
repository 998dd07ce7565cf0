import { readFileSync } from "node:fs";
import { tools as githubRest } from "@sluice/pack-github-rest";
import { allTools as gsheets } from "@sluice/pack-gsheets";
import { allTools as linear } from "@sluice/pack-linear";
import { tools as slack } from "@sluice/pack-slack";
import { tools as stripe } from "@sluice/pack-stripe";
import { SINGLE_SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from "@sluice/schema";
import { describe, expect, it } from "vitest";
import { reduceDescription, reduceDescriptions, splitSentences, statesConstraint } from "../src/compaction/index.ts";
import { skipWhenAnyAbsent } from "../../../test/support/skip-when-absent.ts";

interface PackTool {
  name: string;
  description: string;
  inputSchema: object;
}
const packs: Record<string, readonly PackTool[]> = { stripe, "github-rest": githubRest, linear, slack, gsheets };
const utf8 = (text: string): number => Buffer.byteLength(text, "utf8");

/** A description from a pack: the tool's own (pointer "") or the one at a JSON pointer in its input schema. */
function packDescription(pack: string, toolName: string, pointer: string): string {
  const tool = packs[pack]!.find((t) => t.name === toolName);
  if (tool === undefined) throw new Error(`no tool ${toolName} in ${pack}`);
  if (pointer === "") return tool.description;
  let node: unknown = tool.inputSchema;
  for (const token of pointer.split("/").slice(1)) node = (node as Record<string, unknown>)[token.replace(/~1/g, "/").replace(/~0/g, "~")];
  return (node as { description: string }).description;
}

// Real descriptions longer than 160 bytes, and the sentences in them that state a
// constraint, picked by hand (not by the reducer's own splitter).
const REAL: [string, { pack: string; tool: string; pointer: string; constraints: string[] }][] = [
  ["stripe: currency must be supported", { pack: "stripe", tool: "get_balance_history", pointer: "/properties/currency", constraints: ["Only return transactions in a certain currency.", "Must be a [supported currency](https://stripe.com/docs/currencies)."] }],
  ["stripe: up to 20, type or types", { pack: "stripe", tool: "get_events", pointer: "/properties/types", constraints: ["An array of up to 20 strings containing specific event names.", "You may pass either `type` or `types`, but not both."] }],
  ["stripe: only pending", { pack: "stripe", tool: "get_invoiceitems", pointer: "/properties/pending", constraints: ["Set to `true` to only show pending invoice items, which are not yet attached to any invoices.", "Set to `false` to only show invoice items already attached to invoices."] }],
  ["stripe: delete only drafts (HTML tool description)", { pack: "stripe", tool: "delete_invoices_invoice", pointer: "", constraints: ["This cannot be undone.", "Attempts to delete invoices that are no longer in a draft state will fail; once an invoice has been finalized or if an invoice is for a subscription, it must be <a href=\"#void_invoice\">voided</a>."] }],
  ["stripe: live-mode accounts cannot be deleted", { pack: "stripe", tool: "delete_accounts_account", pointer: "", constraints: ["Standard accounts created using live-mode keys cannot be deleted.", "Custom or Express accounts created using live-mode keys can only be deleted once all balances are zero."] }],
  ["github-rest: at most 10 inputs", { pack: "github-rest", tool: "actions_create_workflow_dispatch", pointer: "/properties/inputs", constraints: ["The maximum number of properties is 10.", "Any default properties configured in the workflow file will be used when `inputs` are omitted."] }],
  ["github-rest: only GitHub sets waiting", { pack: "github-rest", tool: "actions_list_workflow_runs", pointer: "/properties/status", constraints: ["Only GitHub can set a status of `waiting` or `requested`."] }],
  ["github-rest: ISO 8601 timestamp and default", { pack: "github-rest", tool: "activity_mark_repo_notifications_as_read", pointer: "/properties/last_read_at", constraints: ["This is a timestamp in [ISO 8601](https://en.wikipedia.org/wiki/ISO_8601) format: `YYYY-MM-DDTHH:MM:SSZ`.", "Default: The current timestamp."] }],
  ["github-rest: one of, inline list", { pack: "github-rest", tool: "actions_create_self_hosted_runner_group_for_org", pointer: "/properties/visibility", constraints: ["Can be one of: `all`, `selected`, or `private`."] }],
  ["github-rest: one of, markdown list", { pack: "github-rest", tool: "actions_create_or_update_org_secret", pointer: "/properties/visibility", constraints: ["`all` - All repositories in an organization can access the secret.", "`private` - Private repositories in an organization can access the secret.", "`selected` - Only specific repositories can access the secret."] }],
  ["linear: at least one stage of each type", { pack: "linear", tool: "administrable_teams_list_full", pointer: "/$defs/ReleaseStageType", constraints: ["Each pipeline must have at least one stage of each type, though only started stages may have multiple instances."] }],
  ["linear: only the owning OAuth app", { pack: "linear", tool: "agent_session_update", pointer: "/$defs/AgentSessionUpdateInput/properties/externalUrls", constraints: ["Only updatable by the OAuth application that owns the session.", "If supplied, addedExternalUrls and removedExternalUrls are ignored."] }],
  ["linear: only with createAsUser", { pack: "linear", tool: "attachment_create", pointer: "/$defs/AttachmentCreateInput/properties/displayIconUrl", constraints: ["Can only be used in conjunction with the `createAsUser` options.", "This option is only available to OAuth applications creating attachments in `actor=app` mode."] }],
  ["linear: ISO 8601, with an e.g", { pack: "linear", tool: "administrable_teams_list", pointer: "/$defs/DateComparator/properties/in/items", constraints: ["Represents a date and time in ISO 8601 format.", "Also accepts ISO 8601 durations strings which are added to the current date to create the represented date (e.g '-P2W1D' represents the date that was two weeks and 1 day ago)"] }],
  ["slack: required otherwise", { pack: "slack", tool: "calls_add", pointer: "/properties/created_by", constraints: ["When this method is called with a user token, the `created_by` field is optional and defaults to the authed user of the token.", "Otherwise, the field is required."] }],
  ["slack: must be used with as_user", { pack: "slack", tool: "chat_post_ephemeral", pointer: "/properties/icon_emoji", constraints: ["Must be used in conjunction with `as_user` set to `false`, otherwise ignored."] }],
  ["slack: required for single-workspace channels", { pack: "slack", tool: "admin_conversations_restrict_access_add_group", pointer: "/properties/team_id", constraints: ["This argument is required for channels only tied to one workspace, and optional for channels that are shared across an organization."] }],
  ["gsheets: at least one field, quoted dots", { pack: "gsheets", tool: "sheets_spreadsheets_batch_update", pointer: "/$defs/AppendCellsRequest/properties/fields", constraints: ["At least one field must be specified.", "The root is the CellData; 'row.values.' should not be specified."] }],
  ["gsheets: between -90 and 90", { pack: "gsheets", tool: "sheets_spreadsheets_batch_update", pointer: "/$defs/TextRotation/properties/angle", constraints: ["Valid values are between -90 and 90."] }],
  ["gsheets: requires a scope", { pack: "gsheets", tool: "sheets_spreadsheets_batch_update_full", pointer: "/$defs/AddDataSourceRequest", constraints: ["The request requires an additional `bigquery.readonly` OAuth scope."] }],
];

describe("reduceDescription on real descriptions", () => {
  it.each(REAL)("%s", (_name, { pack, tool, pointer, constraints }) => {
    const description = packDescription(pack, tool, pointer);
    expect(utf8(description)).toBeGreaterThan(160);
    const reduced = reduceDescription(description);
    for (const sentence of constraints) {
      expect(description).toContain(sentence);
      expect(reduced).toContain(sentence);
    }
    expect(utf8(reduced)).toBeLessThanOrEqual(utf8(description));
  });
});

describe("splitSentences", () => {
  it.each<[string, { given: string; want: string[] }]>([
    ["abbreviations", { given: "Use a filter, e.g. `state`, i.e. open ones, etc. and more. Compare vs. the base. Done.", want: ["Use a filter, e.g. `state`, i.e. open ones, etc. and more.", "Compare vs. the base.", "Done."] }],
    ["version numbers and decimals", { given: "Requires version 1.2.3 or later. A ratio of 0.5 halves it. Next.", want: ["Requires version 1.2.3 or later.", "A ratio of 0.5 halves it.", "Next."] }],
    ["dotted names and URLs", { given: "Runs on Node.js and Deno. See https://api.example.com/v1.2/docs. Then stop.", want: ["Runs on Node.js and Deno.", "See https://api.example.com/v1.2/docs.", "Then stop."] }],
    ["HTML paragraphs", { given: "<p>First one.</p>\n\n<p>Second one.</p>", want: ["First one.", "Second one."] }],
    ["a list stays with its intro", { given: "Pick one of:\n\n- `a`\n- `b`\n\nAfter.", want: ["Pick one of:\n\n- `a`\n- `b`", "After."] }],
  ])("%s", (_name, { given, want }) => {
    expect(splitSentences(given)).toEqual(want);
  });
});

describe("reduceDescription", () => {
  it("keeps descriptions of at most 160 bytes as they are", () => {
    const exactly160 = "a".repeat(159) + ".";
    expect(reduceDescription(exactly160)).toBe(exactly160);
  });

  it("keeps the first other sentence capped at 80 bytes on a code-point boundary, constraints whole", () => {
    const lead = "Überprüft 😀 die Eingabe gründlich und vollständig, bevor irgendetwas anderes passiert, wirklich alles.";
    const filler = "This sentence adds colour and nothing else to the text.";
    const constraint = "The value must be at most 64 characters.";
    const reduced = reduceDescription(`${lead} ${filler} ${constraint} ${filler}`);
    expect(reduced.endsWith(` ${constraint}`)).toBe(true);
    const head = reduced.slice(0, -constraint.length - 1);
    expect(utf8(head)).toBeLessThanOrEqual(80);
    expect(head.endsWith("…")).toBe(true);
    expect(lead.startsWith(head.slice(0, -1))).toBe(true);
    expect(reduced).not.toContain("colour");
  });

  it("changes only description strings in a catalog: names, types, enum, required, default, const, $ref survive", () => {
    const long = "Pick a colour for the label shown beside the item in every list view of the app. It looks nice in the dark theme too, and in the light one. The value must be a hex code.";
    const catalog = JSON.stringify([
      { name: "t", description: long, input_schema: { type: "object", required: ["description"], properties: { description: { type: "string", description: long, enum: [long], default: long, const: long }, ref: { $ref: "#/$defs/D" } }, $defs: { D: { description: long, examples: [long] } } } },
    ]);
    const { text, report } = reduceDescriptions(catalog);
    expect(report).toMatchObject({ method: "reduce-descriptions", lossless: false, adopted: true, reduced: 3 });
    const short = reduceDescription(long);
    expect(short).toBe("Pick a colour for the label shown beside the item in every list view of the app. The value must be a hex code.");
    expect(JSON.parse(text)).toEqual([
      { name: "t", description: short, input_schema: { type: "object", required: ["description"], properties: { description: { type: "string", description: short, enum: [long], default: long, const: long }, ref: { $ref: "#/$defs/D" } }, $defs: { D: { description: short, examples: [long] } } } },
    ]);
  });

  it("returns invalid JSON and catalogs with nothing to shorten untouched", () => {
    for (const input of ["[{", '[{"name":"t","description":"short"}]']) {
      const result = reduceDescriptions(input);
      expect(result.text).toBe(input);
      expect(result.report.adopted).toBe(false);
    }
  });
});

// ---------------------------------------------------------------- corpus invariants

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every schema description and tool description blanked, positionally. */
function blankDescriptions(catalog: Json): Json {
  const schema = (node: Json): void => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    if (typeof node.description === "string") node.description = "";
    for (const [key, value] of Object.entries(node)) {
      if (SUBSCHEMA_MAP_KEYWORDS.has(key) && value && typeof value === "object" && !Array.isArray(value)) Object.values(value).forEach(schema);
      else if (SUBSCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) value.forEach(schema);
      else if (SINGLE_SUBSCHEMA_KEYWORDS.has(key)) schema(value);
    }
  };
  for (const tool of catalog as { description: string; input_schema: Json }[]) {
    tool.description = "";
    schema(tool.input_schema);
  }
  return catalog;
}

function expectConstraintsKept(description: string): void {
  const reduced = reduceDescription(description);
  for (const sentence of splitSentences(description)) if (statesConstraint(sentence)) expect(reduced).toContain(sentence);
  expect(utf8(reduced)).toBeLessThanOrEqual(utf8(description));
}

describe("reduceDescriptions over the packs", () => {
  const catalog = Object.values(packs).flatMap((tools) => tools.slice(0, 60).map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })));
  const text = JSON.stringify(catalog, null, 1);
  const { text: reduced, report } = reduceDescriptions(text);

  it("shortens, and every byte outside description strings survives", () => {
    expect(report.adopted).toBe(true);
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore);
    expect(blankDescriptions(JSON.parse(reduced) as Json)).toEqual(blankDescriptions(JSON.parse(text) as Json));
  });

  it("keeps every constraint sentence of every description", () => {
    const seen = new Set<string>();
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node !== null && typeof node === "object") {
        for (const [key, value] of Object.entries(node)) {
          if (key === "description" && typeof value === "string") seen.add(value);
          else collect(value);
        }
      }
    };
    collect(catalog);
    for (const description of seen) expectConstraintsKept(description);
  });
});

describe("reduceDescription over the vendored specs", () => {
  const specs = ["../../../../shared/specs/sendgrid/oai_v3_stoplight.json", "../../../../shared/specs/kubernetes/swagger.json", "../../../../shared/specs/notion/notion-openapi.json"].map((path) => new URL(path, import.meta.url));
  const inputs = skipWhenAnyAbsent(specs);
  it.skipIf(inputs.skip)(inputs.title("keeps every constraint sentence of every description in sendgrid, kubernetes and notion"), () => {
    const seen = new Set<string>();
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node !== null && typeof node === "object") {
        for (const [key, value] of Object.entries(node)) {
          if (key === "description" && typeof value === "string") seen.add(value);
          else collect(value);
        }
      }
    };
    for (const url of specs) collect(JSON.parse(readFileSync(url, "utf8")));
    expect(seen.size).toBeGreaterThan(1_000);
    for (const description of seen) expectConstraintsKept(description);
  });
});
