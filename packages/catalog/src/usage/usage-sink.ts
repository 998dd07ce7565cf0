/**
 * What a server, a `ToolSession` or a `toolCallRouter` tells a usage recorder: the tool
 * definitions it put in front of the model, and the names of the tools the model called.
 * Arguments and results have no way in: the interface takes a name and nothing else, so no
 * value a model sends can reach the store (see usage-store.ts).
 */
export interface UsageSink {
  /**
   * Definitions as sent (name, description, input schema, whatever else the wire carries).
   * Called again when more are sent (a further tools/list page, a deferred load): the
   * session's declared set is the union, the latest definition of a name winning.
   */
  declared(definitions: readonly UsageDefinition[]): void;
  /** One call of a declared tool; a name that was never declared is not recorded. */
  invoked(name: string): void;
  /** The session is over (records are written as they change; this writes what is left). */
  close?(): void;
}

/** A tool definition as a plain JSON value with its wire name. */
export interface UsageDefinition {
  readonly name: string;
  readonly [key: string]: unknown;
}
