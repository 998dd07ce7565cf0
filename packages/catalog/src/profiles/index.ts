// Provider limit profiles, and the two operations on them: check (what would be
// rejected) and fit (a tool array the provider accepts, with every change logged).
export type { Profile, ProfileId, ProfileLimits, StrictLimits } from "./profile.ts";
export { profile, PROFILE_IDS, type ProfileOptions } from "./provider-profiles.ts";
export { check, qualifiedName, DEFAULT_SERVER_NAME, MAX_FINDINGS_PER_CODE, type CheckOptions, type Finding, type FindingCode } from "./check.ts";
export { describeFitChange, fit, LossyFitRefusedError, type FitAction, type FitChange, type FitOptions, type FitResult, type PathAudit } from "./fit.ts";
