/**
 * What `sluice report` knows about a pack: the contract between the builder
 * (build-report.ts), the `--json` output and the HTML page (render-html.ts and its
 * client script). Deterministic: identical tools give byte-identical JSON (no dates, no
 * absolute paths, every list in a stated order).
 */
import type { Suggestion } from "@sluice/core";

/** How a branch's values reach the API, per the egress map. */
export type BranchStatus = "visible" | "withheld" | "pinned";

export interface ReportBranch {
  /** Selector spelling from the tool's root (`filter.assignee`), or a type selector (`IssueFilter.and`) for a recursive type's members. */
  path: string;
  /**
   * Tokens the branch costs by real pruning, as `paths({ byCost })` prices it: tokens of
   * the tool minus tokens of the tool without it. Can be 0 or negative (removing it can
   * split a shared definition); the page draws such a branch with no area.
   * For a withheld or pinned branch of a curated tool: what it costs in the `*_full` twin.
   */
  tokens: number;
  status: BranchStatus;
  /** The selector a `derived({ drop })` takes to withhold it (for a visible branch); what withheld it otherwise. */
  selector: string;
  /** Why it is withheld (`dropped`, `pinned`, `credential`, ...), for a withheld or pinned branch. */
  reason?: string;
  /**
   * For a visible branch `derived({ drop })` refuses (REQUIRED_DROPPED): its message, which
   * says what to do instead (pin it, or withhold the union branch that requires it). The
   * page offers no drop for such a branch.
   */
  dropRefused?: string;
  /** Priced branches one level down, by tokens descending then path. Absent below the depth bound. */
  children?: ReportBranch[];
  /**
   * What is not listed one level down. Within the depth bound: the children priced but
   * not listed (past the per-level limit), their count and the exact sum of their tokens.
   * At the depth bound (no `children`): how many members lie below, and `tokens` is the
   * branch's own cost, since nothing below it was priced.
   */
  rest?: {
    paths: number;
    tokens: number;
    /** Within the depth bound: the selectors of the children priced but not listed, in the children's order, so search still finds them. */
    selectors?: string[];
  };
}

export interface ReportTool {
  name: string;
  /** `POST graphql query issues`, `GET /v1/customers`. */
  endpoint: string;
  /** `schemaTokens` of the tool as sent. */
  tokens: number;
  /** `curated`: a projection replacing a tool (its twin is `<name>_full`); `full`: such a twin; `derived`: a projection beside its source; `plain`: anything else. */
  kind: "curated" | "full" | "derived" | "plain";
  /** For `curated` and `derived`: the tool it narrows. */
  source?: string;
  /** Top-level argument branches, by tokens descending then path (visible ones priced on this tool; withheld ones priced on the source). */
  branches: ReportBranch[];
  /** Tokens not inside any argument (name, description, the schema's frame). */
  frame: number;
  /** Whether the branches were priced (tools below the pricing threshold carry only `tokens`). */
  priced: boolean;
  /** Counts of the egress map's lines for this tool. */
  egress: { visible: number; withheld: number; pinned: number };
}

/** A set of definitions that refer to each other in a cycle (a strongly connected component). */
export interface ReportCycle {
  /** The definitions, sorted. */
  types: string[];
  /** Tools whose schema reaches the cycle, sorted. */
  tools: string[];
  /** Type selectors whose drop cuts the cycle (`recursionCuts`), sorted. */
  cuts: string[];
  /** Tokens the cuts save, summed over the tools that reach it (by real pruning). */
  tokensSaved: number;
}

/** A definition sent again in several tools. */
export interface ReportSharedType {
  name: string;
  /** Tools whose schema carries it, sorted. */
  tools: string[];
  /** Tokens of one copy (the definition's own text). */
  tokensEach: number;
  /** tokensEach times the number of tools. */
  tokensTotal: number;
}

/** A curated tool beside its `*_full` twin. */
export interface ReportCurated {
  name: string;
  full: string;
  tokens: number;
  fullTokens: number;
  saved: number;
  /** The egress map's withheld lines for this tool (`- filter.and: dropped`, `- teamId: pinned "T1"`). */
  withheldLines: string[];
}

/** What `sluice suggest` proposes for a tool above the budget (`suggestProjection`'s answer), or why nothing fits. */
export interface ReportSuggestion extends Suggestion {
  /** When nothing fits: the smallest the tool gets while keeping what must stay. */
  floor?: number;
  /** The coded reason when no projection fits (`BUDGET_UNREACHABLE`). */
  error?: string;
}

export interface ReportData {
  /** Format version of this document. */
  version: 1;
  /** The pack as named on the command line (a workspace pack name or a path as given). */
  pack: string;
  encoding: "o200k_base" | "cl100k_base";
  totals: { tools: number; tokens: number };
  /** Tools by tokens descending, then name. */
  tools: ReportTool[];
  /** Cycles by tokensSaved descending, then first type. */
  cycles: ReportCycle[];
  /** Definitions carried by at least two tools, by tokensTotal descending, then name. */
  sharedTypes: ReportSharedType[];
  /** Curated tools by saved descending, then name. */
  curated: ReportCurated[];
  /** With `--budget`: a suggestion for every tool above it, by tool tokens descending. */
  budget?: number;
  suggestions: ReportSuggestion[];
}
