/** `author_association` values that mean write access (spec: CONTRIBUTOR is not enough). */
export const WRITE_ASSOCIATIONS: readonly string[] = ['OWNER', 'MEMBER', 'COLLABORATOR'];

/**
 * GitHub's write-access rule, from the webhook payload alone: the comment's or review's
 * `author_association` is OWNER, MEMBER or COLLABORATOR. Anything else (CONTRIBUTOR,
 * FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, MANNEQUIN, NONE, missing) is refused, naming it.
 */
export function gitHubAssociationVerdict(association: string | null, who = 'the author'): { granted: true } | { granted: false; reason: string } {
  const value = association?.trim().toUpperCase() ?? '';
  if (WRITE_ASSOCIATIONS.includes(value)) return { granted: true };
  const named = value === '' ? 'no author_association' : `author_association ${value}`;
  return { granted: false, reason: `${who} has ${named} on the repository; OWNER, MEMBER or COLLABORATOR is needed` };
}
