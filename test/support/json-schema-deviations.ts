/**
 * Where sluice deliberately refuses what the JSON-Schema-Test-Suite calls valid: the one
 * list the suite test (test/json-schema-suite.test.ts) holds every refused valid case
 * against, and the source of the table in docs/json-schema.md (written by
 * scripts/json-schema-suite.ts; the test fails when the doc's table is not this list's).
 *
 * A refused valid case is explained by a deviation when the deviation names its suite
 * group (`file` for every group of a file, or `file: group description`) AND the cause of
 * the refusal is one the deviation lists (see `cause` in json-schema-suite.ts): a group
 * listed for closed objects cannot hide a type refusal, and a new kind of refusal in a
 * listed group fails the test. No deviation ever explains an accepted invalid instance.
 */
export interface Deviation {
  id: string;
  /** What sluice does, in one or two sentences. */
  sluice: string;
  /** Why, in one or two sentences. */
  reason: string;
  /** Refusal causes it explains: `screen:<code>`, `validate:<keyword>`, `error:<CODE>`. */
  causes: readonly string[];
  /** Suite groups it covers: `file.json` (every group) or `file.json: group description`. */
  where: readonly string[];
}

export const DEVIATIONS: readonly Deviation[] = [
  {
    id: "closed-objects",
    sluice:
      "An object schema that lists members (`properties`, `patternProperties`) admits only those keys, unless `additionalProperties` opens it. Keys named only under `if`, `not` or `dependentSchemas`, or left to `unevaluatedProperties`, are not admitted.",
    reason:
      "Arguments are what a model may send. JSON Schema's default (any other key is allowed) would let a model send fields the API never documented; the egress map lists every path screening admits, and only declared paths can be listed and withheld.",
    causes: ["screen:unknown"],
    where: [
      "additionalProperties.json: additionalProperties are allowed by default",
      "dependencies.json: dependent subschema incompatible with root",
      "dependentSchemas.json: dependent subschema incompatible with root",
      "not.json: forbidden property",
      "patternProperties.json: patternProperties with Unicode property escape",
      "patternProperties.json: regexes are not anchored by default and are case sensitive",
      "properties.json: object properties validation",
      "unevaluatedProperties.json: dependentSchemas with unevaluatedProperties",
      "unevaluatedProperties.json: dynamic evalation inside nested refs",
      "unevaluatedProperties.json: nested unevaluatedProperties, outer false, inner true, properties inside",
      "unevaluatedProperties.json: unevaluatedProperties can see annotations from if without then and else",
      "unevaluatedProperties.json: unevaluatedProperties with dependentSchemas",
      "unevaluatedProperties.json: unevaluatedProperties with if/then/else",
      "unevaluatedProperties.json: unevaluatedProperties with if/then/else, else not defined",
      "unevaluatedProperties.json: unevaluatedProperties with if/then/else, then not defined",
    ],
  },
  {
    id: "typeless-schemas",
    sluice:
      "A schema without `type` admits only the JSON types its keywords describe: `{maxProperties: 2}` takes objects, `{items: ...}` arrays, `{pattern: ...}` or `{format: ...}` strings; a schema of only `not` admits no object or array.",
    reason:
      "JSON Schema applies each keyword to its own type and lets every other type through, so `{maxProperties: 2}` accepts `[]` and `12`. An API that documents object constraints wants an object, and screening copies an argument's members by the shape its schema describes.",
    causes: ["screen:type"],
    where: [
      "additionalProperties.json: additionalProperties being false does not allow other properties",
      "contains.json: contains keyword validation",
      "dependencies.json: dependencies",
      "dependentRequired.json: single dependency",
      "dependentSchemas.json: single dependency",
      "format.json",
      "items.json: a schema given for items",
      "items.json: an array of schemas for items",
      "maxProperties.json: maxProperties validation",
      "minProperties.json: minProperties validation",
      "not.json: allow everything with boolean schema false",
      "not.json: collect annotations inside a 'not', even if collection is disabled",
      "not.json: not more complex schema",
      "pattern.json: pattern validation",
      "patternProperties.json: patternProperties validates properties matching a regex",
      "prefixItems.json: a schema given for prefixItems",
      "properties.json: object properties validation",
      "properties.json: properties whose names are Javascript object property names",
      "propertyNames.json: propertyNames validation",
      "required.json: required properties whose names are Javascript object property names",
      "required.json: required validation",
      "unevaluatedItems.json: non-array instances are valid",
      "unevaluatedProperties.json: non-object instances are valid",
    ],
  },
  {
    id: "format-asserted",
    sluice: "`format` is checked (ajv-formats) for the formats the validator knows; unknown formats are not checked.",
    reason:
      "Draft 2020-12 makes `format` an annotation by default. An API that declares `date-time` or `uuid` refuses other strings, so the call is refused before it is sent, with a message the model can act on.",
    causes: ["validate:format"],
    where: ["format.json"],
  },
  {
    id: "prototype-keys",
    sluice: "`__proto__` is refused as a key at any depth, even where a schema declares it.",
    reason:
      "A server that merges a body into an object (`Object.assign`, a naive deep merge) moves what `__proto__` holds into the prototype, where a withheld member reads as if it had been sent. No real API declares it.",
    causes: ["screen:prototype_key"],
    where: [
      "properties.json: properties whose names are Javascript object property names",
      "required.json: required properties whose names are Javascript object property names",
    ],
  },
  {
    id: "document-refs",
    sluice:
      "A `$ref` resolves inside its document by JSON pointer. A ref to another document is never fetched (EXTERNAL_REF unless mapped to a local file); `$id` base URIs, `$anchor`s and URN identifiers are not resolved (the generator reports EXTERNAL_REF or UNRESOLVED_REF and skips the operation; Tool.create's schema does not compile: SPEC_INVALID).",
    reason:
      "Tools are built offline and byte-deterministically from the vendored spec, and a tool carries its types under `$defs` with `#/$defs/Name` refs, which every provider, projection and egress map reads the same way.",
    causes: ["error:EXTERNAL_REF", "error:UNRESOLVED_REF", "error:SPEC_INVALID", "screen:type"],
    where: [
      "anchor.json",
      "definitions.json: validate definition against metaschema",
      "defs.json: validate definition against metaschema",
      "dynamicRef.json",
      "ref.json: $id must be resolved against nearest parent, not just immediate parent",
      "ref.json: $id with file URI still resolves pointers - *nix",
      "ref.json: $id with file URI still resolves pointers - windows",
      "ref.json: $ref prevents a sibling id from changing the base uri",
      "ref.json: Location-independent identifier",
      "ref.json: Location-independent identifier with base URI change in subschema",
      "ref.json: Recursive references between schemas",
      "ref.json: URN base URI with NSS",
      "ref.json: URN base URI with URN and JSON pointer ref",
      "ref.json: URN base URI with URN and anchor ref",
      "ref.json: URN base URI with q-component",
      "ref.json: URN base URI with r-component",
      "ref.json: URN ref with nested pointer ref",
      "ref.json: id must be resolved against nearest parent, not just immediate parent",
      "ref.json: order of evaluation: $id and $anchor and $ref",
      "ref.json: order of evaluation: $id and $ref",
      "ref.json: order of evaluation: $id and $ref on nested schema",
      "ref.json: ref to else",
      "ref.json: ref to if",
      "ref.json: ref to then",
      "ref.json: ref with absolute-path-reference",
      "ref.json: refs with relative uris and defs",
      "ref.json: relative refs with absolute uris and defs",
      "ref.json: remote ref, containing refs itself",
      "ref.json: simple URN base URI with $ref via the URN",
      "ref.json: simple URN base URI with JSON pointer",
      "refRemote.json",
      "unevaluatedItems.json: unevaluatedItems with $dynamicRef",
      "unevaluatedProperties.json: unevaluatedProperties with $dynamicRef",
    ],
  },
  {
    id: "dynamic-refs",
    sluice: "A schema with `$dynamicRef` or `$recursiveRef` is refused (KEYWORD_UNSUPPORTED): the generator skips the operation, naming operation and pointer; a tool built with one refuses every call.",
    reason:
      "They resolve by the path evaluation took. The validator (Ajv 8) resolves some as plain refs and followed one to `false` as if it were `true`; refusing is the one verdict that never accepts what the schema forbids.",
    causes: ["error:KEYWORD_UNSUPPORTED"],
    where: ["dynamicRef.json", "unevaluatedItems.json: unevaluatedItems with $dynamicRef", "unevaluatedProperties.json: unevaluatedProperties with $dynamicRef"],
  },
  {
    id: "unevaluated-items",
    sluice:
      "A schema whose `unevaluatedItems` depends on a `contains`, or on a single-schema `items` inside a branch that may fail (`anyOf`, `oneOf`, `not`, `if`/`then`/`else`), is refused (KEYWORD_UNSUPPORTED).",
    reason:
      "Ajv 8 does not count the items `contains` matched as evaluated, and counts a failed branch's `items` as if it had passed; both accepted arrays the suite marks invalid.",
    causes: ["error:KEYWORD_UNSUPPORTED"],
    where: [
      "unevaluatedItems.json: unevaluatedItems and contains interact to control item dependency relationship",
      "unevaluatedItems.json: unevaluatedItems depends on adjacent contains",
      "unevaluatedItems.json: unevaluatedItems depends on multiple nested contains",
      "unevaluatedItems.json: unevaluatedItems with minContains = 0",
      "unevaluatedItems.json: unevaluatedItems with nested items",
    ],
  },
  {
    id: "if-annotations",
    sluice: "`unevaluatedItems` does not see the items an `if` without `then`/`else` evaluated.",
    reason: "Ajv 8 collects no annotations from `if`. The error is a refusal, never an acceptance, so it is left as the validator has it.",
    causes: ["validate:unevaluatedItems"],
    where: ["unevaluatedItems.json: unevaluatedItems can see annotations from if without then and else"],
  },
  {
    id: "vocabulary",
    sluice: "`$schema` and `$vocabulary` are not read: the validation keywords always apply.",
    reason: "A tool's input schema is draft 2020-12 with its validation vocabulary; a spec that switched constraints off through a custom meta-schema still has them checked.",
    causes: ["validate:minimum"],
    where: ["vocabulary.json: schema that uses custom metaschema with with no validation vocabulary"],
  },
];

