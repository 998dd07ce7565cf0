/**
 * Payload bytes against context bytes: replays a workload of calls across the packs
 * against local servers (the vendored Linear and GitHub GraphQL schemas executed with
 * deterministic mocks; OpenAPI mocks that validate every request against the vendored
 * Stripe, GitHub REST, Slack, Gmail and Notion documents), with each pack's response
 * handlers in the loop. Every answer is checked: the ids, cursor and more-pages flag the
 * next call needs must still be in what the model gets, and each paginated call is
 * followed by the next page's call built from `nextPageArgs`.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-calls.ts [--list-length N] [--out bench/CALLS.md]
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CallCollector, collecting, missingMarkers, pageMarkers, valueAt, type CallContext, type CallResult, type Tool } from "@sluice/core";
import { allTools as linearTools } from "@sluice/pack-linear";
import { tools as githubTools } from "@sluice/pack-github";
import { tools as stripeTools } from "@sluice/pack-stripe";
import { tools as githubRestTools } from "@sluice/pack-github-rest";
import { tools as slackTools } from "@sluice/pack-slack";
import { tools as gmailTools } from "@sluice/pack-gmail";
import { tools as notionTools } from "@sluice/pack-notion";
import { startGraphQLServer, startOpenApiMockServer, type LocalServer } from "../test/support/servers/index.ts";

const { values: options } = parseArgs({ options: { "list-length": { type: "string", default: "10" }, out: { type: "string", default: "bench/CALLS.md" } } });
const listLength = Number(options["list-length"]);
const spec = (path: string) => fileURLToPath(new URL(`../packs/${path}`, import.meta.url));

interface Step {
  pack: string;
  tool: Tool<object>;
  args: Record<string, unknown>;
  /** Follow with the next page's call when there is one. */
  nextPage?: boolean;
}

