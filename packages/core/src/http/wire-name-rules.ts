/**
 * How common server frameworks read a parameter name off the wire, as one list. A name the
 * model writes (a key of an exploded query or cookie object, a key of a free-form form body)
 * is compared with the names something else owns (another parameter, a withheld or pinned
 * one, a credential) in every form some server reads either of them as. Two names that
 * share a form are one name to that server, and servers disagree on which of two values
 * wins (PHP and Django keep the last, Tomcat / Spring the first, ASP.NET Core joins them
 * with a comma), so no ordering of the pairs protects a pin: such a key is refused.
 *
 * Each entry says which servers read names so and where that is written down. Rules are
 * applied together (a name can meet several on its way: ` !admin\0` is `admin` to a server
 * that strips, cuts at NUL and reads Spring's prefixes), which is wider than any one server;
 * that only refuses more.
 */

import { guards } from "../guards.ts";

export type WireNameLocation = "query" | "header" | "cookie";

export interface WireNameRule {
  id: string;
  /** The frameworks that read names so, and where. */
  servers: string;
  /** The name (or names) this rule reads `name` as; `name` itself when it does not apply. */
  read(name: string): string | readonly string[];
  /** Locations the rule applies to (all three when absent). */
  locations?: readonly WireNameLocation[];
}

// Edge characters stripped by `trim()`/`str.strip()` style readers: JavaScript's white space
// and line terminators, and every control character (Python's `isspace` counts \x1c-\x1f).
// eslint-disable-next-line no-control-regex
const EDGE = /^[\s\p{Cc}]+|[\s\p{Cc}]+$/gu;

export const WIRE_NAME_RULES: readonly WireNameRule[] = [
  {
    id: "nul_ends_name",
    servers: "PHP reads a variable name as a C string (php_register_variable_ex: strlen), so `admin\\0x` is `admin`",
    read: (name) => {
      const at = name.indexOf("\0");
      return at < 0 ? name : name.slice(0, at);
    },
  },
  {
    id: "edge_whitespace",
    servers:
      "PHP skips leading spaces of a name after decoding it (php_register_variable_ex); Django's parse_cookie (str.strip) and the `cookie` package (Express) trim both ends of a cookie name, and Rack / Rails drop spaces after a pair separator (/& */, /; */): sluice percent-encodes a space, so those bite where something decodes first (PHP decodes cookie names; proxies may), and no real name needs an edge space",
    read: (name) => name.replace(EDGE, ""),
  },
  {
    id: "bracket_member",
    servers: "PHP, Rack / Rails, qs (Express), Spring's data binder and ASP.NET Core model binding read `a[b]` as member `b` of `a`",
    read: (name) => {
      const at = name.indexOf("[");
      return at > 0 ? name.slice(0, at) : name;
    },
  },
  {
    id: "bracket_root",
    servers: "Rack 1 and 2 (normalize_params: \\A[\\[\\]]*([^\\[\\]]+)\\]*) drop leading brackets and end the name at the next one (`[admin]`, `]admin]x` are `admin`); qs reads a name that is all `[admin]` as `admin`",
    read: (name) => {
      const rest = name.replace(/^[[\]]+/, "");
      const end = rest.search(/[[\]]/);
      return end < 0 ? rest : rest.slice(0, end);
    },
  },
  {
    id: "php_mangling",
    servers: "PHP turns `.` and space in a name into `_`, and a `[` with no `]` after it into `_` too (`a.b`, `a b`, `a[b` are `a_b`)",
    read: (name) => {
      const open = name.indexOf("[");
      const unmatched = open >= 0 && name.indexOf("]", open) < 0;
      const head = open < 0 ? name : name.slice(0, open);
      const mangled = head.replace(/[. ]/g, "_");
      if (open < 0) return mangled;
      return unmatched ? `${mangled}_${name.slice(open + 1)}` : mangled + name.slice(open);
    },
  },
  {
    id: "dot_member",
    servers: "qs with allowDots, Spring's data binder (property paths `a.b`) and ASP.NET Core model binding (`prefix.Property`) read `a.b` as member `b` of `a`",
    read: (name) => {
      const at = name.indexOf(".");
      return at > 0 ? name.slice(0, at) : name;
    },
  },
  {
    id: "spring_field_prefixes",
    servers: "Spring's WebDataBinder binds `!admin` (field default) to `admin` when `admin` is absent, and `_admin` (field marker) empties `admin` when it is absent",
    read: (name) => (name.length > 1 && (name[0] === "!" || name[0] === "_") ? name.slice(1) : name),
    locations: ["query", "cookie"],
  },
  {
    id: "cgi_header_names",
    servers: "CGI-style environments (PHP's $_SERVER, Rack's env, Django's META, WSGI) name a header HTTP_X_API_KEY, so `X-Api-Key` and `X_Api_Key` are one header",
    read: (name) => name.replace(/_/g, "-"),
    locations: ["header"],
  },
];

