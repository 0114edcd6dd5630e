import { Inject, Injectable } from '@nestjs/common';
import type { AgentUsage } from '../agent/agent-types.js';
import type { ProviderGate } from '../agent/provider-gate.js';
import { collectSecrets } from '../common/secret-scrubber.js';
import { SkillCatalogService } from '../catalog/skill-catalog.service.js';
import { ConfigService } from '../config/config.service.js';
import { DEFAULT_AGENT, type RepoConfig } from '../config/service-config.js';
import { RunConversationService } from '../conversations/run-conversation.service.js';
import type { PullRequestReviews } from '../platforms/pull-request-review.js';
import type { Platform } from '../platforms/platform.js';
import { ProjectTrackerFactory } from '../tickets/label-projection/project-tracker.factory.js';
import { readTicketText } from './agent-run/ticket-text.js';
import type { Pipeline } from './pipeline.js';
import { resolvePipeline } from './pipeline-catalog.js';
import { PROVIDER_GATE } from './pipeline.tokens.js';

/** The run a pipeline is resolved for. */
export interface CatalogRun {
  runId: string;
  platform: Platform;
  project: string;
  ticket: string | null;
  /** Keeps the run record's usage up to date. */
  noteUsage(usage: AgentUsage): Promise<void>;
  /** The review side of a repository's host (the workspaces' clients). */
  reviewsFor?(repo: RepoConfig): PullRequestReviews;
}

/**
 * Resolves pipeline names against the current (live-reloaded) configuration; an agent pipeline
 * gets the run's support: the project's agent, the ticket's text from its tracker, what people
 * said to the run beyond the ticket (hand-backs and answers, review feedback, instructions), the
 * installation-wide provider gate and the secrets to keep out of everything the model sees.
 */
@Injectable()
export class PipelineCatalogService {
  constructor(
    private readonly config: ConfigService,
    private readonly trackers: ProjectTrackerFactory,
    @Inject(PROVIDER_GATE) private readonly gate: ProviderGate,
    private readonly conversations: RunConversationService,
    private readonly skills: SkillCatalogService,
  ) {}

  resolve(name: string, run?: CatalogRun): Pipeline {
    const { config } = this.config;
    if (!run) return resolvePipeline(config, name);
    return resolvePipeline(config, name, {
      project: run.project,
      ticket: run.ticket,
      support: {
        agent: config.projects[run.project]?.agent ?? config.agent ?? DEFAULT_AGENT,
        secrets: collectSecrets(config, this.config.env),
        gate: this.gate,
        noteUsage: run.noteUsage,
        reviewsFor: run.reviewsFor,
        skills: (pipeline) => this.skills.skillsFor({ project: run.project, pipeline }),
        conversation: () => this.conversations.forRun({ runId: run.runId, platform: run.platform, project: run.project, ticket: run.ticket }),
        commentOnTicket: async (body) => {
          if (run.ticket === null) return;
          const tracker = this.trackers.forProject(run.project, run.platform);
          if ('unconfigured' in tracker) throw new Error(`the ticket cannot be commented on: ${tracker.unconfigured}`);
          await tracker.client.postComment(run.ticket, body);
        },
        ticketText: async () => {
          if (run.ticket === null) return null;
          const tracker = this.trackers.forProject(run.project, run.platform);
          if ('unconfigured' in tracker) throw new Error(`the ticket cannot be read: ${tracker.unconfigured}`);
          return readTicketText(tracker.client, run.ticket);
        },
      },
    });
  }
}
