/** One difference `--check` names between a committed egress map and the current one, and its kinds. */
export type EgressDifferenceKind =
  /** A tool served now that was not (or, narrowed, one no longer served). */
  | "tool"
  /** A property. */
  | "member"
  /** A union branch (`anyOf[Label]`, `oneOf[Label]`). */
  | "branch"
  /** `*`: any key an open object admits. */
  | "any-key"
  /** `/regex/`: a `patternProperties` pattern. */
  | "pattern"
  /** A visible path whose type changed (a wider one, or a bound the map shows removed). */
  | "type"
  /** A limit of a visible path (a bound, length, count, pattern, `uniqueItems`, a subschema shown whole). */
  | "limit"
  /** Whether a member must be sent (`required`; GraphQL non-null without a default). */
  | "required"
  /** A default value (the server fills it in; reported as a change). */
  | "default"
  /** An enum value. */
  | "enum"
  /** A response field a GraphQL tool narrowed with `returns` asks for. */
  | "fetched"
  | "endpoint"
  | "pin"
  | "withheld";

export interface EgressDifference {
  tool: string;
  /**
   * The path with type names: from the tool's root (`amount.currency`) where the type is
   * reached from one place only, else from the type (`Amount.currency`). Empty for a tool.
   */
  path: string;
  kind: EgressDifferenceKind;
  /** `tool post_payments: amount.currency: string`: the same words in text, JSON and annotations. */
  subject: string;
  /** 1-based line of the committed map nearest to the difference, when there is one. */
  line?: number;
}
