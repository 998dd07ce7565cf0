/**
 * No credential reaches the model in any recognisable spelling (issue 21, item 2): an API
 * on 127.0.0.1 answers with an echo of the credential spelled one way or another (and
 * the request as it got it), with 200 (the answer is the tool result) or 400 (the answer
 * is the error message). Every spelling of every credential kind is looked for in what
 * the call hands back: output, raw body, headers, next-page arguments, error texts.
 *
 * The oracle here does not share code with the redaction: it spells each credential in
 * every form of the table and looks for the spelling, and for the spelling of its first
 * 8 characters (a credential cut short), or for 12 characters of its base64.
 */
import { inspect } from "node:util";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { isSluiceError, Tool, type CallContext, type HttpAuthScheme, type HttpBinding, type SluiceError } from "@sluice/core";
import { sendJson, startHttpServer, type LocalServer } from "./support/servers/http.ts";

const TOKEN = "ghp_S3cr3t+b/c=d&e!x*y'z<9>";
const API_KEY = "key_9f8e+7d/6c=5b&4a\"q";
const USER = "sk_test_user42";
const PASSWORD = "pa$$ word:with/colon";
const PAIR = `${USER}:${PASSWORD}`;
const BASIC = Buffer.from(PAIR, "utf8").toString("base64");

type Spell = (value: string) => string;
const codePoints = (v: string) => [...v].map((c) => c.codePointAt(0)!);
const hex = (n: number, width = 2) => n.toString(16).padStart(width, "0");
const percentAll = (v: string, upper: boolean) => [...Buffer.from(v, "utf8")].map((b) => `%${upper ? hex(b).toUpperCase() : hex(b)}`).join("");
const jsonUnits = (v: string) => [...v].flatMap((c) => [...Array(c.length).keys()].map((i) => `\\u${hex(c.charCodeAt(i), 4)}`)).join("");
const html = (v: string) => v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
const mixed = (v: string) =>
  [...v]
    .map((c, i) => [c, percentAll(c, true), `&#${c.codePointAt(0)};`, `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`, jsonUnits(c)][i % 5]!)
    .join("");

