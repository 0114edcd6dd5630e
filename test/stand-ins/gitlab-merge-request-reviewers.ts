import type { GitLabMergeRequestReviews } from './gitlab-merge-request-reviews.js';
import type { GitLabMergeRequestState } from './gitlab-merge-requests.js';
import { json, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * The reviewers of the GitLab stand-in's merge requests and their review state, with GitLab's
 * answers: `GET merge_requests/:iid/reviewers` lists `{user, state, created_at}`. A reviewer
 * starts `unreviewed`; Request changes makes it `requested_changes` and writes GitLab's system
 * note "requested changes" (written even for someone who is not a reviewer, whose state stays
 * unlisted, as GitLab does); an approval makes it `approved` with "approved this merge request",
 * which withdraws an earlier request; revoking one makes it `unapproved`.
 */

export type GitLabReviewState = 'unreviewed' | 'reviewed' | 'requested_changes' | 'approved' | 'unapproved';

export interface GitLabReviewerState {
  username: string;
  state: GitLabReviewState;
  createdAt: string;
}

const NOTES: Partial<Record<GitLabReviewState, string>> = {
  requested_changes: 'requested changes',
  approved: 'approved this merge request',
  unapproved: 'unapproved this merge request',
};

export class GitLabMergeRequestReviewers {
  constructor(private readonly reviews: GitLabMergeRequestReviews) {}

  add(mr: GitLabMergeRequestState, username: string): void {
    if (!mr.reviewers.some((r) => r.username === username)) mr.reviewers.push({ username, state: 'unreviewed', createdAt: '2026-01-01T00:00:00.000Z' });
  }

  /** `username` submits a review act, at `createdAt` if given; answers the system note's id, if one is written. */
  act(mr: GitLabMergeRequestState, username: string, state: GitLabReviewState, createdAt?: string): number | null {
    const reviewer = mr.reviewers.find((r) => r.username === username);
    if (reviewer) reviewer.state = state;
    const note = NOTES[state];
    return note ? this.reviews.addNote(mr, note, { username, system: true, createdAt }) : null;
  }

  route(req: RecordedRequest, mr: GitLabMergeRequestState): StandInResponse {
    if (req.method !== 'GET') return { status: 405, body: { error: '405 Method Not Allowed' } };
    return json(200, mr.reviewers.map((r, i) => ({
      user: { id: 5000 + i, username: r.username, name: r.username, state: 'active', web_url: `https://gitlab.example/${r.username}` },
      state: r.state,
      created_at: r.createdAt,
    })));
  }
}
