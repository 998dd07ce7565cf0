// The floor under `serve` to the first full tools/list: a throwaway node server that answers
// initialize and every tools/list page with bytes it recorded from a real server beforehand
// (read from a file at its start, written as they are), timed at the same raw JSON-RPC client
// as the server itself, in interleaved rounds. What the floor takes is node's start, reading
// the recorded pages, the pipe and the client's own JSON.parse: no server can answer sooner.
//
//   cd <project with the pack>
//   node <repo>/bench/startup/list-floor.mjs <rounds> <server args...> [--vs <label> [--no-cache DIR] <server args...>]...
//   e.g. node bench/startup/list-floor.mjs 5 bench/startup/sluice-dist.mjs serve packs/k8x8 --page-size 100 --no-usage
//
// Each `--vs` adds another server to the rounds (timed after the same recorded floor; its
// ratio is to the first server's); `--no-cache DIR` removes DIR (a stat cache) before each of
// its runs, so that every run of that server verifies the list in full.
//
// (`--serve <pages file>` is the floor server itself.)
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

if (process.argv[2] === "--serve") {
  // The recorded answers, one result a line (initialize's first), each request given the next.
  // Read per answer into buffers used again once written (fresh memory costs a page fault per
  // 4 KiB: reading all 112 MiB up front would cost this server more than serve pays for its list).
  const fd = openSync(process.argv[3], "r");
  const ends = JSON.parse(readFileSync(`${process.argv[3]}.ends.json`, "utf8"));
  const spare = [];
  let next = 0;
  let held = "";
  process.stdin.on("data", (chunk) => {
    held += chunk.toString("utf8");
    for (let end = held.indexOf("\n"); end >= 0; end = held.indexOf("\n")) {
      const message = JSON.parse(held.slice(0, end));
      held = held.slice(end + 1);
      if (message.id === undefined) continue;
      const head = Buffer.from(`{"jsonrpc":"2.0","id":${message.id},"result":`);
      const from = next === 0 ? 0 : ends[next - 1] + 1;
      const length = head.length + ends[next] - from + 2;
      next += 1;
      let buffer = spare.pop();
      if (buffer === undefined || buffer.length < length) buffer = Buffer.allocUnsafeSlow(Math.max(length, 2 << 20));
      head.copy(buffer, 0);
      readSync(fd, buffer, head.length, length - head.length - 2, from);
      buffer[length - 2] = 0x7d;
      buffer[length - 1] = 0x0a;
      process.stdout.write(buffer.subarray(0, length), () => spare.push(buffer));
    }
  });
} else {
  const rounds = Number(process.argv[2]);
  // The first server, then each --vs variant: [label, args, folder removed before each run].
  const groups = [[]];
  for (const arg of process.argv.slice(3)) {
    if (arg === "--vs") groups.push([]);
    else groups.at(-1).push(arg);
  }
  const server = groups[0];
  const variants = groups.slice(1).map(([label, ...rest]) => (rest[0] === "--no-cache" ? { label, clear: rest[1], args: rest.slice(2) } : { label, clear: undefined, args: rest }));
  const dir = mkdtempSync(join(tmpdir(), "list-floor-"));
  const pagesFile = join(dir, "pages.jsonl");
  const floor = [fileURLToPath(import.meta.url), "--serve", pagesFile];

  /** Spawns `args`, initializes, lists every page; ms to the last page, and each answer's result bytes when `record`. */
  const list = (args, record) =>
    new Promise((done, fail) => {
      const start = performance.now();
      const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "ignore"] });
      const results = [];
      const waiting = new Map();
      let held = [];
      child.stdout.on("data", (chunk) => {
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10)) {
          const line = held.length === 0 ? chunk.subarray(0, at) : Buffer.concat([...held, chunk.subarray(0, at)]);
          held = [];
          chunk = chunk.subarray(at + 1);
          const message = JSON.parse(line.toString("utf8"));
          if (record) results.push(Buffer.from(JSON.stringify(message.result)));
          waiting.get(message.id)?.(message);
        }
        if (chunk.length > 0) held.push(chunk);
      });
      child.once("exit", (code) => (code === 0 ? undefined : fail(new Error(`${args.join(" ")} exited ${code}`))));
      let id = 0;
      const request = (method, params) =>
        new Promise((answered) => {
          id += 1;
          waiting.set(id, answered);
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
        });
      void (async () => {
        await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "list-floor", version: "0" } });
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
        let cursor;
        let tools = 0;
        do {
          const answer = await request("tools/list", cursor === undefined ? {} : { cursor });
          tools += answer.result.tools.length;
          cursor = answer.result.nextCursor;
        } while (cursor !== undefined);
        const ms = performance.now() - start;
        child.stdin.end();
        child.once("exit", () => done({ ms, tools, results }));
      })().catch(fail);
    });

  const recorded = await list(server, true);
  writeFileSync(pagesFile, Buffer.concat(recorded.results.flatMap((result) => [result, Buffer.from("\n")])));
  let offset = -1;
  writeFileSync(`${pagesFile}.ends.json`, JSON.stringify(recorded.results.map((result) => (offset += result.length + 1))));
  const load = () => loadavg().map((n) => n.toFixed(1)).join(" ");
  console.log(`${recorded.tools} tools in ${recorded.results.length - 1} pages (${(readFileSync(pagesFile).length / 1024 ** 2).toFixed(1)} MiB recorded); load ${load()}`);
  // The client's own share, with no process or pipe: JSON.parse of the same lines, in this process (best of 3).
  const parse = [0, 1, 2].map(() => {
    const start = performance.now();
    for (const result of recorded.results) JSON.parse(result.toString("utf8"));
    return performance.now() - start;
  });
  console.log(`JSON.parse of the recorded answers alone (decode + parse, in-process): ${Math.min(...parse).toFixed(0)} ms (best of 3)`);
  const runs = [{ label: "floor", args: floor }, { label: "server", args: server }, ...variants];
  const times = Object.fromEntries(runs.map((run) => [run.label, []]));
  for (let round = 0; round < rounds; round++) {
    // The order rotates, so none always runs first or after the same one.
    for (let i = 0; i < runs.length; i++) {
      const run = runs[(i + round) % runs.length];
      if (run.clear !== undefined) rmSync(run.clear, { recursive: true, force: true });
      times[run.label].push((await list(run.args, false)).ms);
    }
    const others = runs.slice(2).map((run) => `, ${run.label} ${times[run.label].at(-1).toFixed(0)} ms (${(times[run.label].at(-1) / times.server.at(-1)).toFixed(2)}x server)`).join("");
    console.log(`round ${round + 1}: floor ${times.floor.at(-1).toFixed(0)} ms, server ${times.server.at(-1).toFixed(0)} ms, ratio ${(times.server.at(-1) / times.floor.at(-1)).toFixed(2)}x${others}`);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const ratios = times.server.map((ms, i) => ms / times.floor[i]);
  const others = runs.slice(2).map((run) => `, ${run.label} ${median(times[run.label]).toFixed(0)} ms (per round ${median(times[run.label].map((ms, i) => ms / times.server[i])).toFixed(2)}x server)`).join("");
  console.log(`median: floor ${median(times.floor).toFixed(0)} ms, server ${median(times.server).toFixed(0)} ms, per-round ratio ${median(ratios).toFixed(2)}x${others}; load ${load()}`);
  rmSync(dir, { recursive: true, force: true });
}
