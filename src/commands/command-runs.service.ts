import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import type { ProjectConfig, RepoConfig } from '../config/service-config.js';
import { AnswerSource } from '../conversations/run-conversation.js';
import { HandBackAnswers } from '../conversations/hand-back/hand-back-answers.service.js';
import { DatabaseService } from '../database/database.service.js';
import { TicketState } from '../database/entities/ticket.entity.js';
import { REWORK_PIPELINE, builtInHas } from '../pipelines/built-in-pipelines.js';
import { PullRequestRunsService } from '../runs/pull-request-runs.service.js';
import { RunRecordsService } from '../runs/run-records.service.js';
import { StoreUnavailableError } from '../store/lock.service.js';
import { ClaimService } from '../tickets/claim.service.js';
import type { TicketKey } from '../tickets/ticket-key.js';
import { TicketLifecycleService } from '../tickets/ticket-lifecycle.service.js';
import { gitCredentialFor } from '../workspaces/git/git-credential.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import { type ActDecision, decided } from './act-decision.js';
import { missingOnBranch } from './branch-contexts.js';
import { neverFits, waitsForCapacity } from './capacity-outlook.js';
import { CommandReceiptsService } from './command-receipts.service.js';
import { CommandReplier } from './command-replier.service.js';
import { reply } from './command-replies.js';
import type { PullRequestFacts } from './pull-request-facts.service.js';
import { repositoryKey } from './repository-key.js';

/** The act being answered: where it happened and who did it. */
export interface ActSite {
  project: ProjectConfig;
  repo: RepoConfig;
  number: number;
  /** The act's identity on the host (`comment:<id>`, `review:<id>`, …): its reply marker and receipt. */
  actId: string;
  /** Who acted, as the host names them (for attribution). */
  by: string;
}

/**
 * What a recognised and permitted act starts, and the answer on its pull request (spec rule 4):
 * a ticket's run claimed like any trigger, a run against the pull request itself, or the rework
 * of a service pull request's ticket (resuming a hand-back when the ticket waits for an answer).
 * A claim that failed for the service's own reasons forgets the act's receipt, so the host's
 * redelivery tries again; a missing store throws StoreUnavailableError (503, redelivered).
 */
@Injectable()
export class CommandRunsService {
  private readonly logger = new Logger('PullRequestCommands');

  constructor(
    private readonly config: ConfigService,
    private readonly db: DatabaseService,
    private readonly claims: ClaimService,
    private readonly lifecycle: TicketLifecycleService,
    private readonly records: RunRecordsService,
    private readonly pullRequestRuns: PullRequestRunsService,
    private readonly answers: HandBackAnswers,
    private readonly workspaces: WorkspacesService,
    private readonly receipts: CommandReceiptsService,
    private readonly replier: CommandReplier,
  ) {}

  /** A command naming a ticket: claimed like any trigger of it. */
  async claimTicket(site: ActSite, ticket: string, pipeline: string, instructions: string | null): Promise<ActDecision> {
    const key = this.keyOf(site, ticket);
    const subject = `ticket \`${ticket}\``;
    if (neverFits(this.config.config, site.project.name)) return this.refuse(site, 'CapacityExceeded', `a run of project ${site.project.name} needs more than the whole capacity`, ticket);
    const claim = await this.claims.claim(key, pipeline, { instructions });
    switch (claim.outcome) {
      case 'Claimed': {
        const queued = await this.waits(claim.runId, site);
        this.replier.post(site.repo, site.number, site.actId, queued ? reply.queued(pipeline, subject, claim.runId) : reply.started(pipeline, subject, claim.runId));
        return decided.claimed(ticket, site.project.name, `${pipeline} by command of ${site.by}${queued ? ' (queued for capacity)' : ''}`, ticket);
      }
      case 'AlreadyClaimed': {
        const live = await this.liveRun(key);
        this.replier.post(site.repo, site.number, site.actId, reply.busy(subject, live));
        return decided.alreadyClaimed(ticket, live ? `run ${live} is live on the ticket` : 'claim lock held', ticket);
      }
      case 'Failed':
        return this.failed(site, claim.error, ticket);
    }
  }

