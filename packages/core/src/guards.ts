/**
 * The egress guards, each of which can be switched off by a mutation test to prove that
 * some test notices. Nothing in sluice switches them off; production code only reads them.
 * Tests import this module through `@sluice/core/guards` and restore every flag they change.
 *
 * Only the sources can be switched: the published build (scripts/build-package.mjs defines
 * __SLUICE_PUBLISHED__) freezes the object and refuses withoutGuard, so no module in a
 * user's process can turn redaction, screening or the snapshot lock off through this entry.
 */
import { SluiceError } from "@sluice/schema";

declare const __SLUICE_PUBLISHED__: boolean | undefined;

/** True in the built packages users install; false when running from source (tests, this repository). */
export const guardsFixed: boolean = typeof __SLUICE_PUBLISHED__ !== "undefined" && __SLUICE_PUBLISHED__ === true;

export interface Guards {
  /** Screening refuses withheld paths by the tool's withheld list, whatever the schema's openness. */
  withheldScreening: boolean;
  /** The request builder copies only visible paths (a second filter after screening). */
  requestFilter: boolean;
  /** Pins are deep-copied and frozen when `derived()` takes them. */
  freezePins: boolean;
  /** `ctx.headers` cannot replace a header that the binding or a pin sets. */
  headerOverride: boolean;
  /** Credential values are replaced by `[redacted]` in texts that reach a model or a log. */
  redaction: boolean;
  /** The default served set (a pack's `tools`, servers, sessions, check/fit) leaves the `*_full` twins out. */
  twinsLeftOut: boolean;
  /**
   * A GraphQL credential variable or member carries the credential and nothing else: the
   * runtime replaces whatever the arguments hold there (and removes it when there is no
   * credential) instead of filling the credential in only where nothing is.
   */
  credentialVariables: boolean;
  /**
   * Screening checks arguments by the names they will have on the wire: an exploded object's
   * key never re-creates another parameter, a withheld or pinned one, or a credential; no
   * parameter sets a credential header; two header parameters never set one header.
   */
  wireNameScreening: boolean;
  /** The request builder refuses the same wire-name clashes after serialization (a second check behind screening). */
  wireNames: boolean;
  /**
   * Wire names are compared in every form of http/wire-name-rules.ts (edge white space, NUL,
   * `[a]`, `a.b`, Spring's prefixes, Unicode case) and a key with a control character is
   * never written; off, only case, `a[b]` and `.` / space are folded, as before the list.
   */
  wireNameFolding: boolean;
  /** Screening refuses `__proto__` at any depth, and `constructor` / `prototype` where only an open object would admit them. */
  prototypeKeys: boolean;
  /**
   * A derived tool's arguments (pins included) are also checked as a call of the tool it
   * was derived from, up to the generated root: whatever a projection gets wrong, it can
   * never admit what an ancestor refuses.
   */
  parentCheck: boolean;
  /** `derived()` refuses a pin that its parent would refuse in a call (screening and validation). */
  pinScreening: boolean;
  /** Spec patterns run on the linear-time engine (RE2JS), never on the backtracking RegExp. */
  linearPatterns: boolean;
  /**
   * `--check` applies a type section listed once at the end of a map only to the tools that
   * list that type in a section, not to a tool that lists it inline (narrowed, perhaps).
   */
  egressSectionScope: boolean;
  /** `--check` names a visible path whose type changed to one it cannot prove no wider. */
  egressTypeChanges: boolean;
  /** `--check` compares the limits of every visible path (bounds, lengths, pattern, `required` ...) and names a loosened one. */
  egressLimitChanges: boolean;
  /**
   * `--check` resolves layout before comparing: a base named inside a by-value type applies to
   * each branch including it, a type split or renamed at a site is compared member by member
   * there, a branch is not read against a union left with another branch, `integer` is within
   * `number`. Off, the check reads these as the former check did (new members, type changes).
   */
  egressByMeaning: boolean;
  /**
   * `--check` leaves out of the comparison only a tool whose own lines and every type
   * section it can reach (transitively, through either map) read the same in both maps;
   * off, a tool whose own lines are the same is left out even when a section it uses changed.
   */
  egressUnchangedReach: boolean;
  /**
   * A schema keyword that constrains values but that sluice cannot convert or check exactly
   * (`$dynamicRef`, `unevaluatedItems` fed by `contains`) refuses the schema with
   * KEYWORD_UNSUPPORTED, at generation and at call time, instead of being dropped or
   * checked loosely (either would accept what the spec forbids).
   */
  unsupportedKeywords: boolean;
  /** The query pairs a path key fixes (`/analyze?overload=stream`) are reserved wire names: no exploded key sends them again. */
  fixedQueryNames: boolean;
  /**
   * Screening looks withheld paths up under their selector spelling too (a name with
   * selector syntax quoted: `body."@odata.type"`, a type as `Type:key`), not only as the
   * names joined with dots.
   */
  quotedNames: boolean;
  /**
   * A config's `withhold` entry that names no argument of any tool is an error with the
   * nearest argument names, never skipped: a typo there would leave the argument visible.
   */
  withholdMatches: boolean;
  /**
   * `generate --check` trusts a pack's stamp (and skips generating) only when every file of
   * the pack still has the bytes the stamp recorded, not on the inputs' digest alone: a hand
   * edit of a generated file or of the egress map is drift even when the spec is unchanged.
   */
  stampOutputs: boolean;
  /** A config's `readOnly: true` leaves every tool not annotated read-only out of the generated pack. */
  toolSelection: boolean;
  /**
   * An MCP pack's committed snapshot is a lock: a live tool that is new, whose input schema
   * may accept more, or whose texts changed blocks (`diffBlocks`), so `generate --check`
   * fails naming it; a proxying `sluice serve` neither lists nor forwards such a tool (or a
   * removed one) until the snapshot is regenerated.
   */
  mcpSnapshotLock: boolean;
  /**
   * After `notifications/tools/list_changed`, a proxy forwards no call of any tool until a
   * listing begun after that notice has passed the lock (MCP_LOCK_PENDING meanwhile); off,
   * calls go out on the verdict from before the change, as they did when a re-list failed.
   */
  mcpLockPending: boolean;
  /**
   * Re-lists asked for while one is in flight are coalesced (one in flight, at most one
   * waiting); off, each notice queues a listing of its own, one after another.
   */
  mcpRelistCoalesce: boolean;
  /** An OAuth 2 token URL must be https (or http on loopback): the client secret never travels in clear. */
  oauthTokenUrl: boolean;
  /** Concurrent calls that find no valid OAuth 2 token share one request to the token endpoint. */
  oauthSingleFlight: boolean;
  /**
   * A call made with an OAuth 2 credential records the client secret, the refresh token and
   * the access token as credentials of that call, so each is redacted from what it returns.
   */
  oauthRedaction: boolean;
  /** `serve --http` gives a call the credentials of the caller whose MCP token made it, never another caller's. */
  callerCredentials: boolean;
  /** `serve --http` refuses `Origin: null` (a sandboxed frame, a file: page, a redirect): a browser page it cannot place. */
  httpNullOrigin: boolean;
  /**
   * `serve --http` answers a request whose JSON-RPC id is already in flight on the same
   * session with a JSON-RPC error, instead of handing it to the SDK transport (which keeps
   * one stream per id: one of the two would never be answered).
   */
  httpDuplicateIds: boolean;
  /**
   * The OpenAPI generator withholds a member named like a credential argument wherever it
   * sits (a body kept whole, a nested object, a union branch), not only where a body is
   * flattened into arguments.
   */
  credentialMembers: boolean;
  /**
   * The usage store (`sluice serve`'s per-session records) refuses a folder reached through a
   * symbolic link that leads out of the project, so a checked-in link cannot make serve write elsewhere.
   */
  usageStorePath: boolean;
  /**
   * Loading a spec refuses a document that expands (YAML aliases repeating a value, counted
   * each time it is reached) to more members than a budget set by its length: an alias bomb
   * is a coded error, never a walk of 10^10 nodes.
   */
  yamlExpansionBudget: boolean;
  /**
   * serve and survey trust a pack's served-list key from the stat cache (node_modules/.cache/sluice)
   * only when the cache is intact and this pack's, src/ holds the same files (no symlink), and every
   * file and the list keep their device, inode, size, mtime and ctime, none changed within the racy
   * window of the verification; off, a cache is trusted when the files it names keep size and mtime.
   */
  servedListStatCache: boolean;
}

