/**
 * Curated Linear tools (hand-written). Every generated tool whose input reaches a
 * recursive filter ships here, narrowed so its schema is acyclic, under the plain
 * name; the untouched original stays available as `<name>_full` (see index.ts).
 *
 * Linear's filter types form one 50-type cycle (IssueFilter -> NullableUserFilter ->
 * IssueCollectionFilter -> ...), so one recursive argument costs ~34,000 tokens and
 * has no finite depth. Two ways of bounding it are used:
 *  - `issues_list`, the tool agents use most, keeps by hand the filters people ask for
 *    (text, priority, dates, team, assignee, state, project, labels), each nested filter
 *    cut down to its identifying fields;
 *  - every other recursive tool drops exactly the properties that lead back into a
 *    cycle (`recursionCuts`): comparators stay, combinators and back-references go.
 * Projections are deferred, so importing the pack computes none of them.
 */
import { curate, recursionCuts, type Tool } from "@sluice/core/pack";
import * as generated from "./tools.gen.ts";
import type * as T from "./types.gen.ts";

/** A recursive generated tool with every edge back into its cycles withheld. */
function bounded<A extends object>(tool: Tool<A>): Tool<A> {
  return curate(tool, (t) => ({ drop: recursionCuts(t) }));
}

const identifiesUser = ["id", "name", "displayName", "email", "isMe"] as const;

export const issuesList: Tool<T.IssuesListArgs> = curate(generated.issuesList, {
  description:
    "List issues, newest first by default. Filter by title text, priority, dates, team, assignee, workflow state, project or label; combine filters by giving several fields. Paginate with first/after.",
  keep: [
    "first",
    "after",
    "last",
    "before",
    "orderBy",
    "includeArchived",
    "filter.title",
    "filter.number",
    "filter.priority",
    "filter.estimate",
    "filter.createdAt",
    "filter.updatedAt",
    "filter.completedAt",
    "filter.dueDate",
    "filter.team.id",
    "filter.team.key",
    "filter.team.name",
    ...identifiesUser.map((field) => `filter.assignee.${field}`),
    ...identifiesUser.map((field) => `filter.creator.${field}`),
    "filter.state.id",
    "filter.state.name",
    "filter.state.type",
    "filter.project.id",
    "filter.project.name",
    "filter.labels.name",
    "filter.labels.some.name",
    "filter.labels.some.id",
  ],
});

export const administrableTeamsList = bounded(generated.administrableTeamsList);
export const agentActivitiesList = bounded(generated.agentActivitiesList);
export const agentSkillsList = bounded(generated.agentSkillsList);
export const attachmentsList = bounded(generated.attachmentsList);
export const auditEntriesList = bounded(generated.auditEntriesList);
export const commentsList = bounded(generated.commentsList);
export const customViewCreate = bounded(generated.customViewCreate);
export const customViewUpdate = bounded(generated.customViewUpdate);
export const customViewsList = bounded(generated.customViewsList);
export const customerNeedsList = bounded(generated.customerNeedsList);
export const customersList = bounded(generated.customersList);
export const cyclesList = bounded(generated.cyclesList);
export const documentsList = bounded(generated.documentsList);
export const initiativeLabelsList = bounded(generated.initiativeLabelsList);
export const initiativeUpdatesList = bounded(generated.initiativeUpdatesList);
export const initiativesList = bounded(generated.initiativesList);
export const issueLabelsList = bounded(generated.issueLabelsList);
export const issueSearchList = bounded(generated.issueSearchList);
export const notificationsList = bounded(generated.notificationsList);
export const projectLabelsList = bounded(generated.projectLabelsList);
export const projectMilestonesList = bounded(generated.projectMilestonesList);
export const projectUpdatesList = bounded(generated.projectUpdatesList);
export const projectsList = bounded(generated.projectsList);
export const releaseNotesList = bounded(generated.releaseNotesList);
export const releasePipelinesList = bounded(generated.releasePipelinesList);
export const releaseSearch = bounded(generated.releaseSearch);
export const releaseStagesList = bounded(generated.releaseStagesList);
export const releasesList = bounded(generated.releasesList);
export const searchIssuesList = bounded(generated.searchIssuesList);
export const semanticSearch = bounded(generated.semanticSearch);
export const teamsList = bounded(generated.teamsList);
export const usersList = bounded(generated.usersList);
export const workflowStatesList = bounded(generated.workflowStatesList);

/** The curated tools, each replacing the generated tool of the same name. */
export const curated: readonly Tool<object>[] = [
  issuesList,
  administrableTeamsList,
  agentActivitiesList,
  agentSkillsList,
  attachmentsList,
  auditEntriesList,
  commentsList,
  customViewCreate,
  customViewUpdate,
  customViewsList,
  customerNeedsList,
  customersList,
  cyclesList,
  documentsList,
  initiativeLabelsList,
  initiativeUpdatesList,
  initiativesList,
  issueLabelsList,
  issueSearchList,
  notificationsList,
  projectLabelsList,
  projectMilestonesList,
  projectUpdatesList,
  projectsList,
  releaseNotesList,
  releasePipelinesList,
  releaseSearch,
  releaseStagesList,
  releasesList,
  searchIssuesList,
  semanticSearch,
  teamsList,
  usersList,
  workflowStatesList,
];
