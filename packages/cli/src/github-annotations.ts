/**
 * GitHub Actions workflow commands (`::error file=...::message`), so that a drift or an
 * egress widening shows on the pull request's changed file, not only in the log.
 * https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
 */
import { SluiceError } from "@sluice/schema";

/** `--format github` asks for them; `--format text` refuses them; by default they follow GITHUB_ACTIONS. */
export function annotationsWanted(format: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  if (format === undefined) return env["GITHUB_ACTIONS"] === "true";
  if (format === "github") return true;
  if (format === "text") return false;
  throw new SluiceError("INVALID_OPTION", `--format takes github or text, got "${format}".`);
}

/**
 * One annotation line, on `line` of `file` when given. Properties and message are escaped
 * as the runner expects (%, CR, LF; and , : in properties).
 */
export function annotation(level: "error" | "warning" | "notice", file: string, message: string, title?: string, line?: number): string {
  const property = (value: string) => escapeData(value).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const properties = [
    `file=${property(file)}`,
    ...(line === undefined || line < 1 ? [] : [`line=${line}`]),
    ...(title === undefined ? [] : [`title=${property(title)}`]),
  ].join(",");
  return `::${level} ${properties}::${escapeData(message)}\n`;
}

function escapeData(value: string): string {
  return value.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
