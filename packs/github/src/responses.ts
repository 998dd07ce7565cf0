/**
 * What GitHub GraphQL answers reach the model as (hand-written). The generated documents
 * select every scalar of a type, and GitHub's types carry a lot for its own web pages:
 * every text again as rendered HTML (`bioHTML`, `descriptionHTML`), every URL again as a
 * relative `resourcePath`, hovercards, contribution calendars, Open Graph images, funding
 * and contact links, and the lint errors of a CODEOWNERS file. None of it is something an
 * agent acts on; the text, the `url` and the ids stay. `tempCloneToken` is a credential
 * for cloning a private repository and never belongs in a model's context.
 *
 * Issue and pull-request templates keep what tells them apart (name, file, what it is
 * about) without their bodies: the file is in the repository when one is needed.
 */
import type { ResponseHandler } from "@sluice/core";
import { defineOwn, isRecord } from "@sluice/core/pack";

const NOISE = new Set([
  "codeowners", "contactLinks", "fundingLinks", "viewerPossibleCommitEmails", "tempCloneToken", "openGraphImageUrl", "usesCustomOpenGraphImage",
  "hovercard", "contributionsCollection", "interactionAbility", "copilotEndpoints", "suggestedListNames", "planFeatures", "itemShowcase",
  "anyPinnableItems",
]);

/** Members dropped at every depth (why: see the file comment). */
export function isGithubNoise(key: string): boolean {
  return NOISE.has(key) || /HTML$/.test(key) || /^resourcePath$|ResourcePath$/.test(key);
}

const TEMPLATE_FIELDS = ["name", "filename", "about", "title"];

/** A single object with its templates reduced to what tells them apart. */
export const githubSingle: ResponseHandler = (value) => {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = value[key];
    if ((key === "issueTemplates" || key === "pullRequestTemplates") && Array.isArray(member)) {
      defineOwn(out, key, member.map((template) => {
        if (!isRecord(template)) return template;
        const slim: Record<string, unknown> = {};
        for (const name of TEMPLATE_FIELDS) if (Object.prototype.hasOwnProperty.call(template, name)) defineOwn(slim, name, template[name]);
        return slim;
      }));
    } else defineOwn(out, key, member);
  }
  return out;
};
