/**
 * Curated GitHub REST tools (hand-written). The fattest tools by `paths --by-cost` mint
 * installation tokens: ~1,550 of their ~1,850 tokens are the `permissions` object (about
 * fifty permission enums). Withholding `permissions` would widen what the token can do
 * (no permissions means all of the installation's), so the curated tools keep the
 * argument and narrow it to the permissions a coding agent asks for.
 */
import { curate, type DeriveOptions, type Tool } from "@sluice/core/pack";
import * as generated from "./tools.gen.ts";

const codePermissionsOnly = {
  keep: ["permissions.contents", "permissions.issues", "permissions.pull_requests", "permissions.metadata", "permissions.checks", "permissions.statuses"],
} satisfies DeriveOptions;

export const appsScopeToken = curate(generated.appsScopeToken, codePermissionsOnly);
export const appsCreateInstallationAccessToken = curate(generated.appsCreateInstallationAccessToken, codePermissionsOnly);

export const curated: readonly Tool<object>[] = [appsScopeToken, appsCreateInstallationAccessToken];
