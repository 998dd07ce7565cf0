// @sluice/catalog/served-list: reading and keying a pack's served list, with nothing of the
// rest of sluice behind it but the guards (serve reads the list before anything else loads).
export { SERVED_LIST_FILE, formatServedList, packCoreVersion, packSourceDigest, packSourceEntries, packSourceFiles, parseServedList, readServedListFile, servedListDigest, type LentJson, type ListedDefinition, type ServedList } from "./served-list/served-list-file.ts";
export { statCacheDir, verifiedServedList, type VerifiedListOptions } from "./served-list/verified-served-list.ts";
