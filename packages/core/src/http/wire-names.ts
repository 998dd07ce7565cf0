import { escapePointerSegment, type ArgumentIssue } from "@sluice/schema";
import { guards } from "../guards.ts";
import type { HttpAuthScheme, HttpBinding, HttpParameter } from "../tool-ir.ts";
import { isPlainObject, ownEntries, ownValue } from "./scalar.ts";
import { hasControlCharacter, wireNameForms, wireNameReading } from "./wire-name-rules.ts";

/**
 * Names as they are on the wire. An argument is screened by its path in the tool's
 * schema, but a server reads names: an exploded query object `filter: {admin: "x"}` is
 * sent as `?admin=x`, and two header parameters `X-Tenant` and `x-tenant` are one header.
 * This module says which wire names a parameter may not write, so that screening (before
 * the request is built) and the request builder (after it is serialized) can refuse them.
 */

/** Headers that carry a credential or a session: only authentication writes them, never an argument. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(["authorization", "proxy-authorization", "cookie"]);

export type WireLocation = "query" | "header" | "cookie";

/** Why a wire name is reserved. */
export interface Reservation {
  /** The wire name as declared. */
  name: string;
  /** `body`: a withheld member of the request body, which PHP ($_REQUEST) and Rails (params) read with the query. */
  why: "parameter" | "withheld" | "credential" | "fixed" | "body";
  /** The argument whose own name this is (parameters and withheld parameters). */
  arg?: string;
}

export { wireNameForms, WIRE_NAME_RULES } from "./wire-name-rules.ts";

/**
 * Why a key the model writes as a name cannot be read one way by every server: it holds a
 * control character, or it has more readings than the rules bound (see wire-name-rules.ts).
 * Undefined when the key is readable.
 */
export function unreadableName(name: string, location: WireLocation = "query"): string | undefined {
  if (hasControlCharacter(name)) return "holds a control character, which servers read differently (PHP ends a name at NUL, others strip or keep it)";
  if (wireNameReading(name, location).overflow) return "has more readings under the servers' name rules than sluice follows";
  return undefined;
}

/** Whether the parameter writes an object's keys as top-level names (query form/spaceDelimited/pipeDelimited or cookie, exploded). */
export function explodesKeys(parameter: HttpParameter): boolean {
  if (parameter.contentType !== undefined || !parameter.explode) return false;
  if (parameter.in === "cookie") return true;
  return parameter.in === "query" && (parameter.style === "form" || parameter.style === "spaceDelimited" || parameter.style === "pipeDelimited");
}

/** Every security scheme a request of this binding may be authenticated with (the binding's and the pack runtime's). */
export function schemesOf(binding: HttpBinding, extra: readonly (readonly HttpAuthScheme[])[] | undefined): HttpAuthScheme[] {
  return [...(binding.auth ?? []).flat(), ...(extra ?? []).flat()];
}

/** The name a security scheme writes in this location, if it writes one. */
function schemeName(scheme: HttpAuthScheme, location: WireLocation): string | undefined {
  if (scheme.type === "apiKey") return scheme.in === location ? scheme.name : undefined;
  return location === "header" ? "authorization" : undefined;
}

/**
 * Wire names of one location that belong to something other than an exploded key, by
 * every form of the name: the binding's parameters, the parameters it withholds, the
 * security schemes' names and, for headers, the credential headers.
 */
export function reservedNames(binding: HttpBinding, schemes: readonly HttpAuthScheme[], location: WireLocation, bodyNames: readonly string[] = []): Map<string, Reservation> {
  const out = new Map<string, Reservation>();
  const add = (name: string, reservation: Reservation): void => {
    for (const form of wireNameForms(name, location)) if (!out.has(form)) out.set(form, reservation);
  };
  // Credentials first: where a name is both, the map and the messages say "credential".
  for (const scheme of schemes) {
    const name = schemeName(scheme, location);
    if (name !== undefined) add(name, { name, why: "credential" });
  }
  if (location === "header") for (const name of CREDENTIAL_HEADERS) add(name, { name, why: "credential" });
  for (const parameter of binding.parameters) {
    if (parameter.in === location) add(parameter.name, { name: parameter.name, why: parameter.credential === undefined ? "parameter" : "credential", arg: parameter.arg });
  }
  for (const parameter of binding.withheldParameters ?? []) {
    if (parameter.in === location) add(parameter.name, { name: parameter.name, why: "withheld", arg: parameter.arg });
  }
  if (location === "query" && guards.fixedQueryNames) for (const name of fixedQueryNames(binding.path)) add(name, { name, why: "fixed" });
  if (location === "query") for (const name of bodyNames) add(name, { name, why: "body" });
  return out;
}

/**
 * The names of the body members a call never lets the model send: withheld top-level members
 * of a body sent whole (`body.secret`), withheld flattened body fields, and fields filled
 * from a credential. PHP's $_REQUEST (form bodies) and Rails' params (form and JSON bodies)
 * read them with the query, so an exploded query key must not re-create one.
 */
