import { readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { builtInHas } from '../pipelines/built-in-pipelines.js';
import { ConfigService } from '../config/config.service.js';
import { PublishMode, type RepoConfig } from '../config/service-config.js';
import type { PipelineWorkspace, RunEventSink } from '../pipelines/pipeline.js';
import type { Platform } from '../platforms/platform.js';
import type { PullRequestHost } from '../platforms/pull-request-host.js';
import { pullRequestConversationsFor, pullRequestHostFor, pullRequestReviewsFor } from '../platforms/pull-request-hosts.js';
import type { PullRequestConversations } from '../conversations/pull-request-conversations.js';
import type { PullRequestReviews } from '../platforms/pull-request-review.js';
import type { PullRequestTarget } from '../runs/pipeline-request.js';
import { ProjectTrackerFactory } from '../tickets/label-projection/project-tracker.factory.js';
import { collectSecrets } from '../common/secret-scrubber.js';
import { RepositoryWorkspaces } from './git/repository-workspaces.js';
import { PullRequestRecordsService } from './publishing/pull-request-records.service.js';
import { RunWorkspace } from './run-workspace.js';
import { WORKSPACE_OPTIONS, type WorkspaceOptions } from './workspace.options.js';
import { processLauncher } from '../common/launcher/process-launcher.js';

/** A scratch checkout lives from a run's last step to its push: one older than this was abandoned. */
const STALE_SCRATCH_MS = 6 * 60 * 60_000;

/** What a run is, as far as its repositories are concerned. */
export interface WorkspaceRun {
  runId: string;
  platform: Platform;
  project: string;
  ticket: string | null;
  pipeline: string;
  target?: PullRequestTarget | null;
}

/**
 * Gives each run its repositories (RunWorkspace): the git layer with its mirror cache under
 * `SERVICE_DATA_DIR`, the code hosts' pull-request APIs, the pull-request records and the
 * ticket's title from its tracker.
 */
@Injectable()
export class WorkspacesService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Workspaces');
  private readonly git: RepositoryWorkspaces;
  private readonly dataDir: string;

  constructor(
    private readonly config: ConfigService,
    private readonly records: PullRequestRecordsService,
    private readonly trackers: ProjectTrackerFactory,
    @Inject(WORKSPACE_OPTIONS) private readonly options: WorkspaceOptions,
  ) {
    this.dataDir = resolve(config.env.dataDir);
    this.git = new RepositoryWorkspaces({ dataDir: this.dataDir });
  }

  /**
   * Scratch checkouts left by a process killed mid-run are removed; the mirrors stay. Only old
   * ones: another replica sharing the data directory may be publishing from its own right now.
   */
  async onModuleInit(): Promise<void> {
    processLauncher.reportUnavailableTo((message) => this.logger.warn(message));
    const root = join(this.dataDir, 'workspaces');
    const names = await readdir(root).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const path = join(root, name);
      try {
        if (Date.now() - (await stat(path)).mtimeMs < STALE_SCRATCH_MS) continue;
        await rm(path, { recursive: true, force: true });
        removed++;
      } catch (error) {
        this.logger.warn(`could not remove the old scratch checkout ${name}: ${(error as Error).message}`);
      }
    }
    if (removed > 0) this.logger.log(`removed ${removed} scratch checkout(s) left by an earlier process`);
  }

  /** A stop waits for the scratch repositories runs left to be removed behind their end. */
  async onModuleDestroy(): Promise<void> {
    await this.git.settled();
  }

  /** The server's git side (mirror cache, scratch repositories): shared with project initialisation. */
  get repositories(): RepositoryWorkspaces {
    return this.git;
  }

  /** The pull-request host of a repository, with the module's HTTP behaviour. */
  hostFor(repo: RepoConfig): PullRequestHost {
    return pullRequestHostFor(repo, this.options.http);
  }

  /** The review side of a repository's host (pull-request runs, `pr-review`), with the module's HTTP behaviour. */
  reviewsFor(repo: RepoConfig): PullRequestReviews {
    return pullRequestReviewsFor(repo, this.options.http);
  }

  /** A repository host's conversations (commands, rework), with the module's HTTP behaviour. */
  conversationsFor(repo: RepoConfig): PullRequestConversations {
    return pullRequestConversationsFor(repo, this.options.http);
  }

  /** The run's workspace, or undefined when its project declares no repositories. */
  forRun(run: WorkspaceRun, events: RunEventSink): PipelineWorkspace | undefined {
    const { config } = this.config;
    const project = config.projects[run.project];
    if (!project || project.repos.length === 0) return undefined;
    return new RunWorkspace(
      {
        git: this.git,
        hostFor: (repo: RepoConfig) => this.hostFor(repo),
        reviewsFor: (repo: RepoConfig) => this.reviewsFor(repo),
        record: (input) => this.records.record(input),
        openForTicket: (project, ticket) => this.records.openForTicket(project, ticket),
        ticketFacts: () => this.ticketFacts(run),
        identity: config.git,
        secrets: collectSecrets(config, this.config.env),
      },
      { runId: run.runId, project: run.project, ticket: run.ticket, pipeline: run.pipeline, publishes: this.publishes(run.pipeline), requiresChange: builtInHas(run.pipeline, 'writesCode'),
        target: run.target ?? null, onTicketPullRequests: builtInHas(run.pipeline, 'reviewsTicketPullRequests'), events },
    );
  }

  /** A built-in that writes code proposes its work; a command pipeline does when it says `publish: pull-request`. */
  private publishes(pipeline: string): boolean {
    if (builtInHas(pipeline, 'writesCode')) return true;
    return this.config.config.pipelines[pipeline]?.publish === PublishMode.PullRequest;
  }

  private async ticketFacts(run: WorkspaceRun): Promise<{ title: string | null; url: string | null }> {
    if (run.ticket === null) return { title: null, url: null };
    const tracker = this.trackers.forProject(run.project, run.platform);
    if ('unconfigured' in tracker) return { title: null, url: null };
    const ticket = await tracker.client.readTicket(run.ticket);
    return { title: ticket.title, url: ticket.url };
  }
}
