import { createHash, randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync, closeSync, writeSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { guards } from "@sluice/core/guards";
import { textTokens, type Encoding } from "@sluice/core/tokens";
import { canonicalJson, SluiceError } from "@sluice/schema";
import type { UsageDefinition, UsageSink } from "./usage-sink.ts";

/**
 * The usage store: one JSON file per session under `<dir>/sessions/`, each written whole to
 * a fresh temporary name and renamed over the last version. A file has one writer (the
 * process that runs its session) and a rename is atomic, so several `sluice serve`
 * processes can record at once and a reader only ever sees complete records; nothing is
 * appended to a shared file. A session is small (names, counts, token figures), so it is
 * rewritten whole (at most every FLUSH_MS) rather than kept in an embedded database.
 */
export const USAGE_FORMAT = "sluice-usage/1";

/** The default folder, relative to the project (the folder of sluice.config, or the pack's). */
export const DEFAULT_USAGE_DIR = ".sluice/usage";

/** One session as stored. Names and counts only: no argument, result or credential ever. */
export interface UsageRecord {
  readonly format: typeof USAGE_FORMAT;
  /** Random, unique per session. */
  readonly session: string;
  /** Which pack (or module) was served: its folder relative to the project, `/`-separated. */
  readonly pack: string;
  /** When the session started (ISO 8601, UTC). */
  readonly startedAt: string;
  /** The tools the model was shown. */
  readonly declared: {
    /** sha256 of the set's definitions (canonical JSON, by name): equal digests, equal sets. */
    readonly digest: string;
    /** Sum of the tools' tokens. */
    readonly tokens: number;
    /** Tokens of each definition as sent, by name. */
    readonly tools: Readonly<Record<string, number>>;
  };
  /** Calls by tool name. */
  readonly invoked: Readonly<Record<string, number>>;
}

export interface UsageStoreOptions {
  /** The store folder. */
  dir: string;
  /**
   * The project folder the store belongs to (default: the parent of `dir`). Every folder
   * between it and `dir` that is a symbolic link must resolve inside it: USAGE_DIR_UNSAFE otherwise.
   */
  anchor?: string;
  /** Tokenizer of the definitions (default `o200k_base`). */
  encoding?: Encoding;
}

export interface UsageSessionOptions {
  /** Start time (default now). `sluice serve` takes it from SLUICE_USAGE_NOW, a test hook. */
  startedAt?: Date;
  /**
   * Told once when the record cannot be written (USAGE_DIR_NOT_WRITABLE: the disk is full, the
   * folder went away). Recording then stops; the session it records goes on, since a usage
   * record must never fail a tools/list or a call.
   */
  onError?: (error: SluiceError) => void;
}

/** What `read()` found: the records, oldest first, and the files it could not use (and why). */
export interface UsageReading {
  records: UsageRecord[];
  skipped: { file: string; reason: string }[];
}

const SESSION_FILE = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{16}\.json$/;
// A record holds names and counts; anything this large is not one (and is not read whole).
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Refuses a store folder reached through a symbolic link that leads out of `anchor`: a
 * repository that ships `.sluice` as a link to ~/.ssh must not make serve write there.
 */
function checkLinks(dir: string, anchor: string): void {
  if (!guards.usageStorePath) return;
  const anchorReal = existsSync(anchor) ? realpathSync(anchor) : anchor;
  const parts = inside(dir, anchor) ? relative(anchor, dir).split(sep).filter((part) => part !== "") : [];
  const chain = inside(dir, anchor) ? parts.map((_, i) => join(anchor, ...parts.slice(0, i + 1))) : [dir];
  for (const path of chain) {
    let isLink: boolean;
    try {
      isLink = lstatSync(path).isSymbolicLink();
    } catch {
      return; // Not there yet: mkdir makes real folders from here on.
    }
    if (!isLink) continue;
    let target: string;
    try {
      target = realpathSync(path);
    } catch {
      throw new SluiceError("USAGE_DIR_UNSAFE", `the usage store ${dir}: ${path} is a symbolic link to nowhere; remove it, or pass --usage-dir (SLUICE_USAGE_DIR) to record elsewhere.`);
    }
    if (!inside(target, anchorReal) || path === dir) {
      throw new SluiceError(
        "USAGE_DIR_UNSAFE",
        `the usage store ${dir}: ${path} is a symbolic link to ${target}, ${path === dir ? "and the store folder itself must be a real folder" : `outside ${anchor}`}; remove the link, or pass --usage-dir (SLUICE_USAGE_DIR) a real folder.`,
      );
    }
  }
}

function notWritable(dir: string, cause: unknown): SluiceError {
  const why = (cause as NodeJS.ErrnoException)?.code ?? (cause as Error)?.message ?? String(cause);
  return new SluiceError("USAGE_DIR_NOT_WRITABLE", `the usage store ${dir} cannot be written (${why}); pass --usage-dir (SLUICE_USAGE_DIR) a folder you can write, or --no-usage (SLUICE_USAGE=off) to record nothing.`, { cause });
}

/** Opens (and creates) a store folder; refuses one that is unsafe or not writable, before any session starts. */
export function openUsageStore(options: UsageStoreOptions): UsageStore {
  if (typeof options?.dir !== "string" || options.dir === "") throw new SluiceError("INVALID_OPTION", "openUsageStore takes { dir }: the store folder.");
  const dir = resolve(options.dir);
  const anchor = resolve(options.anchor ?? dirname(dir));
  checkLinks(dir, anchor);
  const sessions = join(dir, "sessions");
  try {
    mkdirSync(sessions, { recursive: true });
  } catch (cause) {
    throw notWritable(dir, cause);
  }
  // Again after mkdir: a link put in place meanwhile is caught before anything is written through it.
  checkLinks(sessions, anchor);
  try {
    accessSync(sessions, constants.W_OK);
    // Local records, not project files: kept out of git without asking the user to.
    const ignore = join(dir, ".gitignore");
    if (!existsSync(ignore)) writeFileSync(ignore, "*\n", { flag: "wx" });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException)?.code !== "EEXIST") throw notWritable(dir, cause);
  }
  return new UsageStore(dir, options.encoding ?? "o200k_base");
}

