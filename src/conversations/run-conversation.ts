import type { AskKind } from '../agent/agent-types.js';

/**
 * What people said to a `code` run of a ticket beyond the ticket itself, handed to the model in
 * untrusted-data blocks: earlier hand-backs with their answers, review feedback on the ticket's
 * service pull requests, and the instructions that came with the command that started the run.
 */
export interface RunConversation {
  /** The ticket's hand-backs, oldest first; the last one is what this run resumes from. */
  handBacks: readonly HandBack[];
  /** Review feedback on the ticket's open service pull requests (rework). */
  feedback: readonly PullRequestFeedback[];
  /** Text that followed the command which started this run (rework instructions), or null. */
  instructions: string | null;
}

export interface HandBack {
  runId: string;
  kind: AskKind;
  question: string;
  askedAt: string;
  /** The answer that resumed the ticket, or null (resumed by a retry, or not answered). */
  answer: string | null;
  /** Who answered: a tracker or host account, or the dashboard caller's name claim. */
  answeredBy: string | null;
  answerSource: AnswerSource | null;
}

/** Where an answer to a hand-back came from. */
export const AnswerSource = {
  TicketComment: 'ticket-comment',
  PullRequest: 'pull-request',
  Dashboard: 'dashboard',
  Retry: 'retry',
  /** A reply in the chat thread that follows the run, or one of its answer buttons (issue 30). */
  Chat: 'chat',
} as const;
export type AnswerSource = (typeof AnswerSource)[keyof typeof AnswerSource];

/** One service pull request's feedback since the previous attempt started, plus every unresolved thread. */
export interface PullRequestFeedback {
  repo: string;
  number: number;
  url: string | null;
  items: readonly DiscussionItem[];
}

/**
 * One comment on a pull request as the hosts give it: a general comment, a review body, or a
 * comment in a (possibly inline) thread.
 */
export interface DiscussionItem {
  id: string;
  /** Login / username / uniqueName of the writer; null when the host hides it. */
  author: string | null;
  body: string;
  /** ISO 8601 time the host gives for the comment. */
  createdAt: string;
  /** File and new-side line an inline comment is anchored on, else null. */
  path: string | null;
  line: number | null;
  /** The thread (GitHub review thread, GitLab discussion, Azure DevOps thread) it belongs to, or null. */
  threadId: string | null;
  /** The thread's resolution (false: open/active), null where the item is in no resolvable thread. */
  resolved: boolean | null;
  /** A note the host wrote itself (GitLab system note), never the reviewer's words. */
  system: boolean;
}
