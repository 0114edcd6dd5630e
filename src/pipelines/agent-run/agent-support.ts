import type { Skill } from '../../catalog/skill-types.js';
import type { AgentUsage } from '../../agent/agent-types.js';
import type { ProviderGate } from '../../agent/provider-gate.js';
import type { AgentConfig, RepoConfig } from '../../config/service-config.js';
import type { RunConversation } from '../../conversations/run-conversation.js';
import type { PullRequestReviews } from '../../platforms/pull-request-review.js';

/** The ticket as the model may read it: all of it untrusted. */
export interface TicketText {
  ticket: string;
  platform: string;
  title: string | null;
  description: string | null;
  comments: readonly { author: string | null; body: string }[];
}

/**
 * What an agent pipeline needs from its surroundings for one run: the server supplies these from
 * its services, `pipeline-service run` from the configuration alone.
 */
export interface AgentRunSupport {
  /** The project's effective `agent:` block. */
  agent: AgentConfig;
  /** Every configured secret value: scrubbed from prompts, tool output and events. */
  secrets: readonly string[];
  /** Rate-limits calls to one provider across the installation. */
  gate: ProviderGate;
  /** The ticket's title, description and comments from its tracker (null for a run without a ticket). */
  ticketText(): Promise<TicketText | null>;
  /** Keeps the run's usage up to date (the server writes it to the run record). */
  noteUsage(usage: AgentUsage): Promise<void>;
  /** The review side of a repository's code host (`pr-review` reads diffs and posts reviews, `security-scan` its summary). */
  reviewsFor?(repo: RepoConfig): PullRequestReviews;
  /**
   * Earlier hand-backs of the ticket with their answers, review feedback on its service pull
   * requests and the command's instructions (null or absent: none, e.g. `pipeline-service run`).
   */
  conversation?(): Promise<RunConversation | null>;
  /** Posts a comment on the run's ticket (`security-scan`'s summary of a ticket run). */
  commentOnTicket?(body: string): Promise<void>;
  /**
   * The skills a run of `pipeline` may load (the catalog's, for the run's project); absent: none
   * (`pipeline-service run` offers the built-in and configured ones only).
   */
  skills?(pipeline: string): Promise<readonly Skill[]>;
  /** Routes the provider's HTTP requests (tests, benchmarks); the global fetch otherwise. */
  fetch?: typeof fetch;
}
