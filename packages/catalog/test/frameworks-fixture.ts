/**
 * What the framework tests share: a mock of GitHub's REST API on 127.0.0.1 that records
 * every request, and a curated github-rest tool as a user would write it (assignees
 * withheld, owner and repo pinned), called with a token from the environment.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { credentialsFromEnv, tools } from "@sluice/pack-github-rest";
import type { CallContext, Tool } from "@sluice/core";

export const TOKEN = "ghp_frameworkTestToken0123456789abcdef";

export interface RecordedRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

export interface MockGitHub {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Answers issue creation with a full issue (fields the model does not need included) that echoes the token back. */
export async function startMockGitHub(): Promise<MockGitHub> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body: unknown = text === "" ? undefined : JSON.parse(text);
    requests.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body });
    const title = typeof body === "object" && body !== null && "title" in body ? body.title : null;
    res.writeHead(201, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: 9001,
        number: 7,
        title,
        state: "open",
        html_url: "https://github.com/acme/widgets/issues/7",
        // An API that echoes what it was sent: the token must never reach the model.
        body: `created with ${req.headers.authorization ?? "no auth"}`,
        user: { login: "octocat", id: 1, avatar_url: "https://avatars.githubusercontent.com/u/1", gravatar_id: "", type: "User", site_admin: false },
        reactions: { url: "https://api.github.com/repos/acme/widgets/issues/7/reactions", total_count: 0, "+1": 0, "-1": 0 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** The curated tool: the model may set title, body, labels and milestone of an issue in acme/widgets, nobody's assignment. */
export function createIssueTool(): Tool<object> {
  const issuesCreate = tools.find((tool) => tool.name === "issues_create");
  if (issuesCreate === undefined) throw new Error("github-rest has no issues_create");
  return issuesCreate.derived({ name: "create_issue", drop: ["assignees", "assignee"], pin: { owner: "acme", repo: "widgets" } });
}

/** The call context an application gives: the token from its environment, the mock as the API. */
export function contextFor(api: MockGitHub): CallContext {
  return { credentials: credentialsFromEnv({ GITHUB_TOKEN: TOKEN }), baseUrl: api.url };
}

/** The model's turns every framework test plays, as argument texts. */
export const CALLS = {
  valid: JSON.stringify({ title: "Widget falls over", body: "Steps: push it.", labels: ["bug"] }),
  withheld: JSON.stringify({ title: "Assign me", assignees: ["mallory"] }),
  wrongType: JSON.stringify({ title: "Bad labels", labels: 5, milestone: { id: 1 } }),
  notJson: '{"title": "truncated',
} as const;
