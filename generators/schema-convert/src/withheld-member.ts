import { selectorSegment } from "@sluice/core";

/**
 * The member of a flattened object a withheld entry belongs to (`.member` or
 * `.member.rest`, the member spelled as a selector segment) and the length of that prefix;
 * the longest such name wins. Both generators re-key such an entry by the member's argument name.
 */
export function withheldMember(path: string, members: object): { member: string; prefix: number } | undefined {
  let found: { member: string; prefix: number } | undefined;
  for (const member of Object.keys(members)) {
    const head = `.${selectorSegment(member)}`;
    if ((path === head || path.startsWith(`${head}.`)) && (found === undefined || head.length > found.prefix)) found = { member, prefix: head.length };
  }
  return found;
}
