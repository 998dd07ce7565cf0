// @sluice/catalog/served-list: reading and keying a pack's served list, with nothing of the
// rest of sluice behind it (serve reads the list before anything else loads).
export { SERVED_LIST_FILE, formatServedList, packCoreVersion, packSourceDigest, packSourceFiles, parseServedList, readServedListFile, servedListDigest, type LentJson, type ListedDefinition, type ServedList } from "./served-list/served-list-file.ts";
