/**
 * How servers read names off a request, written from each framework's own parsing code and
 * apart from sluice's rule list (packages/core/src/http/wire-name-rules.ts), so the wire
 * fuzzer can ask: is a canary readable under a withheld, pinned or credential name by any of
 * them? Express's reader is the real `qs` package (a devDependency); the others follow:
 *  - PHP: main/php_variables.c php_register_variable_ex (leading spaces skipped, the name a C
 *    string, `.` and space to `_` before the first `[`, an unmatched `[` to `_`);
 *  - Rack 2 / Rails: Rack::QueryParser (pairs split on /[&;] * /, normalize_params'
 *    \A[\[\]]*([^\[\]]+)\]* for the top-level key), cookies split on /; * /;
 *  - Django: QueryDict (exact names, `+` as space), parse_cookie (names stripped, Python's
 *    whitespace);
 *  - Spring MVC on Tomcat: exact parameter names, then WebDataBinder (`!name` field default,
 *    `_name` field marker, `a.b` and `a[b]` property paths, the first letter's case);
 *  - ASP.NET Core: names compared OrdinalIgnoreCase (upper-cased per character), model binding's
 *    `prefix.Property` and `prefix[key]`.
 * Each reader gives top-level (name, value) pairs; `same` compares a read name with a
 * protected one as that framework compares names.
 */
import qs from "qs";

export interface NameReader {
  server: string;
  query(text: string): Array<[string, unknown]>;
  cookie(header: string): Array<[string, unknown]>;
  same(read: string, protectedName: string): boolean;
}

/** application/x-www-form-urlencoded decoding: `+` is a space; a bad escape is left as written. */
function formDecode(text: string): string {
  const spaced = text.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

function pairs(text: string, separator: RegExp): Array<[string, string]> {
  return text
    .split(separator)
    .filter((part) => part !== "")
    .map((part) => {
      const at = part.indexOf("=");
      return at < 0 ? [formDecode(part), ""] : [formDecode(part.slice(0, at)), formDecode(part.slice(at + 1))];
    });
}

function phpName(raw: string): string | undefined {
  let name = raw.replace(/^ +/, "");
  const nul = name.indexOf("\0");
  if (nul >= 0) name = name.slice(0, nul);
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === "[") {
      if (name.indexOf("]", i) >= 0) return out === "" ? undefined : out;
      out += "_" + name.slice(i + 1);
      return out;
    }
    out += c === " " || c === "." ? "_" : c;
  }
  return out === "" ? undefined : out;
}

function rackName(raw: string): string | undefined {
  const match = /^[[\]]*([^[\]]+)\]*/.exec(raw);
  return match?.[1];
}

const PYTHON_SPACE = /^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g;

