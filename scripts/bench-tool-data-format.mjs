// What a pack's tool data costs to import in each form a generated module could hold it in,
// on plain node: the tool IR of a generated pack-data.gen.ts (or of a tools.gen.ts of either
// form before the data moved there), or its definitions (`defTexts`), rewritten as
//   template    JSON.parse(`...`)                      (the form before: one template literal)
//   string      JSON.parse('...')                      (one single-quoted literal, line continuations)
//   per-tool    ['{...}', ...].map((t) => JSON.parse(t)) (one literal per tool: the form now, for tools and defs)
//   json-file   JSON.parse(readFileSync(sibling .json)) (the floor; breaks bundlers)
// Each variant is a module of its own, imported by a fresh node, rounds interleaved: the CPU
// time of the import (process.cpuUsage around it, user + system) and the child's peak RSS.
//   node scripts/bench-tool-data-format.mjs <pack-data.gen.ts | tools.gen.ts> [rounds] [toolTexts | defTexts]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [file, roundsText = "2", table = "toolTexts"] = process.argv.slice(2);
if (file === undefined || !["toolTexts", "defTexts"].includes(table)) {
  process.stderr.write("usage: node scripts/bench-tool-data-format.mjs <pack-data.gen.ts | tools.gen.ts> [rounds] [toolTexts | defTexts]\n");
  process.exit(2);
}
const rounds = Number(roundsText);
const source = readFileSync(file, "utf8");

/** The table's JSON texts, one per record, from pack-data.gen.ts or (tools only) either form of tools.gen.ts. */
function toolTexts(text) {
  const data = text.indexOf(`\nexport const ${table} = [\n`);
  if (data >= 0) {
    const start = text.indexOf("[", data);
    return new Function(`return ${text.slice(start, text.indexOf("\n];", start) + 2)};`)();
  }
  if (table !== "toolTexts") throw new Error(`${file} has no ${table} table`);
  const template = text.indexOf("JSON.parse(`[");
  if (template >= 0) {
    const body = text.slice(template + "JSON.parse(`".length, text.indexOf("`)", template)).replaceAll("\\\\", "\\");
    return (JSON.parse(body)).map((tool) => JSON.stringify(tool));
  }
  const start = text.indexOf("const toolsIR: readonly ToolIR[] = ");
  const end = text.indexOf(".map((text) => JSON.parse(text))", start);
  const array = text.slice(start + "const toolsIR: readonly ToolIR[] = ".length, end);
  return new Function(`return ${array};`)();
}

const tools = toolTexts(source);
const json = `[\n${tools.join(",\n")}\n]`;
const quoted = (body) => body.replaceAll("\\", "\\\\").replaceAll("'", "\\'");
const dir = mkdtempSync(join(tmpdir(), "sluice-tool-data-format-"));
const tail = "\nif (t.length !== " + tools.length + ") throw new Error('lost tools');\n";
const variants = {
  template: "const t = JSON.parse(`" + json.replaceAll("\\", "\\\\").replaceAll("`", "\\u0060").replaceAll("${", "\\u0024{") + "`);" + tail,
  string: "const t = JSON.parse('" + quoted(json).replaceAll("\n", "\\\n") + "');" + tail,
  "per-tool": "const t = [\n" + tools.map((tool) => `  '${quoted(tool)}'`).join(",\n") + "\n].map((text) => JSON.parse(text));" + tail,
  "json-file": "import { readFileSync } from 'node:fs';\nconst t = JSON.parse(readFileSync(new URL('./data.json', import.meta.url), 'utf8'));" + tail,
};
writeFileSync(join(dir, "data.json"), json);
for (const [name, text] of Object.entries(variants)) writeFileSync(join(dir, `${name}.mjs`), text);

const measure = (name) => {
  const probe = `const u0 = process.cpuUsage(); await import(${JSON.stringify(join(dir, `${name}.mjs`))}); const u = process.cpuUsage(u0); process.stdout.write(JSON.stringify({ cpu: (u.user + u.system) / 1000, rss: process.resourceUsage().maxRSS / 1024 }));`;
  const done = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (done.status !== 0) throw new Error(`${name}: ${done.stderr}`);
  return JSON.parse(done.stdout);
};
const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < rounds; round += 1) for (const name of Object.keys(variants)) samples[name].push(measure(name));
rmSync(dir, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const base = median(samples.template.map((s) => s.cpu));
console.log(`${tools.length} ${table === "toolTexts" ? "tools" : "definitions"}, ${(json.length / 1048576).toFixed(1)} MiB of JSON; ${rounds} interleaved rounds, median`);
console.log("| form | import CPU ms | vs template | peak RSS MiB |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, list] of Object.entries(samples)) {
  const cpu = median(list.map((s) => s.cpu));
  console.log(`| ${name} | ${Math.round(cpu)} | ${(cpu / base).toFixed(2)}x | ${Math.round(Math.max(...list.map((s) => s.rss)))} |`);
}
