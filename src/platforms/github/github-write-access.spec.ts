import { describe, expect, it } from 'vitest';
import { gitHubAssociationVerdict } from './github-write-access.js';

describe('gitHubAssociationVerdict', () => {
  it.each(['OWNER', 'MEMBER', 'COLLABORATOR', 'collaborator'])('grants %s', (association) => {
    expect(gitHubAssociationVerdict(association)).toEqual({ granted: true });
  });

  it.each(['CONTRIBUTOR', 'FIRST_TIME_CONTRIBUTOR', 'FIRST_TIMER', 'MANNEQUIN', 'NONE'])('refuses %s, naming it', (association) => {
    const verdict = gitHubAssociationVerdict(association);
    expect(verdict.granted).toBe(false);
    expect(verdict.granted === false && verdict.reason).toContain(`author_association ${association}`);
  });

  it('names the author when told who it is', () => {
    expect(gitHubAssociationVerdict('NONE', 'mallory')).toEqual({ granted: false, reason: expect.stringMatching(/^mallory has author_association NONE/) });
  });

  it('refuses a payload without author_association', () => {
    expect(gitHubAssociationVerdict(null)).toEqual({ granted: false, reason: expect.stringContaining('no author_association') });
    expect(gitHubAssociationVerdict('')).toEqual({ granted: false, reason: expect.stringContaining('no author_association') });
  });
});