/**
 * Case is folded last, for every location: header names ignore case (RFC 9110 §5.1; Java's
 * equalsIgnoreCase in servlet containers), ASP.NET Core compares query, form and cookie
 * names with OrdinalIgnoreCase, Spring's bean wrapper retries a property name capitalized
 * and uncapitalized. Folding is per character through upper case, so `ı` (dotless i) and
 * `ſ` (long s), which Java and .NET upper-case to ASCII, meet `i` and `s`.
 */
export const CASE_RULE = {
  id: "case",
  servers: "HTTP header names (RFC 9110 §5.1, equalsIgnoreCase in servlet containers), ASP.NET Core query / form / cookie collections (OrdinalIgnoreCase), Spring's bean property fallback",
} as const;

export function foldCase(name: string): string {
  let out = "";
  for (const char of name) {
    const upper = char.toUpperCase();
    const single = [...upper].length === 1 ? upper : char;
    // A lower case of more than one character (`İ` -> `i̇`) keeps its first, as simple case mapping does.
    out += [...single.toLowerCase()][0] ?? single;
  }
  return out;
}

/**
 * What is never written, whatever it would clash with, because servers read it every which
 * way and so no form above can say what a server reads:
 * - a control character (U+0000-U+001F, U+007F-U+009F) in a key that becomes (part of) a
 *   name: PHP ends the name at NUL, Python's strip drops \x1c-\x1f at the ends, others keep
 *   it. Such a key is refused.
 * - a raw `;` in a query value sent with `allowReserved`: Rack before 3 and Rails'
 *   ActionDispatch split pairs on `&` and `;`, as Python's parse_qsl did before 3.9.2, so
 *   `q=x;admin=1` would carry a second name. It stays percent-encoded (encode.ts).
 */
export const NEVER_WRITTEN = [
  { id: "control_characters", servers: "PHP (NUL ends a name), Python str.strip (\\x1c-\\x1f), servers that keep them" },
  { id: "semicolon_separator", servers: "Rack < 3 and Rails ActionDispatch (DEFAULT_SEP /[&;] */), Python parse_qsl before 3.9.2" },
] as const;

// eslint-disable-next-line no-control-regex
const CONTROL = /\p{Cc}/u;

/** Whether a name holds a character no name on the wire may hold. */
export function hasControlCharacter(name: string): boolean {
  return guards.wireNameFolding && CONTROL.test(name);
}

// A declared name has a handful of forms; a key with more is built to confuse, and is refused (see wireNameReading).
const MAX_FORMS = 256;
const CACHE_LIMIT = 4096;
const cache = new Map<string, WireNameReading>();

export interface WireNameReading {
  /** Every form, case folded, without the empty name (which no server reads as a parameter). */
  forms: string[];
  /** More forms than {@link MAX_FORMS}: the reading is incomplete, so a key with it is refused. */
  overflow: boolean;
}

/** Every form one name may be read as by a server applying the rules above, to a fixed point. */
export function wireNameReading(name: string, location: WireNameLocation = "query"): WireNameReading {
  if (!guards.wireNameFolding) return legacyReading(name);
  const key = `${location}\u0000${name}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const rules = WIRE_NAME_RULES.filter((rule) => rule.locations === undefined || rule.locations.includes(location));
  const seen = new Set<string>([name]);
  let frontier = [name];
  let overflow = false;
  while (frontier.length > 0 && !overflow) {
    const next: string[] = [];
    for (const form of frontier) {
      for (const rule of rules) {
        const read = rule.read(form);
        for (const reading of typeof read === "string" ? [read] : read) {
          if (seen.has(reading)) continue;
          if (seen.size >= MAX_FORMS) overflow = true;
          else {
            seen.add(reading);
            next.push(reading);
          }
        }
      }
    }
    frontier = next;
  }
  const forms = new Set<string>();
  for (const form of seen) {
    const folded = foldCase(form);
    if (folded !== "") forms.add(folded);
  }
  const reading = { forms: [...forms], overflow };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, reading);
  return reading;
}

/** The forms of {@link wireNameReading}. */
export function wireNameForms(name: string, location: WireNameLocation = "query"): string[] {
  return wireNameReading(name, location).forms;
}

/** With the wireNameFolding guard off (tests only): the forms before the rule list, case, `a[b]` and `.` / space. */
function legacyReading(name: string): WireNameReading {
  const lower = name.toLowerCase();
  const forms = new Set([lower]);
  const bracket = lower.indexOf("[");
  if (bracket > 0) forms.add(lower.slice(0, bracket));
  for (const form of [...forms]) forms.add(form.replace(/[. ]/g, "_"));
  return { forms: [...forms], overflow: false };
}