export function withheldBodyNames(binding: HttpBinding, withheld: Iterable<string>): string[] {
  const body = binding.body;
  if (body === undefined) return [];
  const out = new Set<string>();
  const fields = body.fields ?? {};
  for (const arg of Object.keys(body.credentialFields ?? {})) out.add(Object.prototype.hasOwnProperty.call(fields, arg) ? fields[arg]! : arg);
  const prefix = body.wholeBodyArg === undefined ? undefined : `${body.wholeBodyArg}.`;
  // A projection takes a dropped field out of `fields`; a withheld top-level path that is no parameter is then a field under its argument name.
  const parameters = new Set([...binding.parameters, ...(binding.withheldParameters ?? [])].map((p) => p.arg));
  for (const path of withheld) {
    if (prefix !== undefined) {
      if (path.startsWith(prefix) && !path.slice(prefix.length).includes(".")) out.add(path.slice(prefix.length));
    } else if (Object.prototype.hasOwnProperty.call(fields, path)) out.add(fields[path]!);
    else if (!path.includes(".") && !parameters.has(path)) out.add(path);
  }
  return [...out].sort();
}

/**
 * The names of the query pairs a path key carries itself (`/analyze?overload=stream`): they
 * are sent with every call, like a pin, so no exploded key may send a second value under
 * one of those names (servers differ on which of two values wins).
 */
export function fixedQueryNames(path: string): string[] {
  const at = path.indexOf("?");
  if (at < 0) return [];
  return path
    .slice(at + 1)
    .split("&")
    .map((pair) => pair.split("=")[0]!)
    .filter((name) => name !== "")
    .map((name) => {
      try {
        return decodeURIComponent(name);
      } catch {
        return name;
      }
    });
}

/** The reservation one written name runs into, unless it is `owner`'s own. */
export function clashOf(reserved: ReadonlyMap<string, Reservation>, name: string, owner: string, location: WireLocation = "query"): Reservation | undefined {
  for (const form of wireNameForms(name, location)) {
    const found = reserved.get(form);
    if (found !== undefined && found.arg !== owner) return found;
  }
  return undefined;
}

/** Whether a non-credential parameter would write a name that only authentication may write. */
export function writesCredentialName(parameter: HttpParameter, schemes: readonly HttpAuthScheme[]): boolean {
  if (parameter.in === "path" || parameter.credential !== undefined) return false;
  const location = parameter.in as WireLocation;
  const forms = wireNameForms(parameter.name, location);
  if (parameter.in === "header" && forms.some((form) => CREDENTIAL_HEADERS.has(form))) return true;
  return schemes.some((scheme) => {
    const name = schemeName(scheme, location);
    return name !== undefined && wireNameForms(name, location).some((form) => forms.includes(form));
  });
}

function describe(reservation: Reservation, pins: Readonly<Record<string, unknown>>): string {
  if (reservation.why === "credential") return "carries a credential";
  if (reservation.why === "withheld") return `belongs to the withheld argument ${reservation.arg}`;
  if (reservation.why === "fixed") return "is fixed by the operation's path";
  if (reservation.why === "body") return `is the withheld body field ${reservation.name}, which servers such as PHP and Rails read with the query`;
  if (reservation.arg !== undefined && Object.prototype.hasOwnProperty.call(pins, reservation.arg)) return `belongs to the pinned argument ${reservation.arg}`;
  return `belongs to the argument ${reservation.arg}`;
}

/**
 * Screening by wire name: the issues (code `reserved`, refused as EGRESS_DENIED) of
 * arguments that would write a name on the wire they do not own: an exploded object's
 * key equal (in any form of {@link wireNameForms}) to another parameter, a withheld or
 * pinned one, or a credential; a header parameter writing a credential header; two header
 * parameters writing one header; a free-form form body's key spelling a withheld member.
 */
export function wireNameIssues(
  binding: HttpBinding,
  schemes: readonly HttpAuthScheme[],
  args: Record<string, unknown>,
  pins: Readonly<Record<string, unknown>>,
  withheld: ReadonlySet<string> = new Set(),
): ArgumentIssue[] {
  const issues: ArgumentIssue[] = [];
  const reserved = new Map<WireLocation, Map<string, Reservation>>();
  const reservedIn = (location: WireLocation) => {
    let names = reserved.get(location);
    if (names === undefined) reserved.set(location, (names = reservedNames(binding, schemes, location, location === "query" ? withheldBodyNames(binding, withheld) : [])));
    return names;
  };
  const headers = new Map<string, string>();
  for (const parameter of binding.parameters) {
    if (parameter.in === "path") continue;
    const value = ownValue(args, parameter.arg);
    if (value === undefined) continue;
    const path = `/${escapePointerSegment(parameter.arg)}`;
    if (writesCredentialName(parameter, schemes)) {
      issues.push({ code: "reserved", path, message: `the ${parameter.in} "${parameter.name}" carries a credential or session, which only authentication sets; remove ${parameter.arg}` });
      continue;
    }
    if (parameter.in === "header") {
      const lower = parameter.name.toLowerCase();
      const other = headers.get(lower);
      if (other !== undefined) issues.push({ code: "reserved", path, message: `the header "${parameter.name}" is the same header as argument ${other} sets (header names ignore case); send only one of them` });
      else headers.set(lower, parameter.arg);
      continue;
    }
    if (!isPlainObject(value) && !Array.isArray(value)) continue;
    // Keys written into a name (exploded keys, deepObject's brackets) must be readable one way.
    if (parameter.contentType === undefined && (explodesKeys(parameter) || parameter.style === "deepObject")) nameKeyIssues(value, path, parameter.in, issues);
    if (!explodesKeys(parameter) || !isPlainObject(value)) continue;
    for (const [key] of ownEntries(value)) {
      if (unreadableName(key, parameter.in) !== undefined) continue;
      const clash = clashOf(reservedIn(parameter.in), key, parameter.arg, parameter.in);
      if (clash === undefined) continue;
      issues.push({
        code: "reserved",
        path: `${path}/${escapePointerSegment(key)}`,
        message: `"${key}" would be sent as the ${parameter.in} name "${key}", which ${describe(clash, pins)}; it cannot be set through ${parameter.arg}; remove it`,
      });
    }
  }
  formBodyIssues(binding, args, withheld, pins, reservedIn("query"), issues);
  return issues;
}

