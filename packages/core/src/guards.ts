/**
 * The egress guards, each of which can be switched off by a mutation test to prove that
 * some test notices. Nothing in sluice switches them off; production code only reads them.
 * Tests import this module through `@sluice/core/guards` and restore every flag they change.
 */
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
  /**
   * `--check` applies a type section listed once at the end of a map only to the tools that
   * list that type in a section, not to a tool that lists it inline (narrowed, perhaps).
   */
  egressSectionScope: boolean;
  /** `--check` names a visible path whose type changed to one it cannot prove no wider. */
  egressTypeChanges: boolean;
}

export const guards: Guards = {
  withheldScreening: true,
  requestFilter: true,
  freezePins: true,
  headerOverride: true,
  redaction: true,
  egressSectionScope: true,
  egressTypeChanges: true,
};

/** Runs `fn` with one guard switched off, restoring it afterwards (tests only). */
export async function withoutGuard<T>(name: keyof Guards, fn: () => T | Promise<T>): Promise<T> {
  const before = guards[name];
  guards[name] = false;
  try {
    return await fn();
  } finally {
    guards[name] = before;
  }
}