  /**
   * A command without a ticket: a run against the pull request, after checking that every
   * context on its branch has both files (spec rule 5; not for forks, and the run starts when
   * the host cannot say).
   */
  async startOnPullRequest(site: ActSite, pull: PullRequestFacts | null, pipeline: string, instructions: string | null): Promise<ActDecision> {
    const subject = `pull request #${site.number}`;
    if (builtInHas(pipeline, 'writesCode')) {
      return this.refuse(site, 'TicketRequired', `\`${pipeline}\` works on a ticket and proposes its work on the ticket's own branch: name the ticket (\`/sa ${pipeline} <ticket>\`)`);
    }
    if (pull?.sameRepository) {
      const missing = await this.missingContexts(site.repo, pull.head);
      if (missing !== null && missing.length > 0) {
        this.replier.post(site.repo, site.number, site.actId, reply.missingContexts(pull.head, missing, site.project.name));
        return decided.rejected('MissingContextFiles', `branch ${pull.head} lacks ${missing.map((m) => `${m.context}/{${m.files.join(',')}}`).join(', ')}`);
      }
    }
    if (neverFits(this.config.config, site.project.name)) return this.refuse(site, 'CapacityExceeded', `a run of project ${site.project.name} needs more than the whole capacity`);
    const started = await this.pullRequestRuns.start({
      platform: site.repo.platform, project: site.project.name, target: { repo: site.repo.name, number: site.number }, pipeline, instructions,
    });
    const label = `${site.repo.name}#${site.number}`;
    switch (started.outcome) {
      case 'Claimed': {
        const queued = await this.waits(started.runId, site);
        this.replier.post(site.repo, site.number, site.actId, queued ? reply.queued(pipeline, subject, started.runId) : reply.started(pipeline, subject, started.runId));
        return decided.claimed(label, site.project.name, `${pipeline} of ${label} by command of ${site.by}${queued ? ' (queued for capacity)' : ''}`);
      }
      case 'AlreadyClaimed':
        this.replier.post(site.repo, site.number, site.actId, reply.busy(`\`${pipeline}\` of ${subject}`, null));
        return decided.alreadyClaimed(label, `a ${pipeline} run of ${label} is live`);
      case 'Failed':
        return this.failed(site, started.error);
    }
  }

  /**
   * The rework of a service pull request's ticket (spec "Rework" rules 2–3): a ticket waiting on
   * an answer is resumed by it; otherwise `code` is claimed again, and while a run works on the
   * ticket the act is not picked up and the pull request says so.
   */
  async rework(site: ActSite, ticket: string, instructions: string | null): Promise<ActDecision> {
    const key = this.keyOf(site, ticket);
    if ((await this.lifecycle.find(key))?.state === TicketState.Parked) {
      const text = instructions ?? `(answered on pull request #${site.number} of ${site.repo.name}: see its comments)`;
      const answered = await this.answers.answerTicket(key, text, site.by, AnswerSource.PullRequest);
      switch (answered.outcome) {
        case 'resumed':
          this.replier.post(site.repo, site.number, site.actId, reply.resumed(ticket, answered.run.id));
          return decided.claimed(ticket, site.project.name, `answer to run ${answered.parkedRunId} by ${site.by}: rework`, ticket);
        case 'unavailable':
          throw new StoreUnavailableError(answered.reason);
        case 'conflict':
          if (answered.cause === 'not-implementable') {
            this.replier.post(site.repo, site.number, site.actId, reply.notImplementable(ticket));
            return decided.rejected('AnswerRefused', answered.reason, ticket);
          }
          break; // answered or retried a moment ago: claim like any rework
        case 'not-found':
        case 'not-parked':
          break; // answered or retried a moment ago: claim like any rework
      }
    }
    const claim = await this.claims.claim(key, REWORK_PIPELINE, { instructions });
    switch (claim.outcome) {
      case 'Claimed': {
        const queued = await this.waits(claim.runId, site);
        this.replier.post(site.repo, site.number, site.actId, reply.reworkStarted(ticket, claim.runId, queued));
        return decided.claimed(ticket, site.project.name, `rework by ${site.by}${queued ? ' (queued for capacity)' : ''}`, ticket);
      }
      case 'AlreadyClaimed': {
        const live = await this.liveRun(key);
        this.replier.post(site.repo, site.number, site.actId, reply.reviewNotPickedUp(ticket, live));
        return decided.alreadyClaimed(ticket, `review not picked up: ${live ? `run ${live}` : 'a run'} works on the ticket`, ticket);
      }
      case 'Failed':
        return this.failed(site, claim.error, ticket);
    }
  }

  /** A refusal told on the pull request and in the trigger log. */
  refuse(site: ActSite, code: string, why: string, ticket?: string): ActDecision {
    this.replier.post(site.repo, site.number, site.actId, reply.refused(why));
    return decided.rejected(code, why, ticket);
  }

  private keyOf(site: ActSite, ticket: string): TicketKey {
    return { platform: site.project.tracker, project: site.project.name, ticket };
  }

  private async failed(site: ActSite, error: string, ticket?: string): Promise<ActDecision> {
    // The host redelivers a 500: that delivery must find the act unread.
    await this.receipts.forget(site.repo.platform, repositoryKey(site.repo), site.actId).catch(() => undefined);
    this.logger.error(`${site.actId} on ${site.repo.name}#${site.number}: claim failed: ${error}`);
    return decided.failed(error, ticket);
  }

  private async waits(runId: string, site: ActSite): Promise<boolean> {
    return waitsForCapacity(this.db, this.config.config, runId, site.project.name).catch(() => false);
  }

  private async liveRun(key: TicketKey): Promise<string | null> {
    return (await this.records.liveRunOf(key.platform, key.project, key.ticket).catch(() => null))?.id ?? null;
  }

  /** Missing context files on `branch`, or null when the host cannot say (branch gone, host silent). */
  private async missingContexts(repo: RepoConfig, branch: string) {
    const credential = gitCredentialFor(repo);
    if (!credential) return null;
    try {
      const paths = await this.workspaces.repositories.contextPathsOn({ repo, credential }, branch);
      return paths === null ? null : missingOnBranch(paths);
    } catch (error) {
      this.logger.warn(`contexts of ${repo.name} branch ${branch} could not be read (${(error as Error).message}); the run's own gate decides`);
      return null;
    }
  }
}
