/**
 * Deterministic, realistic-looking values for mocked payloads. Benchmarks measure payload
 * size, so "Hello World" everywhere would understate it: titles read like titles,
 * descriptions like a few sentences, URLs and emails have their usual length. Nothing
 * here calls Math.random or reads the clock; the same seed gives the same text.
 */

/** FNV-1a, 32 bits: a stable seed from any text. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Small seeded PRNG (mulberry32) with the few helpers the mocks need. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const VERBS = ["Fix", "Add", "Refactor", "Investigate", "Document", "Migrate", "Speed up", "Remove", "Harden", "Rework", "Audit", "Split", "Cache", "Retry"];
const ADJECTIVES = ["flaky", "slow", "stale", "duplicated", "missing", "nested", "legacy", "partial", "paginated", "encrypted", "regional", "expired", "pending", "oversized"];
const NOUNS = [
  "checkout flow", "webhook retries", "invoice export", "search index", "billing alerts", "onboarding emails", "audit log", "rate limiter",
  "session tokens", "payment intents", "release notes", "team dashboard", "sync worker", "CSV importer", "label picker", "notification digest",
  "customer portal", "error budget", "build cache", "mobile deep links", "SSO login", "usage report", "draft replies", "calendar invites",
];
const PLACES = ["in the EU region", "for enterprise workspaces", "after the v2 migration", "on slow networks", "during peak traffic", "for archived projects", "behind the feature flag", "on Safari 17", "for new signups", "in nightly builds"];
const SUBJECTS = ["The sync worker", "Our API gateway", "The nightly job", "The mobile client", "The billing service", "The import pipeline", "Support", "The design team", "QA", "The on-call engineer"];
const PREDICATES = [
  "times out when a page holds more than a few hundred records",
  "retries the same request twice after a 502 from the upstream",
  "reports a mismatch between the cached total and the live count",
  "needs a follow-up once the schema change lands in production",
  "drops the last item of every page when the cursor is reused",
  "was reproduced on staging with a fresh account and default settings",
  "should log the request id so we can trace it across services",
  "keeps the previous value until the browser tab is reloaded",
  "spends most of its time serialising large nested objects",
  "asked for a summary before Thursday's planning meeting",
  "flagged three customers affected since the last deploy",
  "can be closed once the dashboard shows a week without alerts",
];
const FIRST_NAMES = ["Ada", "Grace", "Linus", "Margaret", "Alan", "Barbara", "Dennis", "Frances", "Ken", "Radia", "Edsger", "Katherine", "Tim", "Hedy"];
const LAST_NAMES = ["Lovelace", "Hopper", "Torvalds", "Hamilton", "Turing", "Liskov", "Ritchie", "Allen", "Thompson", "Perlman", "Dijkstra", "Johnson", "Berners-Lee", "Lamarr"];
const WORDS = ["alpha", "north", "cobalt", "summit", "harbor", "ember", "quartz", "maple", "orbit", "delta", "willow", "signal", "atlas", "prism", "lumen", "vertex"];
const KINDS = ["standard", "default", "custom", "internal", "external", "member", "primary"];
const STATES = ["active", "open", "in_progress", "pending", "completed", "draft"];
const COLORS = ["#5e6ad2", "#26b5ce", "#f2c94c", "#eb5757", "#4cb782", "#bb87fc", "#f7c8c1", "#95a2b3"];

export function titleText(rng: Rng): string {
  const base = `${rng.pick(VERBS)} ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`;
  return rng.chance(0.6) ? `${base} ${rng.pick(PLACES)}` : base;
}

export function sentenceText(rng: Rng): string {
  return `${rng.pick(SUBJECTS)} ${rng.pick(PREDICATES)}.`;
}

export function paragraphText(rng: Rng): string {
  const count = rng.int(2, 3);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(sentenceText(rng));
  return out.join(" ");
}

export function personName(rng: Rng): string {
  return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
}

export function handleText(rng: Rng, n: number): string {
  return `${rng.pick(FIRST_NAMES).toLowerCase()}-${rng.pick(WORDS)}-${n}`;
}

export function emailText(rng: Rng, n: number): string {
  return `${rng.pick(FIRST_NAMES).toLowerCase()}.${rng.pick(LAST_NAMES).toLowerCase().replace(/[^a-z]/g, "")}${n}@example.com`;
}

export function urlText(rng: Rng, n: number, hint = "items"): string {
  const segment = hint.replace(/([a-z])([A-Z])/g, "$1-$2").replace(/[^A-Za-z0-9-]+/g, "-").toLowerCase().replace(/^-+|-+$/g, "") || "items";
  return `https://example.com/${rng.pick(WORDS)}/${segment}/${n}`;
}

/** Base time for every generated timestamp: mid-January 2024, UTC. */
const EPOCH_MS = Date.UTC(2024, 0, 15, 9, 30, 0);

