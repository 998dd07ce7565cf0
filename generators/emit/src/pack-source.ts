/**
 * The contract every source of tools implements (OpenAPI, GraphQL, an MCP snapshot): read
 * its input and give the tool IR with what only the source knows (runtime facts, response
 * hints, pagination, credential schemes, its own warnings) and how its IR becomes source.
 * The pipeline (@sluice/pipeline) runs every config pass between read and emit, the same
 * for every kind, and knows no source by name: a new source is a new implementation of
 * this, not a new branch there.
 */
import type { McpServerFact, PackIR, ResponseHints, RuntimeFacts } from "@sluice/core";
import type { GeneratorInfo } from "./header.ts";
import type { EmittedFile } from "./pack-sources.ts";

export type SourceKind = "openapi" | "graphql" | "mcp";

/**
 * One operation as include/exclude see it, by its generated tool name. A source fills the
 * fields it has: an OpenAPI operation its method, path, tags and operationId; a GraphQL root
 * field its field names; an MCP tool its upstream name.
 */
export interface SelectableOperation {
  /** The generated tool name (before any prefix or rename). */
  tool: string;
  /** Other names an `operations` glob matches (operationId, `issues` and `Query.issues`, the upstream tool name). */
  names?: string[];
  /** The names a did-you-mean offers for an `operations` entry, beside the tool name. */
  suggest?: string[];
  tags?: string[];
  method?: string;
  path?: string;
}

/** The config choices a source reads itself, already checked and resolved by the pipeline. */
export interface SourceChoices {
  /** Argument (or selector) -> the security scheme whose credential fills it. */
  credentialArguments?: Record<string, string>;
  detectCredentialArguments?: boolean;
  /** External `$ref` -> absolute path of the local file. */
  externalRefs?: Record<string, string>;
  /** Given to a source that withholds by its own selectors (`withholdsItself`); other sources leave it to the pipeline. */
  withhold?: Record<string, "internal" | "deprecated" | "projection">;
  authHeader?: string;
  baseUrl?: string;
  /** The MCP server the pack proxies, as the runtime facts keep it (secrets stay `{ fromEnv }`). */
  mcpServer?: McpServerFact;
}

export interface SourceInput {
  /** The pack's name. */
  name: string;
  /** The spec's file name, as copied to `spec/`. */
  file: string;
  bytes: Uint8Array;
  /**
   * The bytes as UTF-8 text, as `new TextDecoder().decode` gives it (a byte-order mark
   * dropped), for a source that reads text: the pipeline decoded them already when it
   * detected the kind, and a 10 MB spec is not decoded twice. Hands the text over once and
   * then forgets it (a later call decodes again), so it does not outlive the source's parse.
   */
  text: () => string;
  sha256: string;
  /** include/exclude's verdict on one operation; a source asks about each operation once, before building it. */
  select: (operation: SelectableOperation) => boolean;
  choices: SourceChoices;
  /** Progress, for work longer than a second. */
  step: (label: string) => void;
}

/** What a source read: the IR and what only it knows, asked again after the passes with the final IR. */
export interface SourceRead {
  ir: PackIR;
  generator: GeneratorInfo;
  /** Runtime facts of the final IR (prefixed, renamed, withheld): keyed by the names the pack serves. */
  facts: (ir: PackIR) => RuntimeFacts;
  /** The default response handler's hints, or undefined when the source knows nothing of its answers. */
  responseHints?: (ir: PackIR, facts: RuntimeFacts) => { shared: ResponseHints; tools: Record<string, ResponseHints> };
  /** What the spec leaves unsaid and the user has to supply, as report warnings. */
  warnings?: (ir: PackIR, facts: RuntimeFacts) => string[];
  /** The IR's sources (pure), with `src/*.gen.ts` paths. */
  emit: (ir: PackIR, options: { regenerate: string }) => EmittedFile[];
}

export interface PackSource {
  kind: SourceKind;
  /** Config choices this source cannot carry out -> what to do instead; the pipeline refuses them (CONFIG_UNSUPPORTED). */
  unsupported: Readonly<Record<string, string>>;
  /** Whether `choices.withhold` is applied by the source (selectors reaching inside arguments) rather than by the pipeline's pass. */
  withholdsItself: boolean;
  /** Whether the spec copy is marked generated in `.gitattributes` (collapsed in diffs); an MCP snapshot is what a reviewer must read. */
  collapseSpec: boolean;
  read(input: SourceInput): Promise<SourceRead>;
}