/** Spellings of a credential an echo can take: [name, spell, kind]. `embedded`: base64 of the value behind 1 or 2 other bytes. */
const FORMS: Array<[string, Spell, "text" | "base64"]> = [
  ["exact", (v) => v, "text"],
  ["percent-encoded (encodeURIComponent)", encodeURIComponent, "text"],
  ["every byte percent-encoded, lower-case hex", (v) => percentAll(v, false), "text"],
  ["percent-encoded twice", (v) => encodeURIComponent(encodeURIComponent(v)), "text"],
  ["form encoded (+ for space)", (v) => encodeURIComponent(v).replace(/%20/g, "+"), "text"],
  ["JSON \\u escape of every character", jsonUnits, "text"],
  ["JSON-escaped with \\/", (v) => JSON.stringify(v).slice(1, -1).replace(/\//g, "\\/"), "text"],
  ["JSON inside a JSON string", (v) => JSON.stringify(JSON.stringify(v)).slice(1, -1), "text"],
  ["HTML-escaped (named entities)", html, "text"],
  ["HTML-escaped twice", (v) => html(html(v)), "text"],
  ["numeric entities, decimal", (v) => codePoints(v).map((c) => `&#${c};`).join(""), "text"],
  ["numeric entities, hex", (v) => codePoints(v).map((c) => `&#x${c.toString(16)};`).join(""), "text"],
  ["mixed per character", mixed, "text"],
  ["split by a line break", (v) => `${v.slice(0, 5)}\r\n${v.slice(5)}`, "text"],
  ["folded like mail (CRLF + space)", (v) => `${v.slice(0, 9)}\r\n ${v.slice(9)}`, "text"],
  ["a space between every character", (v) => [...v].join(" "), "text"],
  ["upper case", (v) => v.toUpperCase(), "text"],
  ["lower case", (v) => v.toLowerCase(), "text"],
  ["without its last 4 characters", (v) => v.slice(0, -4), "text"],
  ["without its last 4, percent-encoded", (v) => encodeURIComponent(v.slice(0, -4)), "text"],
  ["base64", (v) => Buffer.from(v, "utf8").toString("base64"), "base64"],
  ["base64url", (v) => Buffer.from(v, "utf8").toString("base64url"), "base64"],
  ["base64 at offset 1 of a longer run", (v) => Buffer.from(`\u0001${v}`, "utf8").toString("base64"), "base64"],
  ["base64 at offset 2 of a longer run", (v) => Buffer.from(`\u0001\u0002${v}`, "utf8").toString("base64"), "base64"],
  ["base64 folded at 8 characters (MIME)", (v) => Buffer.from(v, "utf8").toString("base64").replace(/.{8}/g, "$&\r\n"), "base64"],
];

/** Texts whose presence gives `secret` away, for every form of the table. */
function giveaways(secret: string): string[] {
  const out = new Set<string>();
  for (const [, spell, kind] of FORMS) {
    if (kind === "text") {
      out.add(spell(secret));
      out.add(spell(secret.slice(0, 8)));
    } else {
      // Characters 4 to 16: past any byte that came before the value in the run.
      const encoded = spell(secret).replace(/\s+/g, "");
      out.add(encoded.slice(4, 16));
    }
  }
  // A spelling of fewer than 8 characters (the cut-short form of the cut-short prefix) gives nothing away.
  return [...out].filter((piece) => piece.length >= 8);
}

function leaksIn(text: string, secrets: readonly string[]): string[] {
  return secrets.flatMap((secret) => giveaways(secret).filter((piece) => text.includes(piece)).map((piece) => `${JSON.stringify(secret)} as ${JSON.stringify(piece)}`));
}

/** Everything about an error a person, a log or a model could read. */
function everything(error: unknown): string {
  const parts: string[] = [];
  let link: unknown = error;
  for (let depth = 0; link !== undefined && link !== null && depth < 20; depth++) {
    const e = link as { message?: unknown; stack?: unknown; cause?: unknown };
    parts.push(String(e.message), String(e.stack), JSON.stringify(link) ?? "");
    link = typeof link === "object" ? e.cause : undefined;
  }
  parts.push(inspect(error, { depth: 20 }));
  return parts.join("\n");
}

/** What the mock API answers next: the credential spelled by `spell`, with `status`. */
let answer: { secret: string; spell: Spell; status: number; body?: (echoed: string) => unknown; text?: boolean } = { secret: TOKEN, spell: (v) => v, status: 200 };
let server: LocalServer;

beforeAll(async () => {
  server = await startHttpServer((request, res) => {
    const echoed = answer.spell(answer.secret);
    if (answer.text === true) {
      res.writeHead(answer.status, { "content-type": "text/plain; charset=utf-8" });
      res.end(`request from ${echoed} seen\n${request.headers["authorization"] ?? ""}`);
      return;
    }
    sendJson(
      res,
      answer.status,
      answer.body?.(echoed) ?? {
        message: `request from ${echoed} seen`,
        next: `cursor-${echoed}`,
        data: [{ id: "item_1", note: echoed }],
        // The request as the API got it: URL, headers and body, verbatim.
        request: { path: request.path, headers: request.headers, body: request.body },
      },
      { "x-echo": encodeURIComponent(echoed).slice(0, 2000) },
    );
  });
});
afterAll(async () => {
  await server.close();
});

function echoTool(auth: HttpAuthScheme[][], binding: Partial<HttpBinding> = {}): Tool {
  return Tool.create({
    name: "echo",
    description: "Calls an API that echoes what it gets.",
    inputSchema: { type: "object", properties: { text: { type: "string" }, cursor: { type: "string" } } },
    binding: {
      kind: "http",
      method: "POST",
      path: "/echo",
      server: "https://api.example.invalid",
      parameters: [{ arg: "cursor", name: "cursor", in: "query", style: "form", explode: true }],
      body: { mediaType: "application/json", encoding: "json", fields: { text: "text" } },
      auth,
      ...binding,
    },
  }).derived({ name: "echo", pagination: { style: "cursor", arg: "cursor", cursor: "next" } });
}

/** One credential kind: the tool, how the call gets the credential, the secrets that must not show. */
interface Kind {
  tool: Tool;
  ctx: () => CallContext;
  secrets: string[];
}

const KINDS: Array<[string, Kind]> = [
  ["bearer", { tool: echoTool([[{ scheme: "bearerAuth", type: "bearer" }]]), ctx: () => ({ credentials: { bearerAuth: { token: TOKEN } } }), secrets: [TOKEN] }],
  [
    "Basic (user, password, pair, base64)",
    { tool: echoTool([[{ scheme: "basicAuth", type: "basic" }]]), ctx: () => ({ credentials: { basicAuth: { username: USER, password: PASSWORD } } }), secrets: [USER, PASSWORD, PAIR, BASIC] },
  ],
  ["apiKey in a header", { tool: echoTool([[{ scheme: "key", type: "apiKey", in: "header", name: "X-Api-Key" }]]), ctx: () => ({ credentials: { key: { token: API_KEY } } }), secrets: [API_KEY] }],
  ["apiKey in the query", { tool: echoTool([[{ scheme: "key", type: "apiKey", in: "query", name: "api_key" }]]), ctx: () => ({ credentials: { key: { token: API_KEY } } }), secrets: [API_KEY] }],
  ["apiKey in a cookie", { tool: echoTool([[{ scheme: "key", type: "apiKey", in: "cookie", name: "sid" }]]), ctx: () => ({ credentials: { key: { token: API_KEY } } }), secrets: [API_KEY] }],
  ["Authorization in ctx.headers (how MCP sends undeclared auth)", { tool: echoTool([]), ctx: () => ({ headers: { Authorization: `Bearer ${TOKEN}` } }), secrets: [TOKEN] }],
  [
    "Slack-style credential parameter (token in the form body)",
    {
      tool: echoTool([[{ scheme: "slackAuth", type: "bearer" }]], {
        body: { mediaType: "application/x-www-form-urlencoded", encoding: "form", fields: { text: "text", token: "token" }, credentialFields: { token: "slackAuth" } },
      }),
      ctx: () => ({ credentials: { slackAuth: { token: TOKEN } } }),
      secrets: [TOKEN],
    },
  ],
];

/** Which secret of a kind the API spells: each in turn for Basic. */
function spelledSecrets(kind: Kind): string[] {
  return kind.secrets;
}

async function callOk(kind: Kind, secret: string, spell: Spell): Promise<string> {
  answer = { secret, spell, status: 200 };
  const result = await kind.tool.invoke({ text: "hi" }, { ...kind.ctx(), baseUrl: server.url, timeoutMs: 5_000 });
  expect(result.contextBytes).toBe(Buffer.byteLength(JSON.stringify(result.output), "utf8"));
  return [JSON.stringify(result.output), JSON.stringify(result.body), JSON.stringify(result.headers), JSON.stringify(result.nextPageArgs ?? null)].join("\n");
}

async function callFailing(kind: Kind, secret: string, spell: Spell): Promise<string> {
  answer = { secret, spell, status: 400 };
  const error = await kind.tool.invoke({ text: "hi" }, { ...kind.ctx(), baseUrl: server.url, timeoutMs: 5_000 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isSluiceError(error) && (error as SluiceError).status === 400, inspect(error)).toBe(true);
  return everything(error);
}

describe("every spelling of every credential is redacted", () => {
  it.each(FORMS)("%s: in 2xx answers (output, body, headers, nextPageArgs) and in errors", async (_name, spell) => {
    const leaks: string[] = [];
    for (const [kindName, kind] of KINDS) {
      for (const secret of spelledSecrets(kind)) {
        const ok = await callOk(kind, secret, spell);
        expect(ok).toContain("[redacted]");
        // Redaction takes the credential, not the text around it.
        expect(ok).toContain("request from ");
        expect(ok).toContain(" seen");
        for (const leak of leaksIn(ok, kind.secrets)) leaks.push(`${kindName}, 200: ${leak}`);
        const failed = await callFailing(kind, secret, spell);
        expect(failed).toContain("[redacted]");
        for (const leak of leaksIn(failed, kind.secrets)) leaks.push(`${kindName}, 400: ${leak}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it.each(FORMS)("%s: in a text/plain answer (output is the text) and its error", async (_name, spell) => {
    const [, kind] = KINDS[1]!;
    for (const status of [200, 400]) {
      for (const secret of kind.secrets) {
        answer = { secret, spell, status, text: true };
        const outcome = await kind.tool.invoke({ text: "hi" }, { ...kind.ctx(), baseUrl: server.url, timeoutMs: 5_000 }).then(
          (result) => JSON.stringify(result.output) + JSON.stringify(result.body),
          (error: unknown) => everything(error),
        );
        expect(outcome).toContain("[redacted]");
        expect(leaksIn(outcome, kind.secrets)).toEqual([]);
      }
    }
  });

  it("revealCredentials returns the raw body and headers; output and nextPageArgs stay redacted", async () => {
    const [, kind] = KINDS[0]!;
    answer = { secret: TOKEN, spell: (v) => v, status: 200 };
    const result = await kind.tool.invoke({ text: "hi" }, { ...kind.ctx(), baseUrl: server.url, revealCredentials: true });
    expect((result.body as { note?: unknown; data: Array<{ note: string }> }).data[0]!.note).toBe(TOKEN);
    expect(result.headers["x-echo"]).toBe(encodeURIComponent(TOKEN));
    expect(leaksIn(JSON.stringify(result.output), [TOKEN])).toEqual([]);
    expect(result.nextPageArgs).toEqual({ text: "hi", cursor: "cursor-[redacted]" });
  });

  it("a response handler cannot hand a credential back (decoded from the body here), and contextBytes counts what is returned", async () => {
    const [, kind] = KINDS[0]!;
    const tool = kind.tool.derived({
      name: "decoding",
      responseHandler: (body) => ({ decoded: Buffer.from(String((body as { data: Array<{ note: string }> }).data[0]!.note), "base64").toString("utf8"), at: new Date(0) }),
    });
    answer = { secret: TOKEN, spell: (v) => Buffer.from(v).toString("base64"), status: 200 };
    const result = await tool.invoke({ text: "hi" }, { ...kind.ctx(), baseUrl: server.url });
    expect(result.output).toEqual({ decoded: "[redacted]", at: "1970-01-01T00:00:00.000Z" });
    expect(result.contextBytes).toBe(Buffer.byteLength(JSON.stringify(result.output)));
  });

  it("an output without a credential is the handler's own value, untouched", async () => {
    const [, kind] = KINDS[0]!;
    const own = { ok: true, at: new Date(0) };
    const tool = kind.tool.derived({ name: "plain", responseHandler: () => own });
    answer = { secret: "nothing secret here", spell: (v) => v, status: 200 };
    const result = await tool.invoke({ text: "hi" }, { ...kind.ctx(), baseUrl: server.url });
    expect(result.output).toBe(own);
  });

  it("short values: under 4 characters never, 4 to 7 only whole and exact, where no letter or digit touches them", async () => {
    const tool = echoTool([[{ scheme: "bearerAuth", type: "bearer" }]]);
    const cases: Array<[string, string, string]> = [
      ["abc", "abc abcdef", "abc abcdef"],
      ["pw42", "pw42 and pw42x and xpw42 and %70w42 and PW42", "[redacted] and pw42x and xpw42 and [redacted] and PW42"],
      ["s3cr3t!", "s3cr3t! s3cr3 s3cr3t!", "[redacted] s3cr3 [redacted]"],
    ];
    for (const [token, echoed, want] of cases) {
      answer = { secret: token, spell: () => echoed, status: 200 };
      const result = await tool.invoke({ text: "x" }, { credentials: { bearerAuth: { token } }, baseUrl: server.url });
      expect((result.output as { data: Array<{ note: string }> }).data[0]!.note, token).toBe(want);
    }
  });

  it("runs from inside a value count only right after an escape that may have swallowed its start", async () => {
    const tool = echoTool([[{ scheme: "bearerAuth", type: "bearer" }]]);
    const cases: Array<[string, string, string]> = [
      ["test-token-123", "stat-token-2", "stat-token-2"],
      ["1abcdefghijk", "%41abcdefghijk", "%41[redacted]"],
      ["a1b2c3d4e5f6g7h8", "\\ua1b2c3d4e5f6g7h8", "\\ua1b2[redacted]"],
    ];
    for (const [token, echoed, want] of cases) {
      answer = { secret: token, spell: () => echoed, status: 200 };
      const result = await tool.invoke({ text: "x" }, { credentials: { bearerAuth: { token } }, baseUrl: server.url });
      expect((result.output as { data: Array<{ note: string }> }).data[0]!.note, token).toBe(want);
    }
  });

  it("guard redaction: switched off, every kind leaks in 2xx answers and in errors", async () => {
    const leaking: string[] = [];
    await withoutGuard("redaction", async () => {
      for (const [kindName, kind] of KINDS) {
        if (leaksIn(await callOk(kind, kind.secrets[0]!, (v) => v), kind.secrets).length > 0) leaking.push(`${kindName} 200`);
        if (leaksIn(await callFailing(kind, kind.secrets[0]!, (v) => v), kind.secrets).length > 0) leaking.push(`${kindName} 400`);
      }
    });
    expect(leaking).toEqual(KINDS.flatMap(([name]) => [`${name} 200`, `${name} 400`]));
  });
});

/** `json` with `text` put somewhere in it: the `where`-th container (as a new member or item), or beside a bare value. */
function plant(json: unknown, text: string, where: number): unknown {
  const containers: Array<Record<string, unknown> | unknown[]> = [];
  const copy = structuredClone(json);
  const stack: unknown[] = [copy];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    containers.push(node as Record<string, unknown> | unknown[]);
    stack.push(...Object.values(node));
  }
  if (containers.length === 0) return [copy, text];
  const target = containers[where % containers.length]!;
  if (Array.isArray(target)) target.splice(where % (target.length + 1), 0, text);
  else target[`echo_${where % 97}`] = text;
  return copy;
}

describe("property: a random credential echoed in a random form inside a random JSON answer never shows", () => {
  const SEED = Number(process.env.SLUICE_REDACTION_SEED ?? 20_261_201);
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=!*:@$";
  const secretArb = fc.string({ unit: fc.constantFrom(...alphabet), minLength: 8, maxLength: 40 });
  const schemeArb = fc.constantFrom<Array<[string, HttpAuthScheme, (secret: string) => CallContext]>>(
    ["bearer", { scheme: "b", type: "bearer" }, (s) => ({ credentials: { b: { token: s } } })],
    ["query key", { scheme: "k", type: "apiKey", in: "query", name: "api_key" }, (s) => ({ credentials: { k: { token: s } } })],
    ["header key", { scheme: "k", type: "apiKey", in: "header", name: "X-Key" }, (s) => ({ credentials: { k: { token: s } } })],
    ["Basic password", { scheme: "p", type: "basic" }, (s) => ({ credentials: { p: { username: "someone", password: s } } })],
  );

  it("holds for the seeded runs", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        fc.integer({ min: 0, max: FORMS.length - 1 }),
        schemeArb,
        fc.jsonValue({ maxDepth: 3 }),
        fc.string({ maxLength: 6 }),
        fc.string({ maxLength: 6 }),
        fc.boolean(),
        fc.nat(),
        async (secret, formIndex, [, scheme, ctx], json, before, after, failing, where) => {
          runs++;
          const [, spell] = FORMS[formIndex]!;
          const tool = echoTool([[scheme]]);
          const body = (echoed: string) => (failing ? { message: plant(json, echoed, where) } : plant(json, echoed, where));
          answer = { secret, spell: (v) => `${before}${spell(v)}${after}`, status: failing ? 400 : 200, body };
          const call = tool.invoke({ text: "hi" }, { ...ctx(secret), baseUrl: server.url, timeoutMs: 5_000 });
          const seen = failing ? everything(await call.then(() => new Error("no error"), (e: unknown) => e)) : JSON.stringify((await call).output);
          expect(leaksIn(seen, [secret])).toEqual([]);
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
    expect(runs).toBeGreaterThanOrEqual(150);
  });
});