export function isoDateTime(n: number): string {
  return new Date(EPOCH_MS + n * 97 * 60_000).toISOString();
}

export function isoDate(n: number): string {
  return isoDateTime(n).slice(0, 10);
}

export function unixSeconds(n: number): number {
  return Math.floor(EPOCH_MS / 1000) + n * 5_820;
}

/** A UUID-shaped string derived from a counter and a seed (version nibble 4, variant 8). */
export function uuidText(seed: number, n: number): string {
  const hex = (value: number, width: number) => (value >>> 0).toString(16).padStart(width, "0").slice(-width);
  const a = hashText(`${seed}:${n}:a`);
  const b = hashText(`${seed}:${n}:b`);
  const c = hashText(`${seed}:${n}:c`);
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b, 3)}-8${hex(c >>> 20, 3)}-${hex(c, 4)}${hex(n, 8)}`;
}

/** Lower-case hex of a given length (git SHAs, etags, node ids). */
export function hexText(seed: number, n: number, length: number): string {
  let out = "";
  let i = 0;
  while (out.length < length) out += hashText(`${seed}:${n}:${i++}`).toString(16).padStart(8, "0");
  return out.slice(0, length);
}

export function opaqueToken(seed: number, n: number): string {
  return Buffer.from(`cursor:${hexText(seed, n, 12)}:${n}`).toString("base64").replace(/=+$/, "");
}

/** How a field's name suggests its string content should look. */
export type TextKind =
  | "title" | "paragraph" | "email" | "url" | "datetime" | "date" | "person" | "handle" | "color" | "hex"
  | "token" | "phone" | "currency" | "country" | "locale" | "timezone" | "status" | "kind" | "slack-ts" | "identifier"
  | "city" | "street" | "street2" | "postal" | "region" | "mime" | "filename" | "phrase";

/** Classifies a property / field name (camelCase or snake_case). */
export function textKind(name: string, owner = ""): TextKind {
  const n = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  const last = n.split(/[_.-]/).pop() ?? n;
  if (n === "city" || n === "town") return "city";
  if (/^(line1|street|street_address|address_line1|address1)$/.test(n)) return "street";
  if (/^(line2|address_line2|address2|suite)$/.test(n)) return "street2";
  if (/(postal_code|postcode|zip|zip_code)$/.test(n)) return "postal";
  if (n === "state" && /address/i.test(owner)) return "region";
  if (/mime_?type$|content_type$|media_type$/.test(n)) return "mime";
  if (/(file_?name)$/.test(n)) return "filename";
  if (/(^|_)e?mail(_address)?$/.test(n) || last === "email") return "email";
  if (/(^|_)(url|uri|href|link|permalink|website|homepage)$/.test(n) || /_url_|url$/.test(n)) return "url";
  if (/(^|_)(created|updated|modified|deleted|archived|completed|started|canceled|cancelled|closed|merged|published|pushed|expires?|due|edited|last_edited|triaged|snoozed)(_at|_time|_on|_date)?$/.test(n) && !/^is_/.test(n)) return "datetime";
  if (/(_at|_time|timestamp)$/.test(n)) return "datetime";
  if (/(_date|^date)$/.test(n)) return "date";
  if (n === "ts" || /_ts$/.test(n)) return "slack-ts";
  if (/(title|subject|headline|summary|display_name|topic|purpose|label)$/.test(n) || n === "name") return "title";
  if (/(description|body|text|content|snippet|message|notes?|comment|markdown|bio|details|reason|body_html|body_text|html|plain_text)$/.test(n)) return "paragraph";
  if (/(real_name|full_name|first_name|last_name|author_name|owner_name|contact_name|given_name|family_name|^name_)/.test(n)) return "person";
  if (/(login|username|user_name|handle|screen_name|slug)$/.test(n)) return "handle";
  if (/(colou?r|hex)$/.test(n)) return "color";
  if (/(sha|hash|etag|checksum|digest|fingerprint|oid)$/.test(n)) return "hex";
  if (/(cursor|token|page_token|next_page|continuation|secret|signature)$/.test(n)) return "token";
  if (/phone/.test(n)) return "phone";
  if (/currency$/.test(n)) return "currency";
  if (/country$/.test(n)) return "country";
  if (/(locale|language|lang)$/.test(n)) return "locale";
  if (/(timezone|time_zone|tz)$/.test(n)) return "timezone";
  if (/(status|state)$/.test(n)) return "status";
  if (/(^|_)(type|kind|category|role|visibility|scope)$/.test(n)) return "kind";
  if (/(^|_)(id|ids|key|identifier|number|ref|code)$/.test(n)) return "identifier";
  return "phrase";
}

/** Owners (a GraphQL type, a parent property) whose `name` is a person's name. */
const PERSON_OWNER = /user|member|person|people|author|owner|assignee|creator|contact|customer|profile|actor|sender|recipient|viewer|collaborator|committer|reviewer|individual/i;

/**
 * A string for a field of the given name. `n` is a per-payload counter that keeps
 * emails, URLs and identifiers distinct; `seed` makes hex and tokens differ per payload;
 * `owner` (type or parent property name) tells a person's `name` from a project's.
 */
export function textFor(name: string, rng: Rng, n: number, seed: number, owner = ""): string {
  switch (textKind(name, owner)) {
    case "city":
      return rng.pick(["San Francisco", "Berlin", "Toronto", "Lisbon", "Osaka", "Austin", "Dublin"]);
    case "street":
      return `${10 + (n % 890)} ${rng.pick(["Market Street", "Harbor Road", "Elm Avenue", "King Street", "Canal Way"])}`;
    case "street2":
      return `Suite ${100 + (n % 800)}`;
    case "region":
      return rng.pick(["CA", "NY", "TX", "WA", "ON", "BE"]);
    case "postal":
      return String(10000 + ((n * 7919) % 89999));
    case "mime":
      return rng.pick(["text/plain", "text/html", "multipart/alternative", "application/pdf", "image/png"]);
    case "filename":
      return `${rng.pick(WORDS)}-${rng.pick(["report", "notes", "invoice", "export", "screenshot"])}-${n}.${rng.pick(["pdf", "csv", "png", "txt"])}`;
    case "title":
      if (PERSON_OWNER.test(owner) && /^(name|display_?name|displayName|full_?name)$/i.test(name)) return personName(rng);
      return titleText(rng);
    case "paragraph":
      return paragraphText(rng);
    case "email":
      return emailText(rng, n);
    case "url":
      return urlText(rng, n, name.replace(/_?url$/i, "") || "items");
    case "datetime":
      return isoDateTime(n);
    case "date":
      return isoDate(n);
    case "person":
      return personName(rng);
    case "handle":
      return handleText(rng, n);
    case "color":
      return rng.pick(COLORS);
    case "hex":
      return hexText(seed, n, 40);
    case "token":
      return opaqueToken(seed, n);
    case "phone":
      return `+1 415 555 ${String(1000 + (n % 9000)).padStart(4, "0")}`;
    case "currency":
      return "usd";
    case "country":
      return rng.pick(["US", "GB", "DE", "FR", "CA", "JP"]);
    case "locale":
      return rng.pick(["en-US", "en-GB", "de-DE", "fr-FR"]);
    case "timezone":
      return rng.pick(["America/Los_Angeles", "Europe/Berlin", "Asia/Tokyo", "UTC"]);
    case "status":
      return rng.pick(STATES);
    case "kind":
      return rng.pick(KINDS);
    case "slack-ts":
      return `${unixSeconds(n)}.${String(100 + (n % 900)).padStart(6, "0")}`;
    case "identifier":
      return `${rng.pick(WORDS).toUpperCase().slice(0, 3)}-${100 + n}`;
    case "phrase":
      return `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`;
  }
}
