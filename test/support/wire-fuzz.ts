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

export interface WireFuzzOptions {
  tools: readonly Tool<object>[];
  seed: number;
  /** Projections (each with its attempts) per tool. */
  runs: number;
  /** A recording server: the first `calls` attempts of each tool are also sent with `call()`. */
  server?: RecordingServer;
  calls?: number;
}

export type WireShape = "exploded" | "header_case" | "credential_header" | "proto";

export interface WireFinding {
  kind: "leak" | "unrefused" | "false_refusal" | "uncoded_error";
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
  findings: WireFinding[];
}

const credentials = (scheme: HttpAuthScheme) => (scheme.type === "basic" ? { username: "fuzz-user", password: "fuzz-pass" } : { token: "fuzz-token" });
const DENIALS = new Set(["withheld", "pinned", "reserved", "prototype_key"]);
const HARMLESS = "zz_fuzz_harmless";

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashSeed(seed: number, text: string): number {
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
  const report: WireFuzzReport = { tools: 0, projections: 0, attempts: 0, shapes: {}, canaries: 0, refusals: {}, built: 0, calls: 0, cleanAccepted: 0, withheldBytesOnWire: 0, findings: [] };
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
  const optional = binding.parameters.filter((p) => p.in !== "path" && Object.prototype.hasOwnProperty.call(properties, p.arg) && !required.has(p.arg));
  const drop: string[] = [];
  const pin: Record<string, unknown> = {};
  for (const p of optional) {
    const schema = properties[p.arg] as Record<string, unknown>;
    const roll = random();
    if (roll < 0.3) drop.push(p.arg);
    else if (roll < 0.45 && schema.type === "string" && schema.enum === undefined && schema.format === undefined && schema.pattern === undefined && Object.keys(pin).length === 0) pin[p.arg] = `pin${run}`;
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
  return `${label}: ${report.tools} tools, ${report.projections} projections, ${report.attempts} attempts (${shapes}), refused (${refusals}), ${report.built} built, ${report.calls} calls, ${report.cleanAccepted} clean accepted, withheld bytes on the wire ${report.withheldBytesOnWire}, findings ${report.findings.length}`;
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

