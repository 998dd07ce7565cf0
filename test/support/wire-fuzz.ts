/**
 * The wire-name half of the egress conformance fuzzer (issue 21): a withheld value must not
 * reach the wire under another name. Beside egress-fuzz.ts (which puts canaries at withheld
 * schema paths), this one puts them where only the wire makes a name:
 *  - `exploded`: a key of an exploded query or cookie object equal to a name something else
 *    owns (a withheld, pinned or credential-filled parameter, an apiKey, another parameter),
 *    in random spellings (case, `name[0]`);
 *  - `header_case`: a top-level argument spelled like a withheld or pinned header in
 *    another case;
 *  - `credential_header`: `Authorization`, `Proxy-Authorization`, `Cookie` and every apiKey
 *    header or cookie name sent as top-level arguments;
 *  - `proto`: `__proto__` (from JSON text, so an own key) at the root and inside every open
 *    object argument, holding a withheld member; `constructor.prototype` likewise.
 * Each attempt first draws a projection (drops some optional parameters, sometimes pins
 * one), so withheld and pinned names exist. `check()` must refuse every canary,
 * `request()` must refuse or build a request without it, `call()` (against a recording
 * server on 127.0.0.1) must send nothing holding it; and the same arguments with a harmless
 * key instead must not be refused for a withheld / pinned / wire-name reason.
 *
 * Seeded (mulberry32 per tool and run); a finding names the seed, tool and shape.
 */
import { isSluiceError, type HttpAuthScheme, type HttpBinding, type HttpParameter, type Tool } from "@sluice/core";
import { minimalArguments, seededSample } from "./egress-fuzz.ts";
import { wireText, type RecordingServer } from "./recording-server.ts";
import { readableCanary } from "./server-name-readers.ts";

export interface WireFuzzOptions {
  tools: readonly Tool<object>[];
  seed: number;
  /** Projections (each with its attempts) per tool. */
  runs: number;
  /** A recording server: the first `calls` attempts of each tool are also sent with `call()`. */
  server?: RecordingServer;
  calls?: number;
}

export type WireShape = "exploded" | "header_case" | "credential_header" | "proto" | "folded" | "form_folded";

export interface WireFinding {
  kind: "leak" | "unrefused" | "false_refusal" | "uncoded_error" | "readable";
  tool: string;
  shape: WireShape | "clean";
  seed: number;
  detail: string;
  args: string;
}

export interface WireFuzzReport {
  tools: number;
  projections: number;
  attempts: number;
  shapes: Record<string, number>;
  canaries: number;
  /** request() refusals, by error code. */
  refusals: Record<string, number>;
  built: number;
  calls: number;
  cleanAccepted: number;
  withheldBytesOnWire: number;
  /** Canaries a listed server (server-name-readers.ts) reads under a withheld, pinned or credential name. */
  readable: number;
  findings: WireFinding[];
}

const credentials = (scheme: HttpAuthScheme) => (scheme.type === "basic" ? { username: "fuzz-user", password: "fuzz-pass" } : { token: "fuzz-token" });
const DENIALS = new Set(["withheld", "pinned", "reserved", "prototype_key"]);
const HARMLESS = "zz_fuzz_harmless";

/** A small seeded generator: the same seed draws the same sequence in every process. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A per-item seed from the run's seed and the item's name, so one item replays alone. */
export function hashSeed(seed: number, text: string): number {
  let hash = seed | 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash;
}

function explodes(p: HttpParameter): boolean {
  if (p.contentType !== undefined || !p.explode) return false;
  return p.in === "cookie" || (p.in === "query" && (p.style === "form" || p.style === "spaceDelimited" || p.style === "pipeDelimited"));
}

/** Spellings a server reads as the same name. */
function spelling(name: string, random: () => number): string {
  const forms = [name, name.toUpperCase(), name.toLowerCase(), name.charAt(0).toUpperCase() + name.slice(1).toLowerCase(), `${name}[0]`, `${name}[x]`];
  return forms[Math.floor(random() * forms.length)]!;
}

function requestText(request: { url: string; headers: Record<string, string>; body?: string | Uint8Array }): string {
  const body = request.body === undefined ? "" : typeof request.body === "string" ? request.body : new TextDecoder().decode(request.body);
  return `${request.url}\n${Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${body}`;
}

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) n++;
  return n;
}

interface Attempt {
  shape: WireShape;
  args: Record<string, unknown>;
  canary: string;
  /** The same arguments without the canary (a harmless key in its place), when there is such a form. */
  clean?: Record<string, unknown>;
}