/** A store folder that exists and may be read (for `sluice usage`), without creating anything. */
export function readUsageStore(dir: string, anchor?: string): UsageReading {
  const root = resolve(dir);
  checkLinks(join(root, "sessions"), resolve(anchor ?? dirname(root)));
  return readRecords(join(root, "sessions"));
}

export class UsageStore {
  readonly dir: string;
  readonly #encoding: Encoding;

  /** @internal Use openUsageStore. */
  constructor(dir: string, encoding: Encoding) {
    this.dir = dir;
    this.#encoding = encoding;
  }

  /** A session's recorder; nothing is written until it declares or records something. */
  session(pack: string, options: UsageSessionOptions = {}): UsageSession {
    if (typeof pack !== "string" || pack === "") throw new SluiceError("INVALID_OPTION", "a usage session needs the pack it serves (a non-empty string).");
    const startedAt = options.startedAt ?? new Date();
    if (!(startedAt instanceof Date) || Number.isNaN(startedAt.getTime())) throw new SluiceError("INVALID_OPTION", "startedAt must be a valid Date.");
    return new UsageSession(join(this.dir, "sessions"), pack, startedAt, this.#encoding, options.onError);
  }

  /** Every record in the store, oldest first (ties by session id). */
  read(): UsageReading {
    return readRecords(join(this.dir, "sessions"));
  }
}

/** One session's recorder: a `UsageSink` that keeps its file up to date. */
export class UsageSession implements UsageSink {
  readonly id: string;
  readonly file: string;
  readonly #pack: string;
  readonly #startedAt: string;
  readonly #encoding: Encoding;
  readonly #definitions = new Map<string, { json: string; tokens: number }>();
  readonly #invoked = new Map<string, number>();
  readonly #onError: ((error: SluiceError) => void) | undefined;
  #closed = false;
  #dirty = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #error: SluiceError | undefined;

  /** @internal Use UsageStore.session. */
  constructor(folder: string, pack: string, startedAt: Date, encoding: Encoding, onError?: (error: SluiceError) => void) {
    this.#onError = onError;
    this.id = randomBytes(8).toString("hex");
    this.#pack = pack;
    this.#startedAt = startedAt.toISOString();
    this.#encoding = encoding;
    const stamp = this.#startedAt.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
    this.file = join(folder, `${stamp}-${this.id}.json`);
  }

