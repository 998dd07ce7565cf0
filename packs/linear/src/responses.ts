/**
 * What Linear answers reach the model as (hand-written). The generated documents select
 * every scalar of a type and the id of every related object, so an issue in a list is 60
 * members: SLA clocks, sync records, reaction blobs, progress histories, template and
 * favorite references. An agent picking from a list needs to know which item is which
 * and what state it is in; it reads the rest with the get tool (`issue`, `project`, ...).
 *
 *  - Items of a connection of a main type become summaries: ids and handles (`id`,
 *    `identifier` (an issue's `number` is its suffix), `key`, `url`), name or title,
 *    state and priority (its number: `priorityLabel` is a fixed name for it, 0 none
 *    to 4 low), the owner references (assignee, lead, creator, team, project, cycle,
 *    parent), key dates, and descriptions or bodies cut to 120 characters (enough to tell items apart; more
 *    costs every list call) with a marker saying how much was cut and that the get tool
 *    has the whole text. Types not listed keep every pruned member.
 *  - A single object (a get) keeps every member but the noise: JSON blobs for Linear's
 *    own UI (reaction data, activity summaries, progress histories), presentation (color,
 *    icon, avatar background), sync and favorite bookkeeping.
 */
import type { ResponseHandler } from "@sluice/core";
import { defineOwn, isRecord } from "@sluice/core/pack";

const TEXT_MAX = 120;

/** `text` cut to `max` characters with a marker saying how much was cut and where it is whole. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = `${text.slice(0, max)}… [+${text.length - max} chars; whole text via get]`;
  // Cutting a text barely over the limit would make it longer: it stays whole then.
  return cut.length < text.length ? cut : text;
}

/** Long-text members of list items, cut in summaries. */
const CUT = new Set(["description", "body", "content", "quotedText", "summary"]);

const DATES = ["createdAt", "updatedAt", "archivedAt"];

/**
 * Members kept in a list item of each main type (why: see the file comment). Owner and
 * container references are ids (the documents select only `id` of related objects).
 */
export const SUMMARY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Issue: [
    "id", "identifier", "title", "url", "state", "priority", "estimate", "assignee", "creator",
    "team", "project", "cycle", "parent", "labelIds", "dueDate", "completedAt", "canceledAt", ...DATES,
    "description",
  ],
  Team: ["id", "key", "name", "private", "parent", "issueCount", "cyclesEnabled", "activeCycle", "timezone", ...DATES, "description"],
  Project: [
    "id", "name", "slugId", "url", "state", "status", "health", "priority", "progress", "lead", "creator", "labelIds",
    "startDate", "targetDate", "startedAt", "completedAt", "canceledAt", ...DATES, "description",
  ],
  Comment: ["id", "url", "user", "externalUser", "issue", "project", "parent", "resolvedAt", "resolvingUser", "editedAt", ...DATES, "body"],
  User: ["id", "name", "displayName", "email", "url", "title", "active", "admin", "guest", "isMe", "timezone", "lastSeen", ...DATES],
  Cycle: ["id", "number", "name", "team", "startsAt", "endsAt", "completedAt", "isActive", "progress", ...DATES, "description"],
  Document: ["id", "title", "slugId", "url", "creator", "updatedBy", "project", "team", "issue", "initiative", ...DATES, "content"],
  WorkflowState: ["id", "name", "type", "team", "position", ...DATES, "description"],
  IssueLabel: ["id", "name", "team", "parent", "isGroup", ...DATES, "description"],
  ProjectMilestone: ["id", "name", "project", "status", "progress", "targetDate", ...DATES, "description"],
  Initiative: ["id", "name", "slugId", "url", "status", "health", "owner", "creator", "targetDate", "startedAt", "completedAt", ...DATES, "description"],
  ProjectUpdate: ["id", "url", "project", "user", "health", ...DATES, "body"],
  Attachment: ["id", "title", "subtitle", "url", "issue", "creator", "sourceType", ...DATES],
  Notification: ["id", "type", "user", "actor", "readAt", "snoozedUntilAt", ...DATES],
};

/** The type of a root field's items: `issues`, `issue`, `searchIssues` answer issues. */
export const FIELD_TYPES: Readonly<Record<string, string>> = {
  issues: "Issue", issue: "Issue", searchIssues: "Issue", issueSearch: "Issue",
  teams: "Team", team: "Team", administrableTeams: "Team", archivedTeams: "Team",
  projects: "Project", project: "Project", searchProjects: "Project",
  comments: "Comment", comment: "Comment",
  users: "User", user: "User", viewer: "User",
  cycles: "Cycle", cycle: "Cycle",
  documents: "Document", document: "Document", searchDocuments: "Document",
  workflowStates: "WorkflowState", workflowState: "WorkflowState",
  issueLabels: "IssueLabel", issueLabel: "IssueLabel",
  projectMilestones: "ProjectMilestone", projectMilestone: "ProjectMilestone",
  initiatives: "Initiative", initiative: "Initiative",
  projectUpdates: "ProjectUpdate", projectUpdate: "ProjectUpdate",
  attachments: "Attachment", attachment: "Attachment",
  notifications: "Notification", notification: "Notification",
};

/** A list item of type `type` reduced to its summary; items of other types and non-objects pass. */
export function linearSummary(type: string | undefined): ResponseHandler | undefined {
  const fields = type === undefined ? undefined : SUMMARY_FIELDS[type];
  if (fields === undefined) return undefined;
  return (item) => {
    if (!isRecord(item)) return item;
    const out: Record<string, unknown> = {};
    for (const key of fields) {
      if (!Object.prototype.hasOwnProperty.call(item, key)) continue;
      const value = item[key];
      defineOwn(out, key, CUT.has(key) && typeof value === "string" ? cutText(value, TEXT_MAX) : value);
    }
    return out;
  };
}

/**
 * Members no agent acts on, dropped from single objects: Linear's UI state and JSON blobs
 * (reaction data, activity and progress summaries, `*History` series), presentation
 * (color, icon, avatar colors, calendar hash), and sync/favorite/template bookkeeping.
 */
const NOISE = new Set([
  "reactionData", "reactions", "activitySummary", "currentProgress", "progressHistory", "threadSummary", "sharedAccess", "inheritsSharedAccess",
  "syncedWith", "favorite", "documentContent", "lastAppliedTemplate", "recurringIssueTemplate", "integrationSourceType", "descriptionState",
  "contentState", "bodyData", "suggestionsGeneratedAt", "color", "icon", "avatarBackgroundColor", "calendarHash", "facets", "integrationsSettings",
  "pinnedResources", "cycleCalenderUrl", "frequencyResolution", "descriptionData",
]);

export function isLinearNoise(key: string): boolean {
  return NOISE.has(key) || /History$/.test(key);
}

/** A single object without its noise members (top level only; nested objects are already ids). */
export const linearSingle: ResponseHandler = (value) => {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (key === "id" || !isLinearNoise(key)) defineOwn(out, key, value[key]);
  return out;
};