export async function fuzzWireNames(options: WireFuzzOptions): Promise<WireFuzzReport> {
  const report: WireFuzzReport = { tools: 0, projections: 0, attempts: 0, shapes: {}, canaries: 0, refusals: {}, built: 0, calls: 0, cleanAccepted: 0, withheldBytesOnWire: 0, readable: 0, findings: [] };
  let counter = 0;
  const canary = () => `CANARY_W${++counter}_${(counter * 2654435761) % 100000}`;
  for (const tool of options.tools) {
    if (tool.binding.kind !== "http") continue;
    report.tools++;
    // Let the test runner's messages through between tools: a long run is otherwise one synchronous stretch.
    await new Promise((resolve) => setImmediate(resolve));
    let callsLeft = options.server === undefined ? 0 : (options.calls ?? 2);
    for (let run = 0; run < options.runs; run++) {
      const seed = hashSeed(options.seed, `${tool.name}#${run}`);
      const random = mulberry32(seed);
      const derived = project(tool, random, run);
      if (derived !== tool) report.projections++;
      const finding = (kind: WireFinding["kind"], shape: WireFinding["shape"], detail: string, args: unknown) =>
        report.findings.push({ kind, tool: derived.name, shape, seed: options.seed, detail, args: safeJson(args).slice(0, 400) });
      let base: Record<string, unknown>;
      try {
        base = minimalArguments(derived);
      } catch {
        base = {};
      }
      for (const attempt of attemptsFor(derived, base, random, canary, run)) {
        report.attempts++;
        report.canaries++;
        report.shapes[attempt.shape] = (report.shapes[attempt.shape] ?? 0) + 1;
        let issues;
        try {
          issues = derived.check(attempt.args);
        } catch (error) {
          finding("uncoded_error", attempt.shape, `check threw ${String(error)}`, attempt.args);
          continue;
        }
        if (issues.length === 0) finding("unrefused", attempt.shape, "check() accepted the canary", attempt.args);
        try {
          const request = await derived.request(attempt.args, { credentials, revealCredentials: true });
          report.built++;
          const text = requestText(request);
          if (text.includes(attempt.canary)) {
            report.withheldBytesOnWire += occurrences(text, attempt.canary) * attempt.canary.length;
            finding("leak", attempt.shape, `request() built ${text.slice(0, 300)}`, attempt.args);
          }
          for (const read of readableCanary(request, protectedNames(derived), attempt.canary)) {
            report.readable++;
            finding("readable", attempt.shape, `${read.server} reads the ${read.where} name ${JSON.stringify(read.name)} as ${read.target}: ${request.url.slice(0, 200)}`, attempt.args);
          }
        } catch (error) {
          if (!isSluiceError(error)) finding("uncoded_error", attempt.shape, `request threw ${String(error)}`, attempt.args);
          else report.refusals[error.code] = (report.refusals[error.code] ?? 0) + 1;
        }
        if (callsLeft > 0 && options.server !== undefined) {
          callsLeft--;
          report.calls++;
          const before = options.server.received.length;
          try {
            await derived.call(attempt.args, { credentials, baseUrl: options.server.url, timeoutMs: 5_000 });
          } catch (error) {
            if (!isSluiceError(error)) finding("uncoded_error", attempt.shape, `call threw ${String(error)}`, attempt.args);
          }
          for (const received of options.server.received.slice(before)) {
            for (const read of readableCanary({ url: received.path, headers: received.headers as Record<string, string>, body: received.body }, protectedNames(derived), attempt.canary)) {
              report.readable++;
              finding("readable", attempt.shape, `${read.server} reads the ${read.where} name ${JSON.stringify(read.name)} as ${read.target} (sent by call())`, attempt.args);
            }
            const text = wireText(received);
            if (text.includes(attempt.canary)) {
              report.withheldBytesOnWire += occurrences(text, attempt.canary) * attempt.canary.length;
              finding("leak", attempt.shape, `call() sent ${text.slice(0, 300)}`, attempt.args);
            }
          }
        }
        if (attempt.clean !== undefined) {
          const cleanIssues = derived.check(attempt.clean);
          const denied = cleanIssues.filter((issue) => DENIALS.has(issue.code));
          if (denied.length > 0) finding("false_refusal", "clean", `refused ${denied.map((i) => `${i.path} ${i.code}`).join(", ")}`, attempt.clean);
          else if (cleanIssues.length === 0) report.cleanAccepted++;
        }
      }
    }
  }
  return report;
}