  declared(definitions: readonly UsageDefinition[]): void {
    let changed = false;
    for (const definition of definitions) {
      const name = definition?.name;
      if (typeof name !== "string" || name === "") continue;
      const json = canonicalJson(definition);
      if (this.#definitions.get(name)?.json === json) continue;
      this.#definitions.set(name, { json, tokens: textTokens(json, { encoding: this.#encoding }) });
      changed = true;
    }
    if (changed) this.#schedule();
  }

  invoked(name: string): void {
    // Only declared names: a client's made-up name (which could be anything it typed) is not stored.
    if (typeof name !== "string" || !this.#definitions.has(name)) return;
    this.#invoked.set(name, (this.#invoked.get(name) ?? 0) + 1);
    this.#schedule();
  }

  /** Writes what changed now (a call or a listing is otherwise written within FLUSH_MS). */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    pending.delete(this);
    if (this.#dirty) this.#write();
  }

  /** Writes what is left; nothing is recorded after. */
  close(): void {
    this.flush();
    this.#closed = true;
  }

  /** Why the record stopped being written, if it did. */
  get error(): SluiceError | undefined {
    return this.#error;
  }

  /** The record as it stands. */
  record(): UsageRecord {
    const names = [...this.#definitions.keys()].sort(compare);
    const tools: Record<string, number> = {};
    let tokens = 0;
    const digest = createHash("sha256");
    for (const name of names) {
      const entry = this.#definitions.get(name)!;
      tools[name] = entry.tokens;
      tokens += entry.tokens;
      digest.update(entry.json).update("\n");
    }
    const invoked: Record<string, number> = {};
    for (const name of [...this.#invoked.keys()].sort(compare)) invoked[name] = this.#invoked.get(name)!;
    return { format: USAGE_FORMAT, session: this.id, pack: this.#pack, startedAt: this.#startedAt, declared: { digest: `sha256:${digest.digest("hex")}`, tokens, tools }, invoked };
  }

  /**
   * A record is rewritten whole, which costs milliseconds on a busy disk: changes are gathered
   * and written at most every FLUSH_MS (the timer does not hold the process open), and on
   * close and at process exit.
   */
  #schedule(): void {
    if (this.#closed) return;
    this.#dirty = true;
    if (this.#timer !== undefined) return;
    pending.add(this);
    watchExit();
    this.#timer = setTimeout(() => this.flush(), FLUSH_MS);
    this.#timer.unref?.();
  }

  #write(): void {
    this.#dirty = false;
    if (this.#closed) return;
    const text = JSON.stringify(this.record(), null, 1) + "\n";
    const temporary = `${this.file}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      // O_EXCL: a name planted in the folder (a link) is never followed.
      const fd = openSync(temporary, "wx", 0o644);
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, this.file);
    } catch (cause) {
      try {
        rmSync(temporary, { force: true });
      } catch {
        // The folder itself is gone or replaced: there is no temporary file to remove.
      }
      this.#error = notWritable(dirname(dirname(this.file)), cause);
      this.#closed = true;
      this.#onError?.(this.#error);
    }
  }
}

/** How long changes to a record may wait before they are written. */
const FLUSH_MS = 200;

/** Sessions with changes not yet written, flushed at process exit (a server stopped by a signal, an embedding that never closes). */
const pending = new Set<UsageSession>();
let exitWatched = false;

function watchExit(): void {
  if (exitWatched) return;
  exitWatched = true;
  process.once("exit", () => {
    for (const session of [...pending]) session.flush();
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isCountRecord(value: unknown, integer: boolean): value is Record<string, number> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((n) => typeof n === "number" && Number.isFinite(n) && n >= 0 && (!integer || Number.isInteger(n)));
}

/** The record in a file's text, or why it is not one. */
export function parseUsageRecord(text: string): UsageRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not JSON";
  }
  const record = value as Partial<Record<keyof UsageRecord, unknown>>;
  if (typeof value !== "object" || value === null || record.format !== USAGE_FORMAT) return `not a ${USAGE_FORMAT} record`;
  if (typeof record.session !== "string" || typeof record.pack !== "string" || record.pack === "") return "no session or pack";
  if (typeof record.startedAt !== "string" || Number.isNaN(Date.parse(record.startedAt))) return "no valid startedAt";
  const declared = record.declared as Partial<UsageRecord["declared"]> | undefined;
  if (typeof declared !== "object" || declared === null || typeof declared.digest !== "string" || typeof declared.tokens !== "number" || !isCountRecord(declared.tools, true)) return "no valid declared set";
  if (!isCountRecord(record.invoked, true)) return "no valid invoked counts";
  return value as UsageRecord;
}

function readRecords(folder: string): UsageReading {
  const records: UsageRecord[] = [];
  const skipped: { file: string; reason: string }[] = [];
  if (!existsSync(folder)) return { records, skipped };
  for (const name of readdirSync(folder).sort(compare)) {
    if (!name.endsWith(".json")) continue; // a writer's temporary file, or something else
    if (!SESSION_FILE.test(name)) {
      skipped.push({ file: name, reason: "not a session file name" });
      continue;
    }
    const path = join(folder, name);
    const stat = lstatSync(path);
    if (!stat.isFile()) {
      skipped.push({ file: name, reason: "not a regular file" });
      continue;
    }
    if (stat.size > MAX_RECORD_BYTES) {
      skipped.push({ file: name, reason: `larger than ${MAX_RECORD_BYTES} bytes` });
      continue;
    }
    const parsed = parseUsageRecord(readFileSync(path, "utf8"));
    if (typeof parsed === "string") skipped.push({ file: name, reason: parsed });
    else records.push(parsed);
  }
  records.sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || compare(a.session, b.session));
  return { records, skipped };
}