/**
 * The deviations that explain a refused valid case (one per cause, in order), or undefined
 * when some cause of it has none: `cause` may list several (`screen:type,screen:unknown`).
 */
export function deviationsFor(file: string, group: string, cause: string): Deviation[] | undefined {
  const found: Deviation[] = [];
  for (const one of cause.split(",")) {
    const deviation = DEVIATIONS.find((d) => (d.where.includes(file) || d.where.includes(`${file}: ${group}`)) && d.causes.includes(one));
    if (deviation === undefined) return undefined;
    if (!found.includes(deviation)) found.push(deviation);
  }
  return found;
}

const cell = (text: string) => text.replace(/\|/g, "\\|");

/** The table docs/json-schema.md carries between its deviation markers. */
export function renderDeviationTable(): string {
  const rows = DEVIATIONS.map((d) => `| \`${d.id}\` | ${cell(d.sluice)} | ${cell(d.reason)} | ${d.causes.map((c) => `\`${c}\``).join(", ")} |`);
  const groups = DEVIATIONS.map((d) => `- \`${d.id}\`: ${d.where.map((w) => `\`${w}\``).join("; ")}`);
  return [
    "| Deviation | What sluice does | Why | Refusals it explains |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    "Suite groups each deviation covers (a file name covers all of its groups):",
    "",
    ...groups,
  ].join("\n");
}

export const TABLE_START = "<!-- deviations:start (scripts/json-schema-suite.ts writes this table from test/support/json-schema-deviations.ts) -->";
export const TABLE_END = "<!-- deviations:end -->";