/** Drops some optional parameters and sometimes pins a string one, so withheld and pinned wire names exist. */
function project(tool: Tool<object>, random: () => number, run: number): Tool<object> {
  if (run === 0) return tool;
  const binding = tool.binding as HttpBinding;
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
  const required = new Set((tool.inputSchema.required ?? []) as string[]);
  const fields = Object.keys(binding.body?.fields ?? {}).map((arg) => ({ arg }));
  const optional = [...binding.parameters.filter((p) => p.in !== "path"), ...fields].filter((p) => Object.prototype.hasOwnProperty.call(properties, p.arg) && !required.has(p.arg));
  const drop: string[] = [];
  const pin: Record<string, unknown> = {};
  for (const p of optional) {
    const schema = properties[p.arg] as Record<string, unknown>;
    const roll = random();
    if (roll < 0.3) drop.push(p.arg);
    else if (roll < 0.45 && schema.type === "string" && schema.enum === undefined && schema.format === undefined && schema.pattern === undefined && Object.keys(pin).length === 0) pin[p.arg] = `pin${run}`;
  }
  const body = binding.body;
  if (body?.wholeBodyArg !== undefined && random() < 0.7) {
    const members = bodyMembers(tool, body.wholeBodyArg);
    const member = members[Math.floor(random() * members.length)];
    if (member !== undefined) drop.push(`${body.wholeBodyArg}.${member}`);
  }
  if (drop.length === 0 && Object.keys(pin).length === 0) return tool;
  try {
    return tool.derived({ name: `w${run}_${tool.name}`.slice(0, 64), drop, pin });
  } catch {
    return tool;
  }
}

function* attemptsFor(tool: Tool<object>, base: Record<string, unknown>, random: () => number, canary: () => string, run: number): Generator<Attempt> {
  const binding = tool.binding as HttpBinding;
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
  const visible = (arg: string) => Object.prototype.hasOwnProperty.call(properties, arg);
  const schemes = [...(binding.auth ?? []).flat(), ...(tool.auth ?? []).flat()];
  const with_ = (key: string, value: unknown): Record<string, unknown> => {
    const out = { ...base };
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    return out;
  };

  // Names something other than an exploded key owns, by location.
  const owned: Array<{ name: string; in: string; arg?: string }> = [];
  for (const p of binding.parameters) if (p.in !== "path") owned.push({ name: p.name, in: p.in, arg: p.arg });
  for (const p of binding.withheldParameters ?? []) owned.push({ name: p.name, in: p.in, arg: p.arg });
  for (const s of schemes) if (s.type === "apiKey") owned.push({ name: s.name, in: s.in });

  // exploded: into an object that takes the key (open, or declaring it), else it proves nothing
  for (const p of binding.parameters) {
    if (!explodes(p) || !visible(p.arg)) continue;
    const clean = with_(p.arg, { [HARMLESS]: "v" });
    const open = tool.check(clean).length === 0;
    const declared = new Set(Object.keys(((properties[p.arg] as Record<string, unknown>).properties ?? {}) as object));
    const targets = owned.filter((o) => o.in === p.in && o.arg !== p.arg && (open || declared.has(o.name)));
    for (const target of targets.slice(0, 12)) {
      const c = canary();
      const key = open ? spelling(target.name, random) : target.name;
      const value: Record<string, unknown> = {};
      Object.defineProperty(value, key, { value: c, enumerable: true, writable: true, configurable: true });
      yield { shape: "exploded", args: with_(p.arg, value), canary: c, ...(open ? { clean } : {}) };
    }
  }

  // folded: the same targets in the spellings servers fold (server-name-readers.ts), into open exploded objects
  const protect = protectedNames(tool);
  for (const p of binding.parameters) {
    if (!explodes(p) || !visible(p.arg)) continue;
    const clean = with_(p.arg, { [HARMLESS]: "v" });
    if (tool.check(clean).length > 0) continue;
    const targets = (p.in === "cookie" ? protect.cookie : protect.query).filter((name) => name !== p.name);
    for (const target of targets.slice(0, 8)) {
      for (let i = 0; i < 2; i++) {
        const c = canary();
        const value: Record<string, unknown> = {};
        Object.defineProperty(value, folding(target, random), { value: c, enumerable: true, writable: true, configurable: true });
        yield { shape: "folded", args: with_(p.arg, value), canary: c, clean };
      }
    }
  }

  // form_folded: a whole form body's keys, folded onto its withheld members and the protected query names
  const body = binding.body;
  if (body?.wholeBodyArg !== undefined && (body.encoding === "form" || body.encoding === "multipart") && visible(body.wholeBodyArg)) {
    const bodyBase = isObject(base[body.wholeBodyArg]) ? (base[body.wholeBodyArg] as Record<string, unknown>) : {};
    const clean = with_(body.wholeBodyArg, { ...bodyBase, [HARMLESS]: "v" });
    if (tool.check(clean).length === 0) {
      for (const target of protect.form.slice(0, 10)) {
        for (let i = 0; i < 2; i++) {
          const c = canary();
          const value: Record<string, unknown> = { ...bodyBase };
          Object.defineProperty(value, folding(target, random), { value: c, enumerable: true, writable: true, configurable: true });
          yield { shape: "form_folded", args: with_(body.wholeBodyArg, value), canary: c, clean };
        }
      }
    }
  }

  // header_case: withheld and pinned headers, spelled otherwise, as top-level arguments
  const headerArgs = [
    ...(binding.withheldParameters ?? []).filter((p) => p.in === "header").map((p) => p.name),
    ...binding.parameters.filter((p) => p.in === "header" && Object.prototype.hasOwnProperty.call(tool.pins, p.arg)).map((p) => p.name),
  ];
  for (const name of headerArgs) {
    const c = canary();
    const spelled = random() < 0.5 ? name.toUpperCase() : name.toLowerCase();
    yield { shape: "header_case", args: with_(spelled === name ? name.toUpperCase() + "_" : spelled, c), canary: c };
  }

  // credential_header: the same names every run, so in the first only
  const credentialNames = new Set(run > 0 ? [] : ["Authorization", "Proxy-Authorization", "Cookie", "authorization", "cookie"]);
  if (run === 0) for (const s of schemes) if (s.type === "apiKey" && s.in !== "query") credentialNames.add(s.name);
  for (const name of credentialNames) {
    if (visible(name)) continue;
    const c = canary();
    yield { shape: "credential_header", args: with_(name, c), canary: c };
  }

  // proto: at the root, and inside each open object argument
  const withheldTop = tool.withheld.map((w) => w.path).filter((p) => !p.includes("."));
  const member = withheldTop[Math.floor(random() * withheldTop.length)] ?? "zz_member";
  {
    const c = canary();
    const args = JSON.parse(`{"__proto__": ${JSON.stringify({ [member]: c })}}`) as Record<string, unknown>;
    for (const [k, v] of Object.entries(base)) Object.defineProperty(args, k, { value: v, enumerable: true, writable: true, configurable: true });
    yield { shape: "proto", args, canary: c };
  }
  for (const arg of Object.keys(properties)) {
    const clean = with_(arg, { [HARMLESS]: "v" });
    if (tool.check(clean).length > 0) continue;
    const inner = tool.withheld.map((w) => w.path).filter((p) => p.startsWith(`${arg}.`) && p.split(".").length === 2).map((p) => p.split(".")[1]!);
    const key = inner[Math.floor(random() * inner.length)] ?? "zz_member";
    const c = canary();
    yield { shape: "proto", args: with_(arg, JSON.parse(`{"__proto__": ${JSON.stringify({ [key]: c })}}`)), canary: c, clean };
    const d = canary();
    yield { shape: "proto", args: with_(arg, { constructor: { prototype: { [key]: d } } }), canary: d, clean };
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "undefined";
  } catch {
    return String(value);
  }
}