const allOn: Guards = {
  withheldScreening: true,
  requestFilter: true,
  freezePins: true,
  headerOverride: true,
  redaction: true,
  twinsLeftOut: true,
  credentialVariables: true,
  wireNameScreening: true,
  wireNames: true,
  wireNameFolding: true,
  prototypeKeys: true,
  parentCheck: true,
  pinScreening: true,
  linearPatterns: true,
  egressSectionScope: true,
  egressTypeChanges: true,
  egressLimitChanges: true,
  egressByMeaning: true,
  egressUnchangedReach: true,
  unsupportedKeywords: true,
  fixedQueryNames: true,
  quotedNames: true,
  withholdMatches: true,
  stampOutputs: true,
  toolSelection: true,
  mcpSnapshotLock: true,
  mcpLockPending: true,
  mcpRelistCoalesce: true,
  oauthTokenUrl: true,
  oauthSingleFlight: true,
  oauthRedaction: true,
  callerCredentials: true,
  httpNullOrigin: true,
  httpDuplicateIds: true,
  credentialMembers: true,
  usageStorePath: true,
  yamlExpansionBudget: true,
  servedListStatCache: true,
};

export const guards: Guards = guardsFixed ? Object.freeze(allOn) : allOn;

/** Runs `fn` with one guard switched off, restoring it afterwards (tests only). */
export async function withoutGuard<T>(name: keyof Guards, fn: () => T | Promise<T>): Promise<T> {
  if (guardsFixed) throw new SluiceError("INVALID_OPTION", `the ${name} guard cannot be switched off: guards are switchable only in sluice's own tests, run from source.`);
  const before = guards[name];
  guards[name] = false;
  try {
    return await fn();
  } finally {
    guards[name] = before;
  }
}
