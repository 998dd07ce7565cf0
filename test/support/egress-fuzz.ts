/**
 * The egress conformance fuzzer: a projection is a permission, so whatever a derived tool
 * withholds must never reach the wire, in any position or union branch.
 *
 * One attempt, for one tool:
 *  1. draw a projection (drop / keep selectors from `tool.paths(undefined, { depth: 3 })`,
 *     type selectors, union-branch selectors, sometimes a pin); one that throws a
 *     SluiceError (REQUIRED_DROPPED, ...) is counted and skipped;
 *  2. draw arguments for the derived tool's visible schema (valid where that is easy),
 *     and put a unique canary (`CANARY_<n>_<random>`, or a nine-digit number where only a
 *     number fits) at withheld paths: every object position the argument walk reaches
 *     whose dotted path, or whose `$defs` type, names a withheld member: in every branch,
 *     array item and free-form object, as a value, as a typed sub-tree, and as a key;
 *  3. `check()` must refuse every canary (an issue at its pointer or above it);
 *     `request()` must throw EGRESS_DENIED / INVALID_ARGUMENTS or build a request with no
 *     canary in it; `call()` (mode "call"/"both", against a recording server on
 *     127.0.0.1) must refuse or send a request with no canary in it;
 *  4. the positive side, so that refusing everything cannot pass: the same arguments
 *     without canaries are not refused for `withheld` / `pinned` reasons, and when
 *     `check()` finds nothing wrong with them, `request()` and `call()` do not refuse them.
 *
 * fast-check drives every choice (`fc.gen()`), with a seed per tool derived from the run's
 * seed, so a finding is replayed with the seed and the counterexample path it reports.
 * The engine never throws on a finding: it returns counts and findings for the caller to
 * judge (the conformance test wants none; the mutation test wants some).
 */
import fc from "fast-check";
import { getOwn, hasOwn, isSchemaObject, parseLocalRef, setOwn, SluiceError, type ArgumentIssue, type JsonSchemaObject } from "@sluice/schema";
import type { CallContext, DeriveOptions, HttpAuthScheme, Tool, WithheldPath } from "@sluice/core";
import { startRecordingServer, wireText, type RecordingServer } from "./recording-server.ts";

export type FuzzMode = "request" | "call" | "both";

export interface FuzzOptions {
  tools: readonly Tool<object>[];
  seed: number;
  /** Attempts per tool. */
  runs: number;
  /**
   * Attempts for tools whose schema has unions, `allOf` or open objects (where withholding
   * is hardest), when more than `runs`.
   */
  focusRuns?: number;
  /** `request`: `tool.request()` only; `call`: `tool.call()` only; `both`. `check()` is always asked. */
  mode: FuzzMode;
  /** A recording server for calls; when absent and calls are wanted, one is started and closed. */
  server?: RecordingServer;
  /** Shrink a failing attempt to a smaller counterexample (slower). Default false. */
  shrink?: boolean;
}

export type FindingKind =
  /** A canary reached the wire (or a built request). */
  | "leak"
  /** A canary was sent and nothing refused it (screening let it through or dropped it silently). */
  | "unrefused"
  /** Arguments without canaries were refused for `withheld` / `pinned` reasons, or refused although check() accepts them. */
  | "false_refusal"
  /** A throw that is not a SluiceError (a crash, a stack overflow) from derive, check, request or call. */
  | "uncoded_error";

export interface FuzzFinding {
  kind: FindingKind;
  tool: string;
  via: "derive" | "check" | "request" | "call";
  /** The seed and counterexample path that replay this attempt (`fc.check(..., { seed, path })`). */
  seed: number;
  path: string;
  projection: Pick<DeriveOptions, "drop" | "keep" | "pin">;
  args: unknown;
  /** What went wrong: the canary and where it was put and seen, or the error. */
  detail: string;
}

export interface FuzzReport {
  seed: number;
  tools: number;
  /** Attempts run (shrinking re-runs not included). */
  attempts: number;
  /** Projections derived successfully (including the identity, no selector). */
  projections: number;
  /** Projections refused with a SluiceError, by code. */
  skippedProjections: Record<string, number>;
  /** Union-branch selectors drawn, and how many of those projections failed with UNKNOWN_SELECTOR. */
  branchSelectors: { drawn: number; unknown: number };
  /** Canary strings and numbers placed, and their bytes. */
  canaries: number;
  canaryBytes: number;
  /** Bytes of canaries found in built or sent requests. Must be 0. */
  withheldBytesOnWire: number;
  /** Requests built, with and without canaries (refusals counted for the canary-carrying ones). */
  requests: { built: number; refused: Record<string, number> };
  /** Calls with canaries made; requests that reached the server, with and without canaries. */
  calls: { made: number; sent: number; refused: Record<string, number> };
  /** Canary-free arguments that check() accepted outright (how often the positive side is fully exercised). */
  cleanAccepted: number;
  /** SluiceErrors other than refusals (AUTH_MISSING, API answers after sending), by code. */
  otherErrors: Record<string, number>;
  findings: FuzzFinding[];
  /** The `leak` findings. */
  leaks: FuzzFinding[];
}

const MAX_SITES = 200;
/** Nodes generated per attempt before the walk falls back to required members only. */
const NODE_BUDGET = 600;
const MAX_DEPTH = 7;
const HARD_DEPTH = 12;

/** Runs the fuzzer over `tools` and reports what it found; never throws on a finding. */
export async function fuzzEgress(options: FuzzOptions): Promise<FuzzReport> {
  const report: FuzzReport = {
    seed: options.seed,
    tools: options.tools.length,
    attempts: 0,
    projections: 0,
    skippedProjections: {},
    branchSelectors: { drawn: 0, unknown: 0 },
    canaries: 0,
    canaryBytes: 0,
    withheldBytesOnWire: 0,
    requests: { built: 0, refused: {} },
    calls: { made: 0, sent: 0, refused: {} },
    cleanAccepted: 0,
    otherErrors: {},
    findings: [],
    leaks: [],
  };
  const wantsCall = options.mode !== "request";
  const server = wantsCall ? (options.server ?? (await startRecordingServer())) : options.server;
  try {
    for (const tool of options.tools) {
      // A macrotask between tools: a request-mode round never waits on I/O, and a worker
      // that does not reach its event loop for a minute misses vitest's RPC deadline.
      await new Promise((resolve) => setImmediate(resolve));
      const seed = toolSeed(options.seed, tool.name);
      const prepared = await prepare(tool);
      let lastFailure: FuzzFinding[] = [];
      let failed = false;
      const property = fc.asyncProperty(fc.gen(), async (g) => {
        const attempt = new Attempt(prepared, g, server, options.mode, !failed ? report : undefined);
        const findings = await attempt.run();
        if (findings.length === 0) return true;
        failed = true;
        lastFailure = findings;
        return false;
      });
      const numRuns = options.focusRuns !== undefined && isShaped(tool) ? Math.max(options.runs, options.focusRuns) : options.runs;
      const details = await fc.check(property, { seed, numRuns, endOnFailure: options.shrink !== true });
      if (details.failed) {
        const path = details.counterexamplePath ?? "";
        for (const finding of lastFailure) {
          const full = { ...finding, seed, path };
          report.findings.push(full);
          if (full.kind === "leak") report.leaks.push(full);
        }
      }
    }
  } finally {
    if (server !== undefined && options.server === undefined) await server.close();
  }
  return report;
}

/** A deterministic sample of `count` tools (all of them when there are fewer). */
export function seededSample<T>(items: readonly T[], count: number, seed: number): T[] {
  if (items.length <= count) return [...items];
  return fc.sample(fc.shuffledSubarray([...items], { minLength: count, maxLength: count }), { seed, numRuns: 1 })[0]!;
}

/** One line for a test log or a closing note. */
export function summarize(label: string, report: FuzzReport): string {
  const skipped = Object.values(report.skippedProjections).reduce((a, b) => a + b, 0);
  const kinds = countBy(report.findings.map((f) => f.kind));
  return (
    `${label}: seed ${report.seed}, ${report.tools} tools, ${report.attempts} attempts, ${report.projections} projections (${skipped} refused), ` +
    `${report.canaries} canaries (${report.canaryBytes} bytes), ${report.cleanAccepted} clean argument sets accepted, ${report.requests.built} requests built, ${report.calls.sent} calls sent, ` +
    `withheld bytes on the wire: ${report.withheldBytesOnWire}, findings: ${JSON.stringify(kinds)}`
  );
}

