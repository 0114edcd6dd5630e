/**
 * GitLab's own system note for Request changes on a merge request: its body is "requested
 * changes", written by GitLab in the reviewer's name (`SystemNoteService.requested_changes`). Matched on the note's start, case and spacing
 * aside, so a trailing addition or a Markdown emphasis a version may add still counts, while
 * "requested review from @ana" or a sentence that merely mentions it does not. Apply it to
 * system notes only: a person can type these words too.
 */
export function isRequestedChangesNote(body: string): boolean {
  return /^[\s*_]*requested\s+changes(?![\w-])/i.test(body);
}