/**
 * Keys of a value that the wire turns into (part of) a name, at any depth: each must be
 * readable one way ({@link unreadableName}). A key deeper down is written inside brackets,
 * but a NUL there ends the whole name for PHP (`extra[a\0]` is `extra_a`).
 */
function nameKeyIssues(value: unknown, path: string, location: WireLocation, issues: ArgumentIssue[], depth = 0): void {
  if (depth > 64) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => nameKeyIssues(item, `${path}/${i}`, location, issues, depth + 1));
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, inner] of ownEntries(value)) {
    const at = `${path}/${escapePointerSegment(key)}`;
    const why = unreadableName(key, location);
    if (why !== undefined) issues.push({ code: "reserved", path: at, message: `the key ${JSON.stringify(key)} ${why}; it is never sent as a name; remove it` });
    else nameKeyIssues(inner, at, location, issues, depth + 1);
  }
}

/**
 * A form or multipart body writes its keys as names. Every key, at any depth, must be
 * readable one way. A body sent whole (`wholeBodyArg`) writes its own keys at the top level,
 * as an exploded query object does: a key that is a withheld member of the body in another
 * form (`SECRET`, ` secret`, `secret\0`, `!secret`) is that member to a server that reads
 * names so. And since PHP's $_REQUEST, Rails' params, servlet parameters and ASP.NET Core
 * model binding read the query and a form body as one set of names, such a key must not be
 * a withheld, pinned, credential or fixed query name either. (The exact withheld key is
 * screened by its dotted path already; a visible query parameter is the model's to set.)
 */
function formBodyIssues(
  binding: HttpBinding,
  args: Record<string, unknown>,
  withheld: ReadonlySet<string>,
  pins: Readonly<Record<string, unknown>>,
  query: ReadonlyMap<string, Reservation>,
  issues: ArgumentIssue[],
): void {
  const body = binding.body;
  if (body === undefined || (body.encoding !== "form" && body.encoding !== "multipart")) return;
  if (body.wholeBodyArg === undefined) {
    for (const arg of Object.keys(body.fields ?? {})) {
      const value = ownValue(args, arg);
      if (isPlainObject(value) || Array.isArray(value)) nameKeyIssues(value, `/${escapePointerSegment(arg)}`, "query", issues);
    }
    return;
  }
  const value = ownValue(args, body.wholeBodyArg);
  if (!isPlainObject(value)) return;
  const bodyPath = `/${escapePointerSegment(body.wholeBodyArg)}`;
  nameKeyIssues(value, bodyPath, "query", issues);
  const prefix = `${body.wholeBodyArg}.`;
  const reserved = new Map<string, string>();
  for (const path of withheld) {
    if (!path.startsWith(prefix) || path.slice(prefix.length).includes(".")) continue;
    const member = path.slice(prefix.length);
    for (const form of wireNameForms(member)) reserved.set(form, member);
  }
  for (const [key] of ownEntries(value)) {
    if (unreadableName(key) !== undefined) continue;
    const forms = wireNameForms(key);
    const member = forms.map((form) => reserved.get(form)).find((m) => m !== undefined);
    if (member !== undefined && member !== key) {
      issues.push({ code: "reserved", path: `${bodyPath}/${escapePointerSegment(key)}`, message: `"${key}" would be read as the withheld body field "${member}" on the wire; remove it` });
      continue;
    }
    const clash = forms.map((form) => query.get(form)).find((r) => r !== undefined && r.why !== "body" && (r.why !== "parameter" || (r.arg !== undefined && Object.prototype.hasOwnProperty.call(pins, r.arg))));
    if (clash === undefined) continue;
    issues.push({
      code: "reserved",
      path: `${bodyPath}/${escapePointerSegment(key)}`,
      message: `"${key}" would be read as the query name "${clash.name}" (servers such as PHP, Rails and servlets read a form body and the query as one set of names), which ${describe(clash, pins)}; remove it`,
    });
  }
}
