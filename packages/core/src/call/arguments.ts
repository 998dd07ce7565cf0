/**
 * The argument checks behind every call (screening, then schema validation, then each
 * ancestor's). They are synchronous and needed without any call (`check()`, pin screening
 * in `derived()`), so they live apart from the request and transport half (call.ts), which
 * a tool loads on its first call: listing a pack's tools loads none of that.
 */
import type { ArgumentIssue, JsonSchemaObject } from "@sluice/schema";
import { guards } from "../guards.ts";
import { schemesOf, wireNameIssues } from "../http/wire-names.ts";
import type { Binding, HttpAuthScheme, WithheldPath } from "../tool-ir.ts";
import type { ReformatChoice } from "../responses/reformat/reformatter.ts";
import { screenArguments } from "./screen-arguments.ts";
import { validateArguments } from "./validate-arguments.ts";
import { DEFAULT_MAX_ARGUMENT_BYTES, type CallContext, type FailureCheck, type Pagination, type ResponseHandler } from "./types.ts";

/** What the call runtime needs of a tool (the Tool class provides it). */
export interface CallableTool {
  readonly name: string;
  readonly inputSchema: JsonSchemaObject;
  readonly binding: Binding;
  readonly withheld: readonly WithheldPath[];
  readonly pins: Readonly<Record<string, unknown>>;
  readonly definitionOrigins: ReadonlyMap<string, string>;
  readonly responseHandler: ResponseHandler | undefined;
  readonly pagination: Pagination | undefined;
  /** Which lossless reformatters run on its answers over the defaults (a pack's and the tool's own choice). */
  readonly reformatters?: ReformatChoice | undefined;
  readonly endpoint: string | undefined;
  /** Effective authentication requirements (binding's, else the pack runtime's). */
  readonly auth: readonly HttpAuthScheme[][] | undefined;
  readonly failure: FailureCheck | undefined;
  /** The tool this one was derived from (narrowed by drop, keep or pin), if any. */
  readonly derivedFrom?: CallableTool | undefined;
}

export const NO_ISSUES: readonly ArgumentIssue[] = [];


/**
 * Screens arguments against the tool's schema. `allowed` holds only what the schema lets
 * through, with pins applied; `issues` lists everything refused or invalid.
 */
export function checkArguments(tool: CallableTool, args: unknown, ctx: CallContext = {}): { allowed: Record<string, unknown>; issues: readonly ArgumentIssue[] } {
  const withheld = new Map<string, string>();
  for (const entry of tool.withheld) if (!withheld.has(entry.path)) withheld.set(entry.path, entry.reason);
  const screened = screenArguments(tool.inputSchema, args, {
    withheld,
    pins: tool.pins,
    origins: tool.definitionOrigins,
    maxBytes: ctx.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES,
  });
  for (const [arg, value] of Object.entries(tool.pins)) {
    Object.defineProperty(screened.allowed, arg, { value, enumerable: true, writable: true, configurable: true });
  }
  // By wire name, pins included: a key of an exploded object is refused where it would write a pinned parameter's name.
  if (guards.wireNameScreening && tool.binding.kind === "http") {
    const wire = wireNameIssues(tool.binding, schemesOf(tool.binding, tool.auth), screened.allowed, tool.pins, new Set(withheld.keys()));
    if (wire.length > 0) return { allowed: screened.allowed, issues: [...screened.issues, ...wire] };
  }
  return { allowed: screened.allowed, issues: screened.issues.length === 0 ? NO_ISSUES : screened.issues };
}

/** Every problem a call would be refused for: screening first, then schema validation. */
export function argumentIssues(tool: CallableTool, args: unknown, ctx: CallContext = {}): { allowed: Record<string, unknown>; issues: readonly ArgumentIssue[] } {
  const own = ownArgumentIssues(tool, args, ctx);
  if (own.issues.length > 0) return own;
  return { allowed: own.allowed, issues: parentIssues(tool, own.allowed, ctx) };
}

/** `argumentIssues` against this tool's own schema and withheld list only, without its ancestors. */
export function ownArgumentIssues(tool: CallableTool, args: unknown, ctx: CallContext = {}): { allowed: Record<string, unknown>; issues: readonly ArgumentIssue[] } {
  const screened = checkArguments(tool, args, ctx);
  if (screened.issues.some((issue) => issue.code === "too_large" || issue.code === "too_deep")) return screened;
  // `allowed` is what the model sent less what screening refused (as JSON: properties
  // holding undefined are left out), pins aside: pins are not in the schema. Reporting
  // both lists at once lets the model fix everything in one retry.
  const invalid = validateArguments(tool.inputSchema, withoutPins(screened.allowed, tool.pins));
  if (invalid.length > 0) {
    const seen = new Set(screened.issues.map((issue) => issue.path));
    return { allowed: screened.allowed, issues: [...screened.issues, ...invalid.filter((issue) => !seen.has(issue.path))] };
  }
  return screened;
}

/**
 * The backstop behind every projection: what a derived tool would send (its pins
 * included) must also pass as a call of the tool it was derived from, and so on up to the
 * generated root. A projection's schema is what the model reads, kept small (a dropped
 * `oneOf` branch is simply gone, see project-schema.ts); this check is what makes
 * "never wider than the parent" hold whatever that schema admits. Each ancestor's schema
 * is compiled once and shared by every tool derived from it.
 */
function parentIssues(tool: CallableTool, sent: Record<string, unknown>, ctx: CallContext): readonly ArgumentIssue[] {
  const parent = tool.derivedFrom;
  if (parent === undefined || !guards.parentCheck) return NO_ISSUES;
  const { issues } = argumentIssues(parent, withoutPins(sent, parent.pins), ctx);
  if (issues.length === 0) return NO_ISSUES;
  const note = ` (refused by ${parent.name}, which this tool narrows)`;
  return issues.map((issue) => (issue.message.endsWith("narrows)") ? issue : { ...issue, message: issue.message + note }));
}

export function withoutPins(args: Record<string, unknown>, pins: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(args)) {
    if (!Object.prototype.hasOwnProperty.call(pins, key)) Object.defineProperty(out, key, { value: args[key], enumerable: true, writable: true, configurable: true });
  }
  return out;
}