function springNames(raw: string): string[] {
  const out = new Set<string>([raw]);
  for (const name of [...out]) if (name.length > 1 && (name[0] === "!" || name[0] === "_")) out.add(name.slice(1));
  for (const name of [...out]) {
    const cut = name.search(/[.[]/);
    if (cut > 0) out.add(name.slice(0, cut));
  }
  return [...out];
}

const upper = (text: string) => [...text].map((c) => ([...c.toUpperCase()].length === 1 ? c.toUpperCase() : c)).join("");

export const NAME_READERS: readonly NameReader[] = [
  {
    server: "php",
    query: (text) => pairs(text, /&/).flatMap(([k, v]) => (phpName(k) === undefined ? [] : [[phpName(k)!, v] as [string, unknown]])),
    cookie: (header) => pairs(header, /;/).flatMap(([k, v]) => (phpName(k) === undefined ? [] : [[phpName(k)!, v] as [string, unknown]])),
    same: (read, target) => read === target,
  },
  {
    server: "rack",
    query: (text) => pairs(text, /[&;] */).flatMap(([k, v]) => (rackName(k) === undefined ? [] : [[rackName(k)!, v] as [string, unknown]])),
    cookie: (header) => pairs(header, /[;,] */).flatMap(([k, v]) => (rackName(k) === undefined ? [] : [[rackName(k)!, v] as [string, unknown]])),
    same: (read, target) => read === target,
  },
  {
    server: "express-qs",
    query: (text) => Object.entries(qs.parse(text, { allowPrototypes: true })),
    cookie: (header) => pairs(header, /;/).map(([k, v]) => [k.trim(), v]),
    same: (read, target) => read === target,
  },
  {
    server: "express-qs-dots",
    query: (text) => Object.entries(qs.parse(text, { allowPrototypes: true, allowDots: true })),
    cookie: (header) => pairs(header, /;/).map(([k, v]) => [k.trim(), v]),
    same: (read, target) => read === target,
  },
  {
    server: "django",
    query: (text) => pairs(text, /[&;]/),
    cookie: (header) => pairs(header, /;/).map(([k, v]) => [k.replace(PYTHON_SPACE, ""), v]),
    same: (read, target) => read === target,
  },
  {
    server: "spring",
    query: (text) => pairs(text, /&/).flatMap(([k, v]) => springNames(k).map((name) => [name, v] as [string, unknown])),
    cookie: (header) => pairs(header, /; */).map(([k, v]) => [k.trim(), v]),
    // BeanWrapper retries a property name capitalized and uncapitalized.
    same: (read, target) => read === target || (read.length > 0 && read.slice(1) === target.slice(1) && read[0]!.toLowerCase() === target[0]!.toLowerCase()),
  },
  {
    server: "aspnet-core",
    query: (text) => pairs(text, /&/).flatMap(([k, v]) => {
      const cut = k.search(/[.[]/);
      return cut > 0 ? [[k, v], [k.slice(0, cut), v]] : [[k, v]];
    }),
    cookie: (header) => pairs(header, /; */).map(([k, v]) => [k.trim(), v]),
    same: (read, target) => upper(read) === upper(target),
  },
];

export interface ReadFinding {
  server: string;
  where: "query" | "cookie" | "form";
  name: string;
  target: string;
}

/**
 * Every (server, protected name) under which some reader reads a value holding `canary`,
 * from a request's URL, Cookie header and form body.
 */
export function readableCanary(request: { url: string; headers: Record<string, string>; body?: string | Uint8Array }, protectedNames: { query: readonly string[]; cookie: readonly string[]; form: readonly string[] }, canary: string): ReadFinding[] {
  const out: ReadFinding[] = [];
  const at = request.url.indexOf("?");
  const query = at < 0 ? "" : request.url.slice(at + 1).replace(/#.*$/s, "");
  const cookie = Object.entries(request.headers).find(([k]) => k.toLowerCase() === "cookie")?.[1] ?? "";
  const contentType = Object.entries(request.headers).find(([k]) => k.toLowerCase() === "content-type")?.[1] ?? "";
  const form = typeof request.body === "string" && contentType.startsWith("application/x-www-form-urlencoded") ? request.body : "";
  const holds = (value: unknown) => {
    try {
      return (typeof value === "string" ? value : JSON.stringify(value) ?? "").includes(canary);
    } catch {
      return false;
    }
  };
  for (const reader of NAME_READERS) {
    const sources: Array<["query" | "cookie" | "form", Array<[string, unknown]>, readonly string[]]> = [
      ["query", query === "" ? [] : reader.query(query), protectedNames.query],
      ["cookie", cookie === "" ? [] : reader.cookie(cookie), protectedNames.cookie],
      // PHP's $_REQUEST, Rails' params, servlet parameters and ASP.NET Core binding read a form body with the query.
      ["form", form === "" ? [] : reader.query(form), protectedNames.form],
    ];
    for (const [where, read, targets] of sources) {
      for (const [name, value] of read) {
        if (!holds(value)) continue;
        const target = targets.find((t) => reader.same(name, t));
        if (target !== undefined) out.push({ server: reader.server, where, name, target });
      }
    }
  }
  return out;
}