/** A finding as text a person can replay from. */
export function describeFinding(finding: FuzzFinding): string {
  const args = JSON.stringify(finding.args) ?? "undefined";
  return [
    `${finding.kind} in ${finding.tool} via ${finding.via}: ${finding.detail}`,
    `  replay: seed ${finding.seed}, path "${finding.path}"`,
    `  projection: ${JSON.stringify(finding.projection)}`,
    `  args: ${args.length > 1500 ? `${args.slice(0, 1500)}...` : args}`,
  ].join("\n");
}

function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const value of values) out[value] = (out[value] ?? 0) + 1;
  return out;
}

function bump(record: Record<string, number>, key: string): void {
  record[key] = (record[key] ?? 0) + 1;
}

/** Whether the schema has the shapes that make withholding hard: unions, `allOf`, open objects, pattern keys. */
function isShaped(tool: Tool<object>): boolean {
  return /"(anyOf|oneOf|allOf|additionalProperties|patternProperties)"/.test(JSON.stringify(tool.inputSchema));
}

function toolSeed(seed: number, name: string): number {
  let hash = seed | 0;
  for (let i = 0; i < name.length; i++) hash = (Math.imul(hash, 31) + name.charCodeAt(i)) | 0;
  return hash;
}

// ---------------------------------------------------------------------------------------
// Schema reading (bounded, iterative where the input decides the depth)

interface Schemas {
  root: JsonSchemaObject;
  defs: Record<string, unknown>;
  origins: ReadonlyMap<string, string>;
}

function schemasOf(tool: Tool<object>): Schemas {
  const root = tool.inputSchema;
  const defs = getOwn(root, "$defs");
  return { root, defs: isSchemaObject(defs) ? defs : {}, origins: tool.definitionOrigins };
}

/** The `$defs` entry a local ref names, or undefined. */
function refName(ref: unknown): string | undefined {
  if (typeof ref !== "string") return undefined;
  const segments = parseLocalRef(ref);
  return segments !== undefined && segments.length === 2 && segments[0] === "$defs" ? segments[1] : undefined;
}

function typeName(s: Schemas, def: string): string {
  return s.origins.get(def) ?? def;
}

/** Every schema a value at this position may have to satisfy, through refs, allOf and every union branch. */
function allAlternatives(s: Schemas, start: unknown, limit = 500): { nodes: JsonSchemaObject[]; types: Set<string> } {
  const nodes: JsonSchemaObject[] = [];
  const types = new Set<string>();
  const seen = new Set<unknown>();
  const stack = [start];
  while (stack.length > 0 && nodes.length < limit) {
    const node = stack.pop();
    if (!isSchemaObject(node) || seen.has(node)) continue;
    seen.add(node);
    nodes.push(node);
    const def = refName(getOwn(node, "$ref"));
    if (def !== undefined && hasOwn(s.defs, def)) {
      types.add(typeName(s, def));
      stack.push(s.defs[def]);
    }
    for (const keyword of ["allOf", "anyOf", "oneOf"]) {
      const list = getOwn(node, keyword);
      if (Array.isArray(list)) stack.push(...list);
    }
  }
  return { nodes, types };
}

/**
 * The schemas that all apply at a position: through refs and `allOf`; with
 * `firstBranch`, also the first non-null branch of each union (a deterministic pick).
 */
function conjunction(s: Schemas, starts: readonly unknown[], firstBranch = false): JsonSchemaObject[] {
  const out: JsonSchemaObject[] = [];
  const seen = new Set<unknown>();
  const stack = [...starts];
  while (stack.length > 0 && out.length < 100) {
    const node = stack.pop();
    if (!isSchemaObject(node) || seen.has(node)) continue;
    seen.add(node);
    out.push(node);
    const def = refName(getOwn(node, "$ref"));
    if (def !== undefined && hasOwn(s.defs, def)) stack.push(s.defs[def]);
    const all = getOwn(node, "allOf");
    if (Array.isArray(all)) for (const part of all) stack.push(part);
    if (!firstBranch) continue;
    for (const keyword of ["anyOf", "oneOf"]) {
      const list = getOwn(node, keyword);
      if (!Array.isArray(list) || list.length === 0) continue;
      stack.push(list.find((b) => !(isSchemaObject(b) && getOwn(b, "type") === "null")) ?? list[0]);
    }
  }
  return out;
}

/** Schemas of the members a path names (arrays and unions transparent), in the given tool. */
function memberSchemas(s: Schemas, segments: readonly string[], fromType: string | undefined): JsonSchemaObject[] {
  let current: unknown[] =
    fromType === undefined ? [s.root] : Object.keys(s.defs).filter((def) => typeName(s, def) === fromType).map((def) => s.defs[def]);
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const start of current) {
      const queue: unknown[] = [start];
      const seen = new Set<unknown>();
      while (queue.length > 0 && seen.size < 300) {
        const node = queue.shift();
        if (!isSchemaObject(node) || seen.has(node)) continue;
        seen.add(node);
        const properties = getOwn(node, "properties");
        if (isSchemaObject(properties) && hasOwn(properties, segment)) next.push(properties[segment]);
        const def = refName(getOwn(node, "$ref"));
        if (def !== undefined && hasOwn(s.defs, def)) queue.push(s.defs[def]);
        for (const keyword of ["allOf", "anyOf", "oneOf", "prefixItems"]) {
          const list = getOwn(node, keyword);
          if (Array.isArray(list)) queue.push(...list);
        }
        queue.push(getOwn(node, "items"));
      }
    }
    if (next.length === 0) return [];
    current = next.slice(0, 20);
  }
  return current.filter(isSchemaObject);
}

// ---------------------------------------------------------------------------------------
// Per tool, before any attempt

interface PreparedTool {
  tool: Tool<object>;
  schemas: Schemas;
  /** Selectors whose member is optional: dotted (`paths(undefined, { depth: 3 })`) and type selectors (`Type.member`). */
  optional: string[];
  /** Selectors whose member is required somewhere (dropping them is mostly REQUIRED_DROPPED). */
  required: string[];
  /** Union-branch selector candidates: `path.oneOf[Name]`, `path.anyOf[2]`, and any the tool lists itself. */
  branches: string[];
  /** Required members beside each selector: `keep` names them too, or the keep would drop them. */
  requiredSiblings: Map<string, string[]>;
  /** Top-level arguments that can be pinned. */
  pinnable: string[];
}

