/**
 * Redaction speed: the spelling-aware pattern of `CallSecrets` on a 4 MB answer with 5
 * credentials, against the exact-form alternation main used before it (the anchor, rebuilt
 * here from main's form list), in the same process. Also checks linear time on hostile
 * text (near misses, long whitespace and escape runs) by timing 1, 2 and 4 MB of it.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-redaction.ts
 */
import { performance } from "node:perf_hooks";
import { CallSecrets } from "../packages/core/src/call/redact.ts";

const TOKEN = "ghp_9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e";
const API_KEY = "key_Zx81+q/Lm0=Pw&7s!Rt*Uv'Yz";
const SESSION = "sess-4c1f0b1e-77aa-4d2e-9a5b-e2d1c0ffee42";
const USER = "acct_user_31415";
const PASSWORD = "correct horse battery";
const VALUES = [TOKEN, API_KEY, SESSION, USER, PASSWORD];
const MB = 1024 * 1024;

/** main's redact(): every recorded form as an exact string, one alternation, longest first. */
function anchorRegex(): RegExp {
  const forms = new Set<string>();
  const encodeUnreserved = (v: string) => encodeURIComponent(v).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  const allowReserved = (v: string) => encodeUnreserved(v).replace(/%(3A|2F|3F|5B|5D|40|21|24|27|28|29|2A|2C|3B)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const lowerHex = (v: string) => v.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
  const add = (value: string) => {
    const percent = [encodeURIComponent(value), encodeUnreserved(value), allowReserved(value)];
    for (const form of [value, ...percent, ...percent.map(lowerHex), encodeURIComponent(value).replace(/%20/g, "+"), JSON.stringify(value).slice(1, -1)]) if (form.length >= 4) forms.add(form);
  };
  const pair = `${USER}:${PASSWORD}`;
  const base64 = Buffer.from(pair).toString("base64");
  for (const value of [TOKEN, API_KEY, SESSION, USER, PASSWORD, pair, base64, base64.replace(/=+$/, "")]) add(value);
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp([...forms].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).map(escape).join("|"), "g");
}

function secrets(): CallSecrets {
  const s = new CallSecrets();
  s.addCredential({ token: TOKEN });
  s.addCredential({ token: API_KEY });
  s.addCredential({ token: SESSION });
  s.addCredential({ username: USER, password: PASSWORD });
  return s;
}

/** A 4 MB JSON answer shaped like a list endpoint's, with 40 echoes of the credentials in assorted spellings. */
function answer(bytes: number): string {
  const items: unknown[] = [];
  const echoes = [
    (v: string) => v,
    (v: string) => encodeURIComponent(v),
    (v: string) => v.replace(/&/g, "&amp;"),
    (v: string) => [...v].map((c) => `&#${c.codePointAt(0)};`).join(""),
    (v: string) => v.toUpperCase(),
    (v: string) => v.slice(0, -4),
    (v: string) => Buffer.from(v).toString("base64"),
    (v: string) => `${v.slice(0, 9)}\r\n ${v.slice(9)}`,
  ];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const echo = i % 500 === 0 ? echoes[(i / 500) % echoes.length]!(VALUES[(i / 500) % VALUES.length]!) : "";
    const item = {
      id: `obj_${String(i).padStart(8, "0")}`,
      name: `Customer ${i} & Sons <${i % 7}>`,
      url: `https://api.example.com/v1/customers/obj_${i}?expand%5B%5D=sources&page=${i % 13}`,
      description: `Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor ${echo}`,
      tags: ["alpha", "beta", `t${i % 100}`],
      amount: i * 37,
      active: i % 3 === 0,
    };
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return JSON.stringify({ object: "list", data: items, has_more: true });
}

/** Text built to make a backtracking pattern work hard: near misses of every credential, long runs of whitespace and escapes. */
function hostile(bytes: number): string {
  const pieces = [
    ...VALUES.map((v) => v.slice(0, 7)),
    ...VALUES.map((v) => `${v.slice(0, 3)}${" ".repeat(300)}x`),
    "&amp;".repeat(60),
    "%25".repeat(80),
    "\\".repeat(200) + "u",
    "corre ct horse" + " ".repeat(500) + "batter",
    " ".repeat(2000),
  ];
  let out = "";
  for (let i = 0; out.length < bytes; i++) out += pieces[i % pieces.length]!;
  return out.slice(0, bytes);
}

function time(label: string, fn: () => unknown, repeat = 3): number {
  fn();
  const runs: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const start = performance.now();
    fn();
    runs.push(performance.now() - start);
  }
  runs.sort((a, b) => a - b);
  const median = runs[Math.floor(runs.length / 2)]!;
  console.log(`${label.padEnd(58)} ${median.toFixed(1).padStart(8)} ms (median of ${repeat})`);
  return median;
}

const text = answer(4 * MB);
const parsed: unknown = JSON.parse(text);
const s = secrets();
const anchor = anchorRegex();
console.log(`answer: ${(Buffer.byteLength(text) / MB).toFixed(2)} MB, ${VALUES.length} credentials (Basic user and password make the pair too); node ${process.version}`);
const redacted = s.redact(text);
const left = VALUES.filter((v) => redacted.includes(v) || redacted.includes(v.slice(0, 8)));
console.log(`redactions: new ${(redacted.match(/\[redacted\]/g) ?? []).length}, anchor ${(text.replace(anchor, "[redacted]").match(/\[redacted\]/g) ?? []).length}; values or 8-char prefixes left by new: ${left.length}`);
const anchorText = time("anchor (main's redact): 4 MB text", () => text.replace(anchor, "[redacted]"));
const newText = time("CallSecrets.redact: 4 MB text", () => s.redact(text));
const newJson = time("CallSecrets.redactJson: the same answer parsed (every string)", () => s.redactJson(parsed));
const anchorJson = time("anchor on every string of the parsed answer", () => {
  const walk = (node: unknown): unknown =>
    typeof node === "string" ? node.replace(anchor, "[redacted]") : Array.isArray(node) ? node.map(walk) : typeof node === "object" && node !== null ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)])) : node;
  return walk(parsed);
});
console.log(`ratio new/anchor: text ${(newText / anchorText).toFixed(2)}x, parsed ${(newJson / anchorJson).toFixed(2)}x`);
const hostileTimes = [1, 2, 4].map((size) => {
  const input = hostile(size * MB);
  return time(`CallSecrets.redact: ${size} MB hostile text`, () => s.redact(input), 3);
});
console.log(`hostile scaling: 2 MB / 1 MB ${(hostileTimes[1]! / hostileTimes[0]!).toFixed(2)}x, 4 MB / 2 MB ${(hostileTimes[2]! / hostileTimes[1]!).toFixed(2)}x (linear: about 2x)`);
