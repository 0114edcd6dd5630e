import { describe, expect, it } from 'vitest';
import { isRequestedChangesNote } from './requested-changes-note.js';

describe('isRequestedChangesNote', () => {
  it('recognises GitLab’s system note for Request changes, case and spacing aside', () => {
    for (const body of ['requested changes', 'Requested changes', '  requested  changes\n', 'requested changes.', '**requested changes**', 'requested changes to this merge request']) {
      expect(isRequestedChangesNote(body), body).toBe(true);
    }
  });

  it('ignores GitLab’s other review notes and text that only mentions it', () => {
    for (const body of ['approved this merge request', 'unapproved this merge request', 'requested review from @ana', 'removed review request for @ana', 'I requested changes yesterday', 'requested changesets', 'requested-changes', '']) {
      expect(isRequestedChangesNote(body), body).toBe(false);
    }
  });
});