export function summarizeWire(label: string, report: WireFuzzReport): string {
  const shapes = Object.entries(report.shapes).sort().map(([k, v]) => `${k} ${v}`).join(", ");
  const refusals = Object.entries(report.refusals).sort().map(([k, v]) => `${k} ${v}`).join(", ");
  return `${label}: ${report.tools} tools, ${report.projections} projections, ${report.attempts} attempts (${shapes}), refused (${refusals}), ${report.built} built, ${report.calls} calls, ${report.cleanAccepted} clean accepted, withheld bytes on the wire ${report.withheldBytesOnWire}, readable by a listed server ${report.readable}, findings ${report.findings.length}`;
}

export function describeWireFinding(f: WireFinding): string {
  return `${f.kind} ${f.shape} ${f.tool} (seed ${f.seed}): ${f.detail} | args ${f.args}`;
}

/** Tools whose wire names are worth the time first (exploded parameters, headers, cookies, open objects, apiKeys), then a seeded sample of the rest. */
export function pickWireTools(tools: readonly Tool<object>[], count: number, seed: number, all = false): Tool<object>[] {
  const http = tools.filter((t) => t.binding.kind === "http");
  if (all) return http;
  const interesting = (t: Tool<object>) => {
    const b = t.binding.kind === "http" ? t.binding : undefined;
    return (
      b !== undefined &&
      (b.parameters.some((p) => p.in === "header" || p.in === "cookie" || (p.explode && p.in === "query" && /"type":"object"|additionalProperties/.test(JSON.stringify((t.inputSchema.properties as Record<string, unknown> | undefined)?.[p.arg] ?? {})))) ||
        (b.withheldParameters?.length ?? 0) > 0 ||
        /additionalProperties/.test(JSON.stringify(t.inputSchema)))
    );
  };
  const first = seededSample(http.filter(interesting), Math.ceil(count / 2), seed);
  const rest = seededSample(http.filter((t) => !first.includes(t)), count - first.length, seed + 1);
  return [...first, ...rest];
}


