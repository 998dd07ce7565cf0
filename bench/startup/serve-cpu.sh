#!/usr/bin/env bash
# CPU time (user+sys, /usr/bin/time) of `sluice serve` of the 500 GitHub REST tools from the
# compiled dist/ of one or more checkouts, beside the bare SDK server, in interleaved rounds:
# each process gets initialize and one tools/list on stdin, answers, and exits when stdin closes.
# CPU time of one process is steadier than wall time on a loaded machine.
#   bench/startup/serve-cpu.sh ROUNDS TOOLS_JSON LABEL=DIR ...
# DIR is a checkout (or a copy of its built tree) with this folder and a built dist/; TOOLS_JSON is
# the 500 definitions the bare server lists (scripts/bench-startup.ts writes them; or save a tools/list).
set -euo pipefail
rounds=$1 tools=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
requests() {
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"serve-cpu","version":"0"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}'
}
cpu() { # label dir args...: prints "label seconds"
  local label=$1 dir=$2; shift 2
  local out; out=$(cd "$dir" && requests | GITHUB_TOKEN=bench-token /usr/bin/time -f "%U %S" node "$@" 2>&1 >/dev/null | tail -1)
  echo "$label $(echo "$out" | awk '{print $1 + $2}')"
}
uptime >&2
for round in $(seq 1 "$rounds"); do
  for spec in "$@"; do
    cpu "${spec%%=*}" "${spec#*=}" bench/startup/sluice-dist.mjs serve bench/startup/github-rest-500.mjs --page-size 500
  done
  cpu bare "$here/../.." bench/startup/bare-mcp-server.mjs "$tools"
done | node -e '
  const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").map((line) => line.split(" "));
  const by = {};
  for (const [label, s] of rows) (by[label] ??= []).push(Number(s));
  const median = (v) => { const s = [...v].sort((a, b) => a - b), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  for (const [label, v] of Object.entries(by)) console.log(`${label}: median ${median(v).toFixed(2)} s CPU, ${median(v.map((x, i) => x / by.bare[i])).toFixed(2)}x the bare server (per-round ratios), [${v.join(" ")}]`);
'
uptime >&2