function find(tools: readonly Tool<object>[], name: string): Tool<object> {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

const servers: Record<string, LocalServer> = {};
const contexts: Record<string, () => CallContext> = {};

async function start(): Promise<void> {
  const [linear, github, stripe, githubRest, slack, gmail, notion] = await Promise.all([
    startGraphQLServer({ sdlFile: spec("linear/spec/schema.graphql"), listLength }),
    startGraphQLServer({ sdlFile: spec("github/spec/schema.graphql"), listLength }),
    startOpenApiMockServer({ specFile: spec("stripe/spec/spec3.json"), listLength }),
    startOpenApiMockServer({ specFile: spec("github-rest/spec/api.github.com.json"), listLength }),
    startOpenApiMockServer({ specFile: spec("slack/spec/slack_web_openapi_v2_without_examples.json"), listLength }),
    startOpenApiMockServer({ specFile: spec("gmail/spec/gmail-v1.yaml"), listLength }),
    startOpenApiMockServer({ specFile: spec("notion/spec/notion-openapi.json"), listLength }),
  ]);
  Object.assign(servers, { linear, github, stripe, "github-rest": githubRest, slack, gmail, notion });
  const token = () => ({ token: "test-token" });
  contexts.linear = () => ({ baseUrl: `${linear.url}/graphql`, credentials: token });
  contexts.github = () => ({ baseUrl: `${github.url}/graphql`, credentials: token });
  contexts.stripe = () => ({ baseUrl: stripe.url, credentials: (scheme) => (scheme.type === "basic" ? { username: "sk_test", password: "" } : token()) });
  contexts["github-rest"] = () => ({ baseUrl: githubRest.url, credentials: token });
  contexts.slack = () => ({ baseUrl: slack.url, credentials: token });
  contexts.gmail = () => ({ baseUrl: gmail.url, credentials: token });
  contexts.notion = () => ({ baseUrl: notion.url, credentials: token });
}

function workload(): Step[] {
  const repo = { owner: "octo", repo: "hello" };
  return [
    { pack: "linear", tool: find(linearTools, "issues_list"), args: { first: listLength }, nextPage: true },
    { pack: "linear", tool: find(linearTools, "issues_list_full"), args: { first: listLength } },
    { pack: "linear", tool: find(linearTools, "issue"), args: { id: "issue-1" } },
    { pack: "linear", tool: find(linearTools, "teams_list"), args: { first: listLength }, nextPage: true },
    { pack: "linear", tool: find(linearTools, "projects_list"), args: { first: listLength } },
    { pack: "linear", tool: find(linearTools, "comments_list"), args: { first: listLength } },
    { pack: "linear", tool: find(linearTools, "users_list"), args: { first: listLength } },
    { pack: "linear", tool: find(linearTools, "cycles_list"), args: { first: listLength } },
    { pack: "github", tool: find(githubTools, "repository"), args: { owner: "octo", name: "hello" } },
    { pack: "github", tool: find(githubTools, "viewer"), args: {} },
    { pack: "stripe", tool: find(stripeTools, "get_customers"), args: { limit: listLength }, nextPage: true },
    { pack: "stripe", tool: find(stripeTools, "get_charges"), args: { limit: listLength }, nextPage: true },
    { pack: "stripe", tool: find(stripeTools, "get_invoices"), args: { limit: listLength } },
    { pack: "stripe", tool: find(stripeTools, "get_payment_intents"), args: { limit: listLength } },
    { pack: "stripe", tool: find(stripeTools, "get_subscriptions"), args: { limit: listLength } },
    { pack: "stripe", tool: find(stripeTools, "get_customers_customer"), args: { customer: "cus_1" } },
    { pack: "github-rest", tool: find(githubRestTools, "issues_list_for_repo"), args: { ...repo, per_page: listLength }, nextPage: true },
    { pack: "github-rest", tool: find(githubRestTools, "pulls_list"), args: { ...repo, per_page: listLength } },
    { pack: "github-rest", tool: find(githubRestTools, "repos_list_commits"), args: { ...repo, per_page: listLength } },
    { pack: "github-rest", tool: find(githubRestTools, "issues_list_comments"), args: { ...repo, issue_number: 1 } },
    { pack: "github-rest", tool: find(githubRestTools, "repos_get"), args: repo },
    { pack: "github-rest", tool: find(githubRestTools, "issues_get"), args: { ...repo, issue_number: 1 } },
    // Slack's document leaves `response_metadata` out of this answer's schema, so the mock
    // never sends a cursor; the conformance test covers Slack cursors with answers that do.
    { pack: "slack", tool: find(slackTools, "conversations_history"), args: { channel: "C123", limit: listLength } },
    { pack: "slack", tool: find(slackTools, "conversations_list"), args: { limit: listLength } },
    { pack: "slack", tool: find(slackTools, "conversations_replies"), args: { channel: "C123", ts: 1700000000.0001 } }, // the spec types `ts` as a number
    { pack: "slack", tool: find(slackTools, "users_list"), args: { limit: listLength } },
    { pack: "gmail", tool: find(gmailTools, "gmail_users_messages_list"), args: { userId: "me", maxResults: listLength }, nextPage: true },
    { pack: "gmail", tool: find(gmailTools, "gmail_users_messages_get"), args: { userId: "me", id: "m1" } },
    { pack: "gmail", tool: find(gmailTools, "gmail_users_threads_get"), args: { userId: "me", id: "t1" } },
    { pack: "gmail", tool: find(gmailTools, "gmail_users_threads_list"), args: { userId: "me", maxResults: listLength } },
    { pack: "notion", tool: find(notionTools, "query_data_source"), args: { data_source_id: "ds1", page_size: listLength }, nextPage: true },
    { pack: "notion", tool: find(notionTools, "post_search"), args: { query: "roadmap", page_size: listLength } },
    { pack: "notion", tool: find(notionTools, "retrieve_a_page"), args: { page_id: "p1" } },
  ];
}

/** The answer's own id (a single object), read where each API puts it. */
function rootId(tool: Tool<object>, body: unknown): string | number | undefined {
  const value = tool.binding.kind === "graphql" ? valueAt(body, `data.${tool.binding.field}.id`) : valueAt(body, "id");
  return typeof value === "string" || typeof value === "number" ? value : undefined;
}

interface Row {
  pack: string;
  tool: string;
  page: number;
  payloadBytes: number;
  contextBytes: number;
  missing: string[];
}

async function main(): Promise<void> {
  await start();
  const collector = new CallCollector();
  const rows: Row[] = [];
  const failures: string[] = [];
  const check = (step: Step, result: CallResult, page: number): void => {
    const markers = pageMarkers(step.tool.pagination, result.body, result.headers);
    const id = rootId(step.tool, result.body);
    if (id !== undefined) markers.ids.push(id);
    rows.push({ pack: step.pack, tool: step.tool.name, page, payloadBytes: result.payloadBytes, contextBytes: result.contextBytes, missing: missingMarkers(markers, result.output) });
  };
  await collecting(collector, async () => {
    for (const step of workload()) {
      try {
        const result = await step.tool.invoke(step.args, contexts[step.pack]!());
        check(step, result, 1);
        if (step.nextPage) {
          if (result.nextPageArgs === undefined) throw new Error("the answer declares no next page");
          check(step, await step.tool.invoke(result.nextPageArgs, contexts[step.pack]!()), 2);
        }
      } catch (error) {
        failures.push(`${step.pack}/${step.tool.name}: ${(error as Error).message.split("\n")[0]}`);
      }
    }
  });
  await Promise.all(Object.values(servers).map((server) => server.close()));

  const summary = collector.summary();
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  const lines = [
    "# Calls: payload bytes against context bytes",
    "",
    `Command: \`node --conditions=@sluice/source --import tsx scripts/bench-calls.ts --list-length ${listLength}\``,
    "",
    `${summary.calls} calls (${rows.filter((r) => r.page === 2).length} of them next-page calls built from \`nextPageArgs\`) against local servers on 127.0.0.1:`,
    "GraphQL schemas executed with deterministic mocks, OpenAPI mocks validating every request",
    `against the vendored spec and answering spec-shaped bodies (examples where the spec has them,`,
    `otherwise every property filled; top-level lists of ${listLength} items). Payload: bytes of the body as read;`,
    "context: the pack's response handler's result as compact JSON. `kept` checks that every id,",
    "cursor and more-pages flag of the raw answer (also when false) is still in what the model gets.",
    "",
    `**Overall: ${kib(summary.payloadBytes)} KiB -> ${kib(summary.contextBytes)} KiB, ${summary.ratio.toFixed(2)}x; failed calls: ${summary.failed + failures.length}; markers lost: ${rows.filter((r) => r.missing.length > 0).length}.**`,
    "",
    "| pack | tool | page | payload B | context B | ratio | kept |",
    "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ...rows.map((r) => `| ${r.pack} | ${r.tool} | ${r.page} | ${r.payloadBytes} | ${r.contextBytes} | ${(r.payloadBytes / Math.max(1, r.contextBytes)).toFixed(2)}x | ${r.missing.length === 0 ? "yes" : `NO: ${r.missing.slice(0, 3).join(", ")}`} |`),
    "",
    "By pack:",
    "",
    "| pack | calls | payload B | context B | ratio |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...[...new Set(rows.map((r) => r.pack))].map((pack) => {
      const own = rows.filter((r) => r.pack === pack);
      const payload = own.reduce((s, r) => s + r.payloadBytes, 0);
      const context = own.reduce((s, r) => s + r.contextBytes, 0);
      return `| ${pack} | ${own.length} | ${payload} | ${context} | ${(payload / Math.max(1, context)).toFixed(2)}x |`;
    }),
    "",
    ...(failures.length > 0 ? ["Failed calls:", "", ...failures.map((f) => `- ${f}`), ""] : []),
  ];
  await writeFile(options.out!, lines.join("\n"));
  console.log(lines.slice(0, 13).join("\n"));
  if (failures.length > 0 || rows.some((r) => r.missing.length > 0)) {
    console.error([...failures, ...rows.filter((r) => r.missing.length > 0).map((r) => `${r.tool} lost ${r.missing.join(", ")}`)].join("\n"));
    process.exitCode = 1;
  }
}

await main();