async function prepare(tool: Tool<object>): Promise<PreparedTool> {
  const schemas = schemasOf(tool);
  let paths: string[] = [];
  try {
    paths = (await tool.paths(undefined, { depth: 3 })).map((p) => p.path);
  } catch {
    // A tool whose paths cannot be listed is still fuzzed with the identity projection.
  }
  const typePaths: string[] = [];
  const types = [...new Set(Object.keys(schemas.defs).map((def) => typeName(schemas, def)))].sort().slice(0, 12);
  for (const type of types) {
    try {
      for (const p of await tool.paths(type)) if (p.path.startsWith(`${type}.`)) typePaths.push(p.path);
    } catch {
      // Types without members (enums, scalars) have no type selectors.
    }
  }
  const isBranch = (p: string) => /\[/.test(p);
  const branches = new Set(paths.filter(isBranch));
  for (const path of ["", ...paths.filter((p) => !isBranch(p))]) {
    if (branches.size >= 24) break;
    const holders = path === "" ? [schemas.root] : memberSchemas(schemas, path.split("."), undefined);
    for (const holder of holders) {
      // The union may sit behind refs and array items: follow those, not the branches.
      let node: unknown = holder;
      for (let hops = 0; hops < 8 && isSchemaObject(node); hops++) {
        for (const keyword of ["oneOf", "anyOf"]) {
          const list = getOwn(node, keyword);
          if (!Array.isArray(list)) continue;
          list.forEach((branch, index) => {
            const prefix = path === "" ? "" : `${path}.`;
            branches.add(`${prefix}${keyword}[${index}]`);
            const def = isSchemaObject(branch) ? refName(getOwn(branch, "$ref")) : undefined;
            if (def !== undefined) branches.add(`${prefix}${keyword}[${typeName(schemas, def)}]`);
          });
        }
        const def = refName(getOwn(node, "$ref"));
        node = def !== undefined ? schemas.defs[def] : getOwn(node, "items");
      }
    }
  }
  const optional: string[] = [];
  const required: string[] = [];
  const requiredSiblings = new Map<string, string[]>();
  const rootProperties = getOwn(schemas.root, "properties");
  for (const path of [...paths.filter((p) => !isBranch(p)), ...typePaths]) {
    const segments = path.split(".");
    const key = segments.pop()!;
    const fromType = !hasOwn(isSchemaObject(rootProperties) ? rootProperties : {}, path.split(".")[0]!) ? segments.shift() : undefined;
    const holders = segments.length === 0 && fromType === undefined ? [schemas.root] : memberSchemas(schemas, segments, fromType);
    const names = new Set<string>();
    for (const holder of holders) {
      for (const node of conjunction(schemas, [holder])) {
        const list = getOwn(node, "required");
        if (Array.isArray(list)) for (const name of list) if (typeof name === "string") names.add(name);
      }
    }
    (names.has(key) ? required : optional).push(path);
    const parent = [...(fromType === undefined ? [] : [fromType]), ...segments].join(".");
    requiredSiblings.set(path, [...names].filter((name) => name !== key).map((name) => (parent === "" ? name : `${parent}.${name}`)));
  }
  const pinnable = isSchemaObject(rootProperties) ? Object.keys(rootProperties).sort() : [];
  return { tool, schemas, optional, required, branches: [...branches].sort().slice(0, 24), requiredSiblings, pinnable };
}

// ---------------------------------------------------------------------------------------
// One attempt

interface Site {
  /** Where the object that receives the key is, from the root of the arguments. */
  pointer: Array<string | number>;
  key: string;
  entry: WithheldPath;
  /** The member's schema in the tool before projection, when it has one there. */
  schemas: JsonSchemaObject[];
}

/** Uniform draws: fast-check's default bias towards the ends of a range would keep picking the first and last selector. */
const uniformInt = (min: number, max: number) => fc.noBias(fc.integer({ min, max }));

const REFUSALS = new Set(["EGRESS_DENIED", "INVALID_ARGUMENTS"]);

const credentials = (scheme: HttpAuthScheme) => (scheme.type === "basic" ? { username: "fuzz-user", password: "fuzz-pass" } : { token: "fuzz-token" });

class Attempt {
  readonly #p: PreparedTool;
  readonly #g: fc.GeneratorValue;
  readonly #server: RecordingServer | undefined;
  readonly #mode: FuzzMode;
  /** Counters are kept only for first runs, not for shrinking re-runs. */
  readonly #report: FuzzReport | undefined;
  readonly #findings: FuzzFinding[] = [];
  #projection: Pick<DeriveOptions, "drop" | "keep" | "pin"> = {};
  #args: unknown = undefined;
  #canaries: string[] = [];
  #suffix = "";
  #nodes = 0;

  constructor(prepared: PreparedTool, g: fc.GeneratorValue, server: RecordingServer | undefined, mode: FuzzMode, report: FuzzReport | undefined) {
    this.#p = prepared;
    this.#g = g;
    this.#server = server;
    this.#mode = mode;
    this.#report = report;
  }

  #int(min: number, max: number): number {
    return max <= min ? min : this.#g(uniformInt, min, max);
  }
  #chance(percent: number): boolean {
    return this.#int(0, 99) < percent;
  }
  #pick<T>(list: readonly T[]): T {
    return list[this.#int(0, list.length - 1)]!;
  }

  #find(kind: FindingKind, via: FuzzFinding["via"], detail: string): void {
    this.#findings.push({ kind, tool: this.#p.tool.name, via, seed: 0, path: "", projection: this.#projection, args: this.#args, detail });
  }

  async run(): Promise<FuzzFinding[]> {
    const report = this.#report;
    if (report) report.attempts++;
    const derived = this.#derive();
    if (derived === undefined) return this.#findings;
    if (report) report.projections++;

    this.#suffix = this.#int(36 ** 4, 36 ** 5 - 1).toString(36).toUpperCase();
    const sites: Site[] = [];
    const clean = this.#arguments(derived, sites);
    const chosen = sites.length === 0 ? [] : this.#chance(50) ? sites.slice(0, MAX_SITES) : [this.#pick(sites)];
    const dirty = structuredClone(clean);
    const placed: Array<{ site: Site; pointer: string }> = [];
    for (const site of chosen) {
      const holder = at(dirty, site.pointer);
      if (!isPlainObject(holder)) continue;
      Object.defineProperty(holder, site.key, { value: this.#canaryValue(site), enumerable: true, writable: true, configurable: true });
      placed.push({ site, pointer: pointerText([...site.pointer, site.key]) });
    }
    this.#args = dirty;
    if (report) {
      report.canaries += this.#canaries.length;
      report.canaryBytes += this.#canaries.reduce((n, c) => n + c.length, 0);
    }

    if (placed.length > 0) await this.#checkRefusesCanaries(derived, dirty, placed);
    if (this.#mode !== "call") await this.#requestHasNoCanary(derived, dirty);
    if (this.#mode !== "request") await this.#callSendsNoCanary(derived, dirty);
    await this.#cleanIsNotRefused(derived, clean);
    return this.#findings;
  }

  // -- projection ---------------------------------------------------------------------

  #derive(): Tool<object> | undefined {
    const p = this.#p;
    const options: { drop?: string[]; keep?: string[]; pin?: Record<string, unknown> } = {};
    let pinned: string | undefined;
    if (p.pinnable.length > 0 && this.#chance(15)) {
      const arg = this.#pick(p.pinnable);
      const schema = getOwn(getOwn(p.schemas.root, "properties"), arg);
      const value = this.#value(p.schemas, schema, [], [], undefined, 2, "pin");
      if (value !== undefined) {
        options.pin = { [arg]: value };
        pinned = arg;
      }
    }
    // Selectors below a pinned argument are refused by design (INVALID_OPTION); they teach nothing.
    const free = (list: readonly string[]) => (pinned === undefined ? list : list.filter((s) => s !== pinned && !s.startsWith(`${pinned}.`)));
    const optional = free(p.optional);
    const required = free(p.required);
    const branches = free(p.branches);
    let branchDrawn = false;
    const used = new Set<string>();
    const draw = (): string | undefined => {
      const pools = [optional, optional, optional, branches, this.#chance(15) ? required : []].filter((pool) => pool.length > 0);
      if (pools.length === 0) return undefined;
      const pool = this.#pick(pools);
      const selector = this.#pick(pool);
      // A selector below (or above) one already drawn names a member that is gone by then.
      for (const other of used) if (other === selector || selector.startsWith(`${other}.`) || other.startsWith(`${selector}.`)) return undefined;
      used.add(selector);
      if (pool === branches) branchDrawn = true;
      return selector;
    };
    const drops = this.#int(0, 3);
    const keeps = this.#chance(30) ? this.#int(1, 2) : 0;
    for (let i = 0; i < drops; i++) {
      const selector = draw();
      if (selector !== undefined) (options.drop ??= []).push(selector);
    }
    for (let i = 0; i < keeps; i++) {
      const selector = draw();
      if (selector === undefined) continue;
      const keep = (options.keep ??= []);
      // Keeping one member withholds its siblings; the required ones are kept too, or the keep is refused.
      for (const name of [selector, ...free(p.requiredSiblings.get(selector) ?? [])]) if (!keep.includes(name) && !options.drop?.includes(name)) keep.push(name);
    }
    this.#projection = options;
    if (branchDrawn && this.#report) this.#report.branchSelectors.drawn++;
    try {
      const derived = p.tool.derived(options);
      void derived.inputSchema;
      void derived.withheld;
      return derived;
    } catch (error) {
      if (error instanceof SluiceError) {
        if (this.#report) {
          bump(this.#report.skippedProjections, error.code);
          if (branchDrawn && error.code === "UNKNOWN_SELECTOR") this.#report.branchSelectors.unknown++;
        }
      } else {
        this.#find("uncoded_error", "derive", describeError(error));
      }
      return undefined;
    }
  }

  // -- arguments ----------------------------------------------------------------------

  /** Canary-free arguments for the derived tool, recording every place a withheld key can go. */
  #arguments(derived: Tool<object>, sites: Site[]): Record<string, unknown> {
    const s = schemasOf(derived);
    const byParent = new Map<string, Array<{ key: string; entry: WithheldPath }>>();
    const wanted = new Set<string>();
    const seen = new Set<string>();
    for (const entry of derived.withheld) {
      // Union-branch entries (`x.oneOf[Name]`) name no key to send; members are placed by path.
      if (/[[\]*/]/.test(entry.path) || seen.has(entry.path)) continue;
      seen.add(entry.path);
      const segments = entry.path.split(".");
      const key = segments.pop()!;
      const parent = segments.join(".");
      let list = byParent.get(parent);
      if (list === undefined) byParent.set(parent, (list = []));
      list.push({ key, entry });
      for (let i = 1; i <= segments.length; i++) wanted.add(segments.slice(0, i).join("."));
    }
    const parentSchemas = this.#p.schemas;
    const walk: Walk = {
      byParent,
      wanted,
      pins: derived.pins,
      sites,
      memberSchemas: (entry) => {
        const segments = entry.path.split(".");
        const top = getOwn(getOwn(parentSchemas.root, "properties"), segments[0]!);
        const fromType = top === undefined && segments.length > 1 ? segments.shift() : undefined;
        return memberSchemas(parentSchemas, segments, fromType);
      },
    };
    const value = this.#value(s, s.root, [""], [], walk, 0, "clean");
    return isPlainObject(value) ? value : {};
  }

  /**
   * A value for `schema` at `pointer`. `anchors` are the names this position has in
   * withheld paths: its dotted path from the root and `Type.member...` paths for each
   * type reached on the way. With a walk, object positions record canary sites.
   */
  #value(s: Schemas, schema: unknown, anchors: readonly string[], pointer: Array<string | number>, walk: Walk | undefined, depth: number, mode: "clean" | "pin" | "taint"): unknown {
    this.#nodes++;
    if (schema === false) return undefined;
    const view = this.#choose(s, schema);
    const here = [...new Set([...anchors, ...view.types])];
    const sitesHere = walk === undefined ? [] : here.flatMap((anchor) => walk.byParent.get(anchor) ?? []);
    const wantedHere = walk !== undefined && here.some((a) => walk.wanted.has(a));

    const fixed = fixedValues(view.parts);
    if (fixed !== undefined) return fixed.length === 0 ? null : this.#pick(fixed);
    const kinds = typesOf(view.parts);
    let kind: string;
    if (kinds.length > 0) {
      const nonNull = kinds.filter((k) => k !== "null");
      kind = nonNull.length === 0 ? "null" : sitesHere.length > 0 && nonNull.includes("object") ? "object" : this.#pick(nonNull);
    } else if (view.parts.some((p) => ["properties", "additionalProperties", "patternProperties", "required"].some((k) => hasOwn(p, k)))) {
      kind = "object";
    } else if (view.parts.some((p) => hasOwn(p, "items") || hasOwn(p, "prefixItems"))) {
      kind = "array";
    } else {
      kind = sitesHere.length > 0 || wantedHere || mode === "taint" ? "object" : this.#pick(["string", "object", "integer"]);
    }
    switch (kind) {
      case "null":
        return null;
      case "boolean":
        return this.#chance(50);
      case "integer":
      case "number":
        return mode === "taint" ? this.#canaryNumber() : numberFor(view.parts, kind === "integer");
      case "string":
        return mode === "taint" ? this.#canaryString() : stringFor(view.parts, this.#int(1, 99));
      case "array":
        return this.#array(s, view.parts, here, pointer, walk, depth, mode);
      default:
        return this.#object(s, view, here, pointer, walk, depth, mode, sitesHere);
    }
  }

  #array(s: Schemas, parts: readonly JsonSchemaObject[], anchors: readonly string[], pointer: Array<string | number>, walk: Walk | undefined, depth: number, mode: "clean" | "pin" | "taint"): unknown[] {
    const prefix = parts.map((p) => getOwn(p, "prefixItems")).find(Array.isArray) as unknown[] | undefined;
    const items = parts.map((p) => getOwn(p, "items")).find((i) => i !== undefined);
    const min = Math.max(0, ...parts.map((p) => (typeof p.minItems === "number" ? p.minItems : 0)));
    const max = Math.min(...parts.map((p) => (typeof p.maxItems === "number" ? p.maxItems : 3)), 3);
    const tooDeep = depth >= HARD_DEPTH || this.#nodes > NODE_BUDGET;
    const count = tooDeep ? Math.min(min, 1) : Math.max(min, Math.min(max, this.#int(mode === "taint" ? 1 : 0, 2)));
    const out: unknown[] = [];
    for (let i = 0; i < count; i++) {
      const itemSchema = prefix !== undefined && i < prefix.length ? prefix[i] : items === undefined ? {} : items;
      if (itemSchema === false) break;
      const value = this.#value(s, itemSchema, anchors, [...pointer, i], walk, depth + 1, mode);
      out.push(value === undefined ? null : value);
    }
    return out;
  }

  #object(
    s: Schemas,
    view: View,
    anchors: readonly string[],
    pointer: Array<string | number>,
    walk: Walk | undefined,
    depth: number,
    mode: "clean" | "pin" | "taint",
    sitesHere: ReadonlyArray<{ key: string; entry: WithheldPath }>,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const members = new Map<string, unknown[]>();
    const required = new Set<string>();
    let open = false;
    let additional: unknown = undefined;
    let listed = false;
    for (const part of view.parts) {
      const properties = getOwn(part, "properties");
      if (isSchemaObject(properties)) {
        listed = true;
        for (const key of Object.keys(properties)) {
          let list = members.get(key);
          if (list === undefined) members.set(key, (list = []));
          list.push(properties[key]);
        }
      }
      if (isSchemaObject(getOwn(part, "patternProperties"))) listed = true;
      const req = getOwn(part, "required");
      if (Array.isArray(req)) for (const key of req) if (typeof key === "string") required.add(key);
      const extra = getOwn(part, "additionalProperties");
      if (extra === true || isSchemaObject(extra)) {
        open = true;
        additional ??= extra;
      }
    }
    if (!listed && view.parts.every((p) => getOwn(p, "additionalProperties") === undefined)) open = true;

    const withheldHere = new Set(sitesHere.map((site) => site.key));
    const childAnchors = (key: string) => anchors.map((a) => (a === "" ? key : `${a}.${key}`));
    const tooDeep = depth >= HARD_DEPTH;
    const frugal = tooDeep || depth >= MAX_DEPTH || this.#nodes > NODE_BUDGET;
    if (!tooDeep) {
      for (const [key, schemas] of members) {
        if (walk !== undefined && withheldHere.has(key)) continue;
        if (depth === 0 && walk !== undefined && hasOwn(walk.pins, key)) continue;
        const isRequired = required.has(key);
        const leadsToWithheld = walk !== undefined && childAnchors(key).some((a) => walk.wanted.has(a));
        const include = isRequired || (!frugal && (mode === "taint" ? depth < 3 : leadsToWithheld ? this.#chance(60) : this.#chance(depth < 2 ? 50 : 25)));
        if (!include) continue;
        const schema = schemas.length === 1 ? schemas[0] : { allOf: schemas };
        const value = this.#value(s, schema, childAnchors(key), [...pointer, key], walk, depth + 1, mode);
        if (value !== undefined) setOwn(out, key, value);
      }
      if (open && !frugal) {
        // An open object reaches withheld paths the schema does not list (generator-withheld
        // members of free-form objects): build the way to them.
        for (const key of walk === undefined ? [] : nextWanted(walk.wanted, anchors)) {
          if (members.has(key) || hasOwn(out, key) || withheldHere.has(key)) continue;
          const value = this.#value(s, { type: "object" }, childAnchors(key), [...pointer, key], walk, depth + 1, mode);
          if (value !== undefined) setOwn(out, key, value);
        }
        if (mode === "taint") {
          setOwn(out, this.#canaryString(), this.#canaryString());
        } else if (this.#chance(25)) {
          const key = `extra_${this.#int(1, 9)}`;
          if (!hasOwn(out, key) && !withheldHere.has(key) && !members.has(key)) {
            const value = this.#value(s, isSchemaObject(additional) ? additional : { type: "string" }, childAnchors(key), [...pointer, key], walk, depth + 1, mode);
            if (value !== undefined) setOwn(out, key, value);
          }
        }
      }
    }
    if (walk !== undefined && mode === "clean") {
      const keys = new Set<string>();
      for (const { key, entry } of sitesHere) {
        if (keys.has(key) || walk.sites.length >= MAX_SITES * 4) continue;
        keys.add(key);
        walk.sites.push({ pointer, key, entry, schemas: walk.memberSchemas(entry) });
      }
    }
    return out;
  }

  /** Applies the refs, `allOf` parts and one drawn branch of each union at a position. */
  #choose(s: Schemas, schema: unknown): View {
    const parts: JsonSchemaObject[] = [];
    const types = allAlternatives(s, schema).types;
    const seen = new Set<unknown>();
    const stack: unknown[] = [schema];
    while (stack.length > 0 && parts.length < 200) {
      const node = stack.pop();
      if (node === true || node === undefined) continue;
      if (!isSchemaObject(node) || seen.has(node)) continue;
      seen.add(node);
      parts.push(node);
      const def = refName(getOwn(node, "$ref"));
      if (def !== undefined && hasOwn(s.defs, def)) stack.push(s.defs[def]);
      const all = getOwn(node, "allOf");
      if (Array.isArray(all)) stack.push(...all);
      for (const keyword of ["anyOf", "oneOf"]) {
        const list = getOwn(node, keyword);
        if (Array.isArray(list) && list.length > 0) stack.push(this.#pick(list));
      }
    }
    return { parts, types };
  }

  // -- canaries -----------------------------------------------------------------------

  #canaryString(): string {
    const canary = `CANARY_${this.#canaries.length}_${this.#suffix}`;
    this.#canaries.push(canary);
    return canary;
  }

  #canaryNumber(): number {
    const digits = `9${String(this.#canaries.length).padStart(3, "0")}${String(parseInt(this.#suffix, 36)).padStart(5, "0").slice(-5)}`;
    this.#canaries.push(digits);
    return Number(digits);
  }

  /** A value for a withheld key that carries a canary: typed like the member, a string, an object keyed by a canary, or an array. */
  #canaryValue(site: Site): unknown {
    const variant = this.#int(0, 3);
    if (variant === 0 && site.schemas.length > 0) {
      const before = this.#canaries.length;
      const schema = site.schemas.length === 1 ? site.schemas[0] : { anyOf: site.schemas };
      const value = this.#value(this.#p.schemas, schema, [], [], undefined, 0, "taint");
      if (this.#canaries.length > before && value !== undefined) return value;
    }
    if (variant === 2) return { [this.#canaryString()]: this.#canaryString() };
    if (variant === 3) return [this.#canaryString()];
    return this.#canaryString();
  }

  #onWire(text: string): string[] {
    let decoded = text;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      // Not percent-decodable as a whole; the raw text is searched.
    }
    return this.#canaries.filter((canary) => text.includes(canary) || decoded.includes(canary));
  }

  // -- the properties -----------------------------------------------------------------

  async #checkRefusesCanaries(derived: Tool<object>, dirty: unknown, placed: Array<{ site: Site; pointer: string }>): Promise<void> {
    let issues: readonly ArgumentIssue[];
    try {
      issues = derived.check(dirty);
    } catch (error) {
      this.#checkThrew(error);
      return;
    }
    for (const { site, pointer } of placed) {
      const covered = issues.some((issue) => issue.path === "" || issue.path === pointer || pointer.startsWith(`${issue.path}/`));
      if (!covered) {
        this.#find("unrefused", "check", `withheld ${site.entry.path} (${site.entry.reason}) sent at ${pointer}; check() raised no issue there`);
        return;
      }
    }
  }

  /** check() reports problems as a list; a coded throw (INTERNAL_LIMIT) is counted, anything else is a finding. */
  #checkThrew(error: unknown): void {
    if (!(error instanceof SluiceError)) this.#find("uncoded_error", "check", describeError(error));
    else if (this.#report) bump(this.#report.otherErrors, error.code);
  }

  #context(derived: Tool<object>): CallContext {
    const base = this.#server?.url ?? "http://127.0.0.1:9";
    return { baseUrl: derived.binding.kind === "graphql" ? `${base}/graphql` : base, credentials, timeoutMs: 5_000 };
  }

  async #requestHasNoCanary(derived: Tool<object>, dirty: unknown): Promise<void> {
    let text: string;
    try {
      const request = await derived.request(dirty as Record<string, unknown>, this.#context(derived));
      const body = request.body === undefined ? "" : typeof request.body === "string" ? request.body : Buffer.from(request.body).toString("latin1");
      text = `${request.method} ${request.url}\n${Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${body}`;
      if (this.#report) this.#report.requests.built++;
    } catch (error) {
      this.#classify(error, "request", this.#report?.requests.refused);
      return;
    }
    this.#leaks(text, "request");
  }

  async #callSendsNoCanary(derived: Tool<object>, dirty: unknown): Promise<void> {
    const server = this.#server!;
    const before = server.received.length;
    if (this.#report) this.#report.calls.made++;
    try {
      await derived.call(dirty as Record<string, unknown>, this.#context(derived));
    } catch (error) {
      if (server.received.length === before) this.#classify(error, "call", this.#report?.calls.refused);
      else if (!(error instanceof SluiceError)) this.#find("uncoded_error", "call", describeError(error));
    }
    const sent = server.received.slice(before);
    if (sent.length > 0 && this.#report) this.#report.calls.sent++;
    for (const request of sent) this.#leaks(wireText(request), "call");
  }

  #leaks(text: string, via: "request" | "call"): void {
    const found = this.#onWire(text);
    if (found.length === 0) return;
    if (this.#report) this.#report.withheldBytesOnWire += found.reduce((n, c) => n + c.length, 0);
    const at = found.map((canary) => {
      const i = text.indexOf(canary);
      return i < 0 ? canary : text.slice(Math.max(0, i - 60), i + canary.length + 20).replace(/\s+/g, " ");
    });
    this.#find("leak", via, `${found.length} canar${found.length === 1 ? "y" : "ies"} on the wire: ${at.slice(0, 3).join(" | ")}`);
  }

  #classify(error: unknown, via: "request" | "call", refused: Record<string, number> | undefined): void {
    if (!(error instanceof SluiceError)) {
      this.#find("uncoded_error", via, describeError(error));
    } else if (REFUSALS.has(error.code)) {
      if (refused) bump(refused, error.code);
    } else if (this.#report) {
      bump(this.#report.otherErrors, error.code);
    }
  }

  async #cleanIsNotRefused(derived: Tool<object>, clean: Record<string, unknown>): Promise<void> {
    let issues: readonly ArgumentIssue[];
    try {
      issues = derived.check(clean);
    } catch (error) {
      this.#checkThrew(error);
      return;
    }
    const denied = issues.filter((issue) => issue.code === "withheld" || issue.code === "pinned");
    if (denied.length > 0) {
      this.#args = clean;
      this.#find("false_refusal", "check", `arguments without canaries refused: ${denied.map((i) => `${i.path} ${i.code}`).join(", ")}`);
      return;
    }
    if (issues.length > 0) return;
    if (this.#report) this.#report.cleanAccepted++;
    const ctx = this.#context(derived);
    const refusedAnyway = async (via: "request" | "call", run: () => Promise<unknown>) => {
      try {
        await run();
        return true;
      } catch (error) {
        if (error instanceof SluiceError && REFUSALS.has(error.code)) {
          this.#args = clean;
          this.#find("false_refusal", via, `check() accepts these arguments but ${via}() refused them: ${error.code} ${error.message.split("\n").slice(0, 3).join(" ")}`);
        } else if (!(error instanceof SluiceError)) {
          this.#find("uncoded_error", via, describeError(error));
        }
        return false;
      }
    };
    if (this.#mode !== "call" && (await refusedAnyway("request", () => derived.request(clean, ctx))) && this.#report) this.#report.requests.built++;
    if (this.#mode !== "request") {
      const before = this.#server!.received.length;
      await refusedAnyway("call", () => derived.call(clean, ctx));
      if (this.#server!.received.length > before && this.#report) this.#report.calls.sent++;
    }
  }
}

/** Keys one level below `anchors` on the way to a withheld key (`meta` -> `audit` for `meta.audit.actor`). */
function nextWanted(wanted: ReadonlySet<string>, anchors: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const anchor of anchors) {
    const prefix = anchor === "" ? "" : `${anchor}.`;
    for (const w of wanted) {
      if (!w.startsWith(prefix)) continue;
      const rest = w.slice(prefix.length);
      if (rest.length > 0 && !rest.includes(".")) keys.add(rest);
    }
  }
  return [...keys].sort();
}

interface Walk {
  byParent: ReadonlyMap<string, ReadonlyArray<{ key: string; entry: WithheldPath }>>;
  /** Anchors on the way to a withheld key (`filter`, `filter.team`, `IssueFilter.team`). */
  wanted: ReadonlySet<string>;
  pins: Readonly<Record<string, unknown>>;
  sites: Site[];
  memberSchemas: (entry: WithheldPath) => JsonSchemaObject[];
}

interface View {
  /** The schemas that apply to the value once one branch of each union is drawn. */
  parts: JsonSchemaObject[];
  /** Every `$defs` type the position may be, whichever branch the value takes. */
  types: Set<string>;
}

// ---------------------------------------------------------------------------------------
// Plain values

/** The allowed values when the parts fix them (`const`, `enum`; intersected), else undefined. */
function fixedValues(parts: readonly JsonSchemaObject[]): unknown[] | undefined {
  let values: unknown[] | undefined;
  for (const part of parts) {
    const list = hasOwn(part, "const") ? [part.const] : Array.isArray(part.enum) ? part.enum : undefined;
    if (list === undefined) continue;
    if (values === undefined) values = [...list];
    else {
      const texts = new Set(list.map((v) => JSON.stringify(v)));
      const both = values.filter((v) => texts.has(JSON.stringify(v)));
      values = both.length > 0 ? both : values;
    }
  }
  return values;
}

function typesOf(parts: readonly JsonSchemaObject[]): string[] {
  let types: string[] | undefined;
  for (const part of parts) {
    const type = getOwn(part, "type");
    const list = typeof type === "string" ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : undefined;
    if (list === undefined) continue;
    const widened = list.includes("number") ? [...list, "integer"] : list;
    if (types === undefined) types = widened;
    else {
      const both = types.filter((t) => widened.includes(t) || (t === "number" && widened.includes("integer")));
      types = both.length > 0 ? both : types;
    }
  }
  return types ?? [];
}

function stringFor(parts: readonly JsonSchemaObject[], n: number): string {
  const format = parts.map((p) => getOwn(p, "format")).find((f) => typeof f === "string");
  const byFormat: Record<string, string> = {
    "date-time": "2024-01-02T03:04:05Z",
    date: "2024-01-02",
    time: "03:04:05Z",
    email: "fuzz@example.com",
    uri: "https://example.com/fuzz",
    url: "https://example.com/fuzz",
    "uri-reference": "/fuzz",
    uuid: "00000000-0000-4000-8000-000000000001",
    ipv4: "192.0.2.1",
    hostname: "example.com",
  };
  let text = typeof format === "string" && hasOwn(byFormat, format) ? byFormat[format]! : `v${n}`;
  const min = Math.max(0, ...parts.map((p) => (typeof p.minLength === "number" ? p.minLength : 0)));
  const max = Math.min(...parts.map((p) => (typeof p.maxLength === "number" ? p.maxLength : Infinity)));
  if (text.length < min) text = text.padEnd(Math.min(min, 10_000), "x");
  if (text.length > max) text = text.slice(0, Math.max(0, max));
  const patterns = parts.map((p) => getOwn(p, "pattern")).filter((p): p is string => typeof p === "string");
  return patterns.length === 0 ? text : (matchingText(patterns, text, min, max) ?? text);
}

/**
 * A string every pattern accepts (within the length bounds), drawn by fast-check's
 * `stringMatching` with a fixed seed, so the same schema always gets the same value;
 * undefined when the patterns are not ones it can draw from (then the caller's text stands).
 */
function matchingText(patterns: readonly string[], text: string, min: number, max: number): string | undefined {
  try {
    const regexes = patterns.map((p) => new RegExp(p, "u"));
    const fits = (t: string) => t.length >= min && t.length <= max && regexes.every((r) => r.test(t));
    if (fits(text)) return text;
    // Drawn from the anchored form first: a string the whole of which matches is short and matches unanchored too.
    const drawn = [new RegExp(`^(?:${patterns[0]!})$`, "u"), regexes[0]!].flatMap((r) => fc.sample(fc.stringMatching(r), { seed: 22, numRuns: 40 }));
    return drawn.filter(fits).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))[0];
  } catch {
    return undefined;
  }
}

function numberFor(parts: readonly JsonSchemaObject[], integer: boolean): number {
  let low = -Infinity;
  let high = Infinity;
  for (const p of parts) {
    if (typeof p.minimum === "number") low = Math.max(low, p.minimum);
    if (typeof p.exclusiveMinimum === "number") low = Math.max(low, p.exclusiveMinimum + (integer ? 1 : 0.5));
    if (typeof p.maximum === "number") high = Math.min(high, p.maximum);
    if (typeof p.exclusiveMaximum === "number") high = Math.min(high, p.exclusiveMaximum - (integer ? 1 : 0.5));
  }
  let value = Number.isFinite(low) ? low : 1;
  if (value > high) value = high;
  return integer ? Math.ceil(value) : value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function at(root: unknown, pointer: ReadonlyArray<string | number>): unknown {
  let node = root;
  for (const segment of pointer) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

function pointerText(pointer: ReadonlyArray<string | number>): string {
  return pointer.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.split("\n")[0]}`;
  return String(error);
}

// ---------------------------------------------------------------------------------------
// Phase 2: the egress map and screening agree

export interface AgreementFinding {
  /** `listed_refused`: the map lists the path, check() refuses it; `unlisted_accepted`: the map does not list it, check() accepts it. */
  kind: "listed_refused" | "unlisted_accepted" | "uncoded_error";
  tool: string;
  /** The map path (selector spelling, branch segments included). */
  path: string;
  detail: string;
  args: unknown;
}

export interface AgreementReport {
  tools: number;
  /** Listed value paths sent alone, and how many of those could not be built (skipped). */
  listed: number;
  listedSkipped: number;
  /** Object positions probed with keys the map does not list there, and the keys sent. */
  positions: number;
  unlistedKeys: number;
  /** check() calls that threw a SluiceError (INTERNAL_LIMIT on a hostile schema), by code. */
  coded: Record<string, number>;
  findings: AgreementFinding[];
}

/**
 * The codes screening refuses a key with: the egress decision the map must agree with.
 * (Validation codes are not: Ajv reports every failing branch of a union, including
 * branches the value was never meant to match.)
 */
// `reserved`: a key refused by its wire name (an exploded object re-creating another name); `prototype_key`: `__proto__` and the like.
const KEY_REFUSALS = new Set(["withheld", "pinned", "unknown", "reserved", "prototype_key"]);
const BRANCH_SEGMENT = /^(anyOf|oneOf)\[(.+)\]$/;
const UNLISTED_KEY = "zz_unlisted_key";
const ANY_KEY = "zz_any_key";

type Op = { item: true } | { key: string };

/**
 * For each tool: every value path its egress map lists (`+`, in `visible` and in type
 * sections, reached through `continues`) is sent alone, with a minimal value of its
 * schema, and `check()` must not refuse the key; at every object position the map
 * lists, each key the schema declares there but the map does not list, and one random
 * key, must be refused, unless the map says the position is open (`*`) or a listed
 * pattern matches the key. Paths whose value cannot be built are skipped and counted.
 */
export function egressAgreement(tools: readonly Tool<object>[], map: (tools: readonly Tool<object>[]) => ReadonlyArray<MapEntry>): AgreementReport {
  const report: AgreementReport = { tools: tools.length, listed: 0, listedSkipped: 0, positions: 0, unlistedKeys: 0, coded: {}, findings: [] };
  for (const tool of tools) {
    let entry: MapEntry | undefined;
    try {
      entry = map([tool])[0];
    } catch (error) {
      if (error instanceof SluiceError) bump(report.coded, error.code);
      else report.findings.push({ kind: "uncoded_error", tool: tool.name, path: "", detail: `egressMap: ${describeError(error)}`, args: undefined });
      continue;
    }
    if (entry === undefined) continue;
    const s = schemasOf(tool);
    const routes = mapRoutes(entry);
    const listedAt = new Map<string, Set<string>>();
    const positionRoute = new Map<string, string[]>([["", []]]);
    const addChild = (route: readonly string[], child: string) => {
      const key = valueKey(route);
      let set = listedAt.get(key);
      if (set === undefined) listedAt.set(key, (set = new Set()));
      set.add(child);
      if (!positionRoute.has(key)) positionRoute.set(key, [...route]);
    };
    for (const { route, continues } of routes) {
      const last = route[route.length - 1]!;
      if (!BRANCH_SEGMENT.test(last)) addChild(route.slice(0, -1), last);
      for (const section of withIncludes(entry, continues)) for (const member of sectionChildren(entry, section)) addChild(route, member);
    }
    // Sent alone, a listed path is accepted.
    for (const { route, path, type } of routes) {
      const last = route[route.length - 1]!;
      if (BRANCH_SEGMENT.test(last) || type.startsWith("nested deeper")) continue;
      report.listed++;
      const built = buildArgs(s, route, undefined);
      if (built === undefined) {
        report.listedSkipped++;
        continue;
      }
      const issues = checkOrCount(tool, built.args, report);
      if (issues === undefined) continue;
      const refusal = issues.find((i) => KEY_REFUSALS.has(i.code) && (i.path === built.pointer || built.pointer.startsWith(`${i.path}/`)));
      if (refusal !== undefined) {
        report.findings.push({ kind: "listed_refused", tool: tool.name, path, detail: `the map lists ${path} (${type}); check() refuses ${refusal.path}: ${refusal.code} ${refusal.message}`, args: built.args });
      }
    }
    // At a listed object position, a key the map does not list is refused.
    // Value positions below a `*: any` (an open branch or object) hold anything, and the map says so there.
    const openAny = new Set<string>();
    for (const { route, type } of routes) if (route[route.length - 1] === "*" && type === "any") openAny.add(valueKey(route.slice(0, -1)));
    const belowOpen = (key: string) => [...openAny].some((open) => key !== open && (open === "" || key.startsWith(`${open}\u0000`)));
    for (const [key, route] of positionRoute) {
      const listed = listedAt.get(key) ?? new Set<string>();
      if (listed.has("*") || belowOpen(key)) continue;
      const patterns = [...listed].filter((c) => c.length > 1 && c.startsWith("/") && c.endsWith("/")).map((c) => safeRegex(c.slice(1, -1)));
      const declared = declaredKeys(s, route);
      if (declared === undefined) continue;
      report.positions++;
      for (const candidate of [...declared, UNLISTED_KEY]) {
        if (listed.has(candidate) || patterns.some((p) => p === undefined || p.test(candidate))) continue;
        report.unlistedKeys++;
        const built = buildArgs(s, route, candidate);
        if (built === undefined) continue;
        const issues = checkOrCount(tool, built.args, report);
        if (issues === undefined) continue;
        if (!issues.some((i) => i.path === built.pointer || i.path.startsWith(`${built.pointer}/`) || (KEY_REFUSALS.has(i.code) && built.pointer.startsWith(`${i.path}/`)))) {
          const where = route.length === 0 ? "the top level" : route.join(".");
          report.findings.push({ kind: "unlisted_accepted", tool: tool.name, path: [...route, candidate].join("."), detail: `the map does not list "${candidate}" at ${where}; check() accepts it`, args: built.args });
        }
      }
    }
  }
  return report;
}

/** check(), with a coded throw counted and an uncoded one reported. */
function checkOrCount(tool: Tool<object>, args: unknown, report: AgreementReport): readonly ArgumentIssue[] | undefined {
  try {
    return tool.check(args);
  } catch (error) {
    if (error instanceof SluiceError) bump(report.coded, error.code);
    else report.findings.push({ kind: "uncoded_error", tool: tool.name, path: "", detail: describeError(error), args });
    return undefined;
  }
}

/** What the agreement check reads of an egress map entry (the shape of `egressMap()`'s entries). */
export interface MapEntry {
  visible: ReadonlyArray<{ path: string; segments?: readonly string[]; type: string; continues?: readonly string[] }>;
  types: ReadonlyArray<{ name: string; includes?: readonly string[]; members: ReadonlyArray<{ path: string; segments?: readonly string[]; type: string; continues?: readonly string[] }> }>;
}

interface Routed {
  /** Segments from the root (branch segments included). */
  route: string[];
  path: string;
  type: string;
  continues: readonly string[];
}

/** Every listed path with a route from the root: visible paths, and section members through the first path that continues into their section. */
function mapRoutes(entry: MapEntry): Routed[] {
  const out: Routed[] = [];
  const sectionRoute = new Map<string, string[]>();
  const queue: string[] = [];
  const take = (route: string[], path: string, type: string, continues: readonly string[] | undefined) => {
    out.push({ route, path, type, continues: withIncludes(entry, continues ?? []) });
    for (const section of withIncludes(entry, continues ?? [])) {
      if (sectionRoute.has(section)) continue;
      sectionRoute.set(section, route);
      queue.push(section);
    }
  };
  for (const line of entry.visible) take([...(line.segments ?? line.path.split("."))], line.path, line.type, line.continues);
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head]!;
    const section = entry.types.find((t) => t.name === name);
    const base = sectionRoute.get(name)!;
    for (const member of section?.members ?? []) {
      const segments = member.segments ?? member.path.split(".");
      take([...base, ...segments.slice(1)], member.path, member.type, member.continues);
    }
  }
  return out;
}

/** The keys a section lists directly below its root (through its branch segments). */
/** Sections and, transitively, the sections they include (their members apply at the same value). */
function withIncludes(entry: MapEntry, names: readonly string[]): string[] {
  const out = [...new Set(names)];
  for (let head = 0; head < out.length; head++) {
    for (const included of entry.types.find((t) => t.name === out[head])?.includes ?? []) if (!out.includes(included)) out.push(included);
  }
  return out;
}

function sectionChildren(entry: MapEntry, name: string): string[] {
  const section = entry.types.find((t) => t.name === name);
  const out: string[] = [];
  for (const member of section?.members ?? []) {
    const rest = (member.segments ?? member.path.split(".")).slice(1).filter((seg) => !BRANCH_SEGMENT.test(seg));
    if (rest.length === 1) out.push(rest[0]!);
  }
  return out;
}

function valueKey(route: readonly string[]): string {
  return route.filter((seg) => !BRANCH_SEGMENT.test(seg)).join("\u0000");
}

function safeRegex(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return undefined;
  }
}

/** Every schema node that applies at a position, through refs, `allOf` and (with `unions`) every branch. */
function expandGroup(s: Schemas, group: readonly unknown[], unions: boolean): JsonSchemaObject[] {
  const out: JsonSchemaObject[] = [];
  const seen = new Set<unknown>();
  const stack = [...group];
  while (stack.length > 0 && out.length < 500) {
    const node = stack.pop();
    if (node === true) {
      stack.push({});
      continue;
    }
    if (!isSchemaObject(node) || seen.has(node)) continue;
    seen.add(node);
    out.push(node);
    const def = refName(getOwn(node, "$ref"));
    if (def !== undefined && hasOwn(s.defs, def)) stack.push(s.defs[def]);
    for (const keyword of unions ? ["allOf", "anyOf", "oneOf"] : ["allOf"]) {
      const list = getOwn(node, keyword);
      if (Array.isArray(list)) stack.push(...list);
    }
  }
  return out;
}

const isObjectish = (n: JsonSchemaObject) => {
  const type = getOwn(n, "type");
  return type === "object" || (Array.isArray(type) && type.includes("object")) || ["properties", "additionalProperties", "patternProperties"].some((k) => hasOwn(n, k));
};
const isArrayish = (n: JsonSchemaObject) => {
  const type = getOwn(n, "type");
  return type === "array" || (Array.isArray(type) && type.includes("array")) || hasOwn(n, "items") || hasOwn(n, "prefixItems");
};

/** Follows a route through the schema: the ops that build a value along it, and the schemas at its end. */
function walkRoute(s: Schemas, route: readonly string[]): { ops: Op[]; group: unknown[] } | undefined {
  let group: unknown[] = [s.root];
  const ops: Op[] = [];
  for (const segment of route) {
    const branch = BRANCH_SEGMENT.exec(segment);
    if (branch !== null) {
      const [, keyword, label] = branch;
      const chosen: unknown[] = [];
      for (const node of expandGroup(s, group, true)) {
        const list = getOwn(node, keyword!);
        if (!Array.isArray(list)) continue;
        list.forEach((b, index) => {
          const def = isSchemaObject(b) ? refName(getOwn(b, "$ref")) : undefined;
          if (String(index) === label || (def !== undefined && typeName(s, def) === label)) chosen.push(b);
        });
      }
      if (chosen.length === 0) return undefined;
      group = chosen;
      continue;
    }
    for (let wraps = 0; wraps < 3; wraps++) {
      const nodes = expandGroup(s, group, true);
      if (nodes.some(isObjectish) || !nodes.some(isArrayish)) break;
      ops.push({ item: true });
      group = arrayItems(s, nodes);
      if (group.length === 0) return undefined;
    }
    const key = segment === "*" ? ANY_KEY : segment.length > 1 && segment.startsWith("/") && segment.endsWith("/") ? patternKey(segment.slice(1, -1)) : segment;
    if (key === undefined) return undefined;
    const children = childSchemas(s, group, key);
    if (children.length === 0) return undefined;
    ops.push({ key });
    group = children;
  }
  return { ops, group };
}

/** Schemas of the first item of arrays; a tuple whose first item cannot be an object gives none (the probe is skipped). */
function arrayItems(s: Schemas, nodes: readonly JsonSchemaObject[]): unknown[] {
  const out: unknown[] = [];
  for (const node of nodes.filter(isArrayish)) {
    const prefix = getOwn(node, "prefixItems");
    if (Array.isArray(prefix) && prefix.length > 0) {
      if (expandGroup(s, [prefix[0]], true).some(isObjectish)) out.push(prefix[0]);
      continue;
    }
    const items = getOwn(node, "items");
    if (items !== false) out.push(items ?? {});
  }
  return out;
}

/** Schemas of `key` below a position: declared, pattern-matched, or admitted by `additionalProperties`. */
function childSchemas(s: Schemas, group: readonly unknown[], key: string): unknown[] {
  const out: unknown[] = [];
  for (const node of expandGroup(s, group, true)) {
    const properties = getOwn(node, "properties");
    let matched = false;
    if (isSchemaObject(properties) && hasOwn(properties, key)) {
      out.push(properties[key]);
      matched = true;
    }
    const patterns = getOwn(node, "patternProperties");
    if (isSchemaObject(patterns)) {
      for (const pattern of Object.keys(patterns)) {
        if (safeRegex(pattern)?.test(key)) {
          out.push(patterns[pattern]);
          matched = true;
        }
      }
    }
    const additional = getOwn(node, "additionalProperties");
    if (!matched && (additional === true || isSchemaObject(additional))) out.push(additional);
  }
  if (out.length === 0 && key === ANY_KEY) out.push({});
  return out.filter((schema) => schema !== false);
}

function patternKey(pattern: string): string | undefined {
  const regex = safeRegex(pattern);
  if (regex === undefined) return undefined;
  for (const candidate of ["x-fuzz", "fuzz", "a", "0", "A", "x_fuzz", "fuzz_1"]) if (regex.test(candidate)) return candidate;
  try {
    const [sample] = fc.sample(fc.stringMatching(regex), { seed: 1, numRuns: 1 });
    return sample !== undefined && regex.test(sample) ? sample : undefined;
  } catch {
    return undefined;
  }
}

/** The property names the schema declares at a position (every branch), or undefined when the route does not resolve. */
function declaredKeys(s: Schemas, route: readonly string[]): string[] | undefined {
  const walked = walkRoute(s, route);
  if (walked === undefined) return undefined;
  let group = walked.group;
  for (let wraps = 0; wraps < 3; wraps++) {
    const nodes = expandGroup(s, group, true);
    if (nodes.some(isObjectish) || !nodes.some(isArrayish)) break;
    group = arrayItems(s, nodes);
    if (group.length === 0) return undefined;
  }
  const keys = new Set<string>();
  for (const node of expandGroup(s, group, true)) {
    const properties = getOwn(node, "properties");
    if (isSchemaObject(properties)) for (const key of Object.keys(properties)) keys.add(key);
  }
  return [...keys].sort().slice(0, 60);
}

/** Arguments holding a minimal value at the end of `route` (or, with `extraKey`, an object at the route's end holding only that key). */
function buildArgs(s: Schemas, route: readonly string[], extraKey: string | undefined): { args: Record<string, unknown>; pointer: string } | undefined {
  const walked = walkRoute(s, extraKey === undefined ? route : [...route]);
  if (walked === undefined) return undefined;
  let ops = walked.ops;
  let leaf: unknown;
  if (extraKey === undefined) {
    leaf = minimalValue(s, walked.group, 0);
  } else {
    let group = walked.group;
    const more: Op[] = [];
    for (let wraps = 0; wraps < 3; wraps++) {
      const nodes = expandGroup(s, group, true);
      if (nodes.some(isObjectish) || !nodes.some(isArrayish)) break;
      more.push({ item: true });
      group = arrayItems(s, nodes);
      if (group.length === 0) return undefined;
    }
    const children = childSchemas(s, group, extraKey);
    ops = [...ops, ...more, { key: extraKey }];
    leaf = children.length > 0 ? minimalValue(s, children, 0) : "v";
  }
  if (ops.length === 0 || !("key" in ops[0]!)) return undefined;
  let value = leaf;
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i]!;
    if ("item" in op) value = [value];
    else {
      const holder: Record<string, unknown> = {};
      setOwn(holder, op.key, value);
      value = holder;
    }
  }
  return { args: value as Record<string, unknown>, pointer: pointerText(ops.map((op) => ("item" in op ? 0 : op.key))) };
}

/** A small valid value for a group of schemas: const/enum first, then by type; objects get their required members. */
function minimalValue(s: Schemas, group: readonly unknown[], depth: number): unknown {
  const parts = conjunction(s, group, true);
  const fixed = fixedValues(parts);
  // An empty string is a valid enum value that no path segment can carry: take another when there is one.
  if (fixed !== undefined) return fixed.length === 0 ? null : (fixed.find((value) => value !== "") ?? fixed[0]);
  const types = typesOf(parts);
  const prefer = ["string", "integer", "number", "boolean", "object", "array", "null"];
  const kind = prefer.find((t) => types.includes(t)) ?? (parts.some(isObjectish) ? "object" : parts.some(isArrayish) ? "array" : "string");
  switch (kind) {
    case "string":
      return stringFor(parts, 1);
    case "integer":
    case "number":
      return numberFor(parts, kind === "integer");
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const min = Math.max(0, ...parts.map((p) => (typeof p.minItems === "number" ? p.minItems : 0)));
      const items = parts.map((p) => getOwn(p, "items")).find((i) => i !== undefined) ?? {};
      return depth > 4 ? [] : Array.from({ length: Math.min(min, 2) }, () => minimalValue(s, [items], depth + 1));
    }
    default: {
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      for (const part of parts) {
        const required = getOwn(part, "required");
        if (!Array.isArray(required)) continue;
        for (const key of required) {
          if (typeof key !== "string" || hasOwn(out, key)) continue;
          const children = childSchemas(s, parts, key);
          if (children.length > 0) setOwn(out, key, minimalValue(s, children, depth + 1));
        }
      }
      // minProperties past the required members: filled with keys the object admits (a free-form map's `k1`, ...).
      const atLeast = Math.max(0, ...parts.map((p) => (typeof p.minProperties === "number" ? p.minProperties : 0)));
      const extra = parts.map((p) => getOwn(p, "additionalProperties")).find((a) => a !== undefined && a !== false);
      for (let i = 1; Object.keys(out).length < Math.min(atLeast, 8) && i <= 8; i++) {
        if (!hasOwn(out, `k${i}`)) setOwn(out, `k${i}`, extra === undefined || extra === true ? "v" : minimalValue(s, [extra], depth + 1));
      }
      return out;
    }
  }
}

/** A small valid argument object for a tool (required members only, by the same rules the fuzzer's map agreement uses); used by the wire-name fuzzer. */
export function minimalArguments(tool: Tool<object>): Record<string, unknown> {
  const value = minimalValue(schemasOf(tool), [tool.inputSchema], 0);
  return isPlainObject(value) ? value : {};
}
