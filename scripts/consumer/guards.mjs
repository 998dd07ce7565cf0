// Runs in the consumer project on plain `node` (no loader): the installed tarballs only.
// The guards are not a public switchboard: importing them from the installed @sluice/core
// gives a frozen object and a withoutGuard that refuses, so redaction stays on; a call whose
// API echoes the credential back still hands the caller `[redacted]`, never the secret.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { guards, guardsFixed, withoutGuard } from "@sluice/core/guards";
import { tools } from "@sluice/pack-linear";

const SECRET = "lin_api_consumer_guard_0123456789";

assert.equal(guardsFixed, true, "the installed build fixes the guards");
assert.throws(() => {
  guards.redaction = false;
}, TypeError);
await assert.rejects(
  withoutGuard("redaction", () => "switched"),
  (error) => error?.code === "INVALID_OPTION",
);
assert.equal(guards.redaction, true);

// An API that puts the Authorization header it got into the answer.
const api = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ data: { issues: { nodes: [{ id: "i1", title: `echo ${req.headers.authorization}` }], pageInfo: { hasNextPage: false, endCursor: null } } } }));
  });
});
await new Promise((resolve) => api.listen(0, "127.0.0.1", resolve));
try {
  const endpoint = `http://127.0.0.1:${api.address().port}/graphql`;
  const issues = tools.find((tool) => tool.name === "issues_list");
  const output = await issues.derived({ name: "echo_issues", returns: ["nodes.id", "nodes.title"] }).call({ first: 1 }, { baseUrl: endpoint, credentials: () => ({ token: SECRET }) });
  const text = JSON.stringify(output);
  assert.ok(!text.includes(SECRET), `the credential reached the caller: ${text}`);
  assert.match(text, /\[redacted\]/);
  console.log("consumer guards: ok (frozen, withoutGuard refused, an echoed credential redacted)");
} finally {
  api.close();
}