function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A spelling of `name` that some listed server folds back to it: leading or trailing white
 * space or control characters, NUL and what follows it, brackets around or after it, `.`
 * after it, Spring's `!` and `_` prefixes, `.` or space where PHP reads `_`, dotless i and
 * long s, case.
 */
export function folding(name: string, random: () => number): string {
  const forms = [
    ` ${name}`,
    `   ${name}`,
    `${name} `,
    `\t${name}`,
    `${name}\t`,
    `\u00a0${name}`,
    `${name}\u0000`,
    `${name}\u0000x`,
    `\u001f${name}`,
    `[${name}]`,
    `]${name}`,
    `${name}]x`,
    `${name}.x`,
    `!${name}`,
    `_${name}`,
    `${name}[`,
    name.includes("_") ? name.replace(/_/g, ".") : `${name} `,
    name.includes("_") ? name.replace(/_/g, " ") : ` ${name}`,
    name.replace(/i/g, "\u0131"),
    name.replace(/s/g, "\u017f"),
    name.toUpperCase(),
    ` ${name.toUpperCase()}\u0000`,
  ];
  return forms[Math.floor(random() * forms.length)]!;
}

/** Members a body argument declares (its properties and those of its allOf branches, through local refs). */
function bodyMembers(tool: Tool<object>, arg: string): string[] {
  const defs = ((tool.inputSchema as Record<string, unknown>).$defs ?? {}) as Record<string, unknown>;
  const out = new Set<string>();
  const walk = (schema: unknown, depth: number): void => {
    if (!isObject(schema) || depth > 6) return;
    const s = schema as Record<string, unknown>;
    if (typeof s.$ref === "string" && s.$ref.startsWith("#/$defs/")) walk(defs[s.$ref.slice(8)], depth + 1);
    for (const key of Object.keys((s.properties ?? {}) as object)) if (/^[A-Za-z0-9_-]+$/.test(key)) out.add(key);
    for (const branch of (s.allOf ?? []) as unknown[]) walk(branch, depth + 1);
  };
  walk(((tool.inputSchema.properties ?? {}) as Record<string, unknown>)[arg], 0);
  return [...out].sort();
}

/**
 * Names a canary must never be read under: the withheld and pinned parameters' and the
 * apiKey schemes' names by location, the path's fixed query names, and the body's withheld
 * and credential-filled members (servers read a body with the query).
 */
export function protectedNames(tool: Tool<object>): { query: string[]; cookie: string[]; form: string[] } {
  const binding = tool.binding as HttpBinding;
  const schemes = [...(binding.auth ?? []).flat(), ...(tool.auth ?? []).flat()];
  const query = new Set<string>();
  const cookie = new Set<string>();
  const add = (where: string, name: string) => (where === "query" ? query.add(name) : where === "cookie" ? cookie.add(name) : undefined);
  for (const p of binding.withheldParameters ?? []) add(p.in, p.name);
  for (const p of binding.parameters) if (Object.prototype.hasOwnProperty.call(tool.pins, p.arg) || p.credential !== undefined) add(p.in, p.name);
  for (const s of schemes) if (s.type === "apiKey") add(s.in, s.name);
  const at = binding.path.indexOf("?");
  if (at >= 0) for (const pair of binding.path.slice(at + 1).split("&")) if (pair.split("=")[0]) query.add(decodeURIComponent(pair.split("=")[0]!));
  // Withheld body members: PHP's $_REQUEST and Rails' params read them with the query.
  const whole = binding.body?.wholeBodyArg;
  const fields = binding.body?.fields ?? {};
  for (const w of tool.withheld) {
    if (whole !== undefined && w.path.startsWith(`${whole}.`) && !w.path.slice(whole.length + 1).includes(".")) query.add(w.path.slice(whole.length + 1));
    else if (Object.prototype.hasOwnProperty.call(fields, w.path)) query.add(fields[w.path]!);
  }
  for (const arg of Object.keys(binding.body?.credentialFields ?? {})) query.add(fields[arg] ?? arg);
  return { query: [...query].sort(), cookie: [...cookie].sort(), form: [...query].sort() };
}
