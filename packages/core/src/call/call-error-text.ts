import { isSluiceError, SluiceError, type ArgumentIssue } from "@sluice/schema";

/**
 * Issues that make a call EGRESS_DENIED rather than INVALID_ARGUMENTS: something withheld,
 * pinned, a wire name the argument does not own (`reserved`), or a prototype key.
 */
const DENIED_CODES: ReadonlySet<string> = new Set(["withheld", "pinned", "reserved", "prototype_key"]);
/** Issues listed in a refusal's message; `issues` on the error holds them all. */
const SHOWN_ISSUES = 20;

/**
 * The error a call with these argument issues is refused with (what `call` throws): EGRESS_DENIED
 * when anything withheld, pinned or reserved was sent, else INVALID_ARGUMENTS; the message lists
 * every issue (the first 20) so the model can fix them all in one go.
 */
export function argumentRefusal(tool: string, issues: readonly ArgumentIssue[]): SluiceError {
  const denied = issues.some((issue) => DENIED_CODES.has(issue.code));
  const shown = issues.slice(0, SHOWN_ISSUES);
  const lines = shown.map((issue) => `- ${issue.path === "" ? "(arguments)" : issue.path}: ${issue.message}`);
  if (issues.length > shown.length) lines.push(`- ... and ${issues.length - shown.length} more`);
  const head = denied
    ? `${tool} refused the call: it sends fields this tool withholds. Remove them and call again.`
    : `${tool} refused the call: the arguments do not match the tool's schema. Fix them and call again.`;
  return new SluiceError(denied ? "EGRESS_DENIED" : "INVALID_ARGUMENTS", `${head}\n${lines.join("\n")}`, { tool, issues });
}

/**
 * What a model reads when a call fails, as `sluice serve` sends it: `CODE: message` for a
 * SluiceError (the message of a refusal lists every issue), and for anything else an
 * INTERNAL_ERROR line naming the tool and the error's message, never its stack. Framework
 * helpers return it as the tool's result so the model can correct the call.
 */
export function callErrorText(error: unknown, tool?: string): string {
  if (isSluiceError(error)) return `${error.code}: ${error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  return `INTERNAL_ERROR: ${tool ?? "the tool"} failed inside the caller (${message}); the API may not have been called.`;
}
