import { openUsageStore, type UsageSink } from "@sluice/catalog/usage";
import { stringOption, type OptionValues } from "./args.ts";
import { usageLocationOfPack, usageNow, usageOff } from "./usage-location.ts";

/**
 * `sluice serve`'s usage recording: one record per MCP session (a stdio run, or each HTTP
 * session) in the project's usage store, for `sluice usage`. The store is opened, checked
 * and created before serving starts, so an unsafe or unwritable folder stops serve with its
 * code rather than failing later; `--no-usage` (SLUICE_USAGE=off) records nothing.
 * Returns what makes each session's recorder, or undefined when recording is off.
 */
export function usageRecorder(values: OptionValues, file: string, cwd: string, say: (line: string) => void): (() => UsageSink) | undefined {
  if (usageOff(values["no-usage"])) return undefined;
  const location = usageLocationOfPack(file, cwd, stringOption(values, "usage-dir"));
  const startedAt = usageNow();
  const store = openUsageStore({ dir: location.dir, anchor: location.anchor });
  say(`recording tool usage (names and counts only) in ${store.dir} as ${location.pack}; sluice usage reads it, --no-usage turns it off`);
  // A record that cannot be written is said once per session; serving goes on.
  const onError = (error: Error) => say(`warning: tool usage not recorded for this session: ${error.message}`);
  return () => store.session(location.pack, { onError, ...(startedAt === undefined ? {} : { startedAt }) });
}
