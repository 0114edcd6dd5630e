import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import type { ProjectConfig, RepoConfig } from '../config/service-config.js';
import { isRequestedChangesNote } from '../conversations/rework/requested-changes-note.js';
import { ReviewVoteMemory } from '../conversations/rework/review-vote-memory.service.js';
import type {
  Actor, PullRequestCommentEvent, PullRequestEvent, PullRequestLabeledEvent, PullRequestRef, PullRequestReviewEvent, PullRequestReviewVoteEvent,
} from '../platforms/inbound-event.js';
import { REWORK_PIPELINE } from '../pipelines/built-in-pipelines.js';
import { platformOf } from '../platforms/platform-registry.js';
import { StoreUnavailableError } from '../store/lock.service.js';
import { repositoryUrlKey } from '../webhooks/repository-url.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import { WriteAccessService } from '../write-access/write-access.service.js';
import { type ActDecision, decided } from './act-decision.js';
import { type ActSite, CommandRunsService } from './command-runs.service.js';
import { COMMAND_PIPELINES, type CommandRequest, commandText, parseCommand } from './command-text.js';
import { CommandInterpreter } from './command-interpreter.service.js';
import { CommandReceiptsService } from './command-receipts.service.js';
import { CommandReplier } from './command-replier.service.js';
import { reply } from './command-replies.js';
import { repositoryKey } from './repository-key.js';
import { type PullRequestFacts, PullRequestFactsService, serviceTicketOf } from './pull-request-facts.service.js';

type ActEvent = Exclude<PullRequestEvent, { kind: 'pr-labeled' }>;
type ReviewActEvent = ActEvent | PullRequestLabeledEvent;

/**
 * What people do on pull requests (spec "Pull-request commands and labels", "Who may issue
 * commands", "Rework on a service pull request"), in the order the spec fixes: recognise the act
 * (a command prefix, Request changes, Wait for author, GitLab's requested-changes note), drop the
 * service's own notes and acts already read, establish the author's write access — before
 * anything could hand the text to a model — and only then start something and say so on the
 * pull request. Every refusal is answered there (except `help` and ignored text) and logged.
 */
@Injectable()
export class PullRequestActsService {
  private readonly logger = new Logger('PullRequestCommands');

  constructor(
    private readonly config: ConfigService,
    private readonly facts: PullRequestFactsService,
    private readonly receipts: CommandReceiptsService,
    private readonly writeAccess: WriteAccessService,
    private readonly runs: CommandRunsService,
    private readonly replier: CommandReplier,
    private readonly votes: ReviewVoteMemory,
    private readonly workspaces: WorkspacesService,
    private readonly interpreter: CommandInterpreter,
  ) {}

  async handle(event: ActEvent, projectName: string | null): Promise<ActDecision> {
    const project = projectName ? this.config.config.projects[projectName] ?? null : null;
    try {
      switch (event.kind) {
        case 'pr-comment':
          return event.comment.system ? await this.systemNote(event, project) : await this.comment(event, project);
        case 'pr-review':
          return await this.review(event, project);
        case 'pr-review-vote':
          return await this.vote(event, project);
      }
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      const message = (error as Error).message;
      this.logger.error(`${event.kind} on #${event.pullRequest.number} failed: ${(error as Error).stack ?? message}`);
      return decided.failed(message);
    }
  }

  private async comment(event: PullRequestCommentEvent, project: ProjectConfig | null): Promise<ActDecision> {
    const text = commandText(event.comment.body);
    if (text === null) return decided.filtered('not a command: comments on a pull request start nothing by themselves');
    if (project === null) return decided.rejected('UnknownProject', 'no project declares this repository');
    const request = parseCommand(text, project.tracker, Object.keys(this.config.config.pipelines));
    if (request.kind === 'help') {
      this.logger.log(`help asked on #${event.pullRequest.number} by ${event.comment.author.login ?? 'someone'}; nothing is posted`);
      return decided.filtered('help: recognised, nothing is posted');
    }
    if (request.kind === 'other') return decided.filtered(`pipeline ${request.name} cannot be started by a comment (only ${COMMAND_PIPELINES.join(', ')})`);
    const repo = this.repositoryOf(project, event);
    if (repo === null) return decided.rejected('UndeclaredRepository', `the pull request's repository is not declared in project ${project.name}`);
    if (await this.facts.isOwnNote(repo, event.comment.body, event.comment.author.login)) return decided.filtered("the service's own note");
    const actId = `comment:${event.comment.id ?? event.deliveryId ?? 'unknown'}`;
    if (!(await this.receipts.firstRead(repo.platform, repositoryKey(repo), actId))) return decided.duplicate(`${actId} already read`);
    return this.forgetIfStoreAway(repo, actId, async () => {
      const pull = await this.facts.read(repo, event.pullRequest);
      const serviceTicket = pull ? serviceTicketOf(pull) : null;
      if (request.kind === 'bare' && serviceTicket === null) return decided.filtered('a bare command outside a service pull request asks for nothing');
      const site: ActSite = { project, repo, number: event.pullRequest.number, actId, by: nameOf(event.comment.author) };
      const refused = await this.refusedAccess(site, event.comment.author, event.comment.authorAssociation);
      if (refused) return refused;
      if (serviceTicket !== null) {
        if (pull?.author && sameAccount(pull.author, event.comment.author)) return decided.filtered("the pull request's author is not a reviewer");
        const rework = request.kind === 'bare' ? { instructions: request.instructions }
          : request.kind === 'free' ? { instructions: request.text }
          : request.pipeline === REWORK_PIPELINE && (request.ticket === null || request.ticket === serviceTicket) ? { instructions: request.instructions } : null;
        if (rework) return this.runs.rework(site, serviceTicket, rework.instructions);
      }
      if (!project.pr_commands.enabled) return this.runs.refuse(site, 'CommandsDisabled', `pull-request commands are not enabled for project ${project.name} (pr_commands.enabled)`);
      const resolved = await this.resolve(project, request);
      if ('why' in resolved) return this.runs.refuse(site, 'UnresolvedCommand', resolved.why);
      const allowed = project.pr_commands.allowed_pipelines ?? COMMAND_PIPELINES;
      if (!allowed.includes(resolved.pipeline)) {
        return this.runs.refuse(site, 'PipelineNotAllowed', `project ${project.name} allows comments to start only ${allowed.length > 0 ? allowed.map((p) => `\`${p}\``).join(', ') : 'nothing'} (pr_commands.allowed_pipelines)`, resolved.ticket ?? undefined);
      }
      return resolved.ticket !== null
        ? this.runs.claimTicket(site, resolved.ticket, resolved.pipeline, resolved.instructions)
        : this.runs.startOnPullRequest(site, pull, resolved.pipeline, resolved.instructions);
    });
  }

  /**
   * The pipeline and ticket a command asks for: read by the grammar, or (free text) by the
   * project's model; a bare command on a pull request the service did not open never gets here.
   */
  private async resolve(project: ProjectConfig, request: Extract<CommandRequest, { kind: 'run' | 'free' | 'bare' }>):
    Promise<{ pipeline: string; ticket: string | null; instructions: string | null } | { why: string }> {
    if (request.kind === 'run') return request;
    const usage = `write \`/sa <${COMMAND_PIPELINES.join('|')}> [ticket]\``;
    if (request.kind === 'bare') return { why: `the command names no pipeline: ${usage}` };
    if (!this.interpreter.canInterpret(project)) return { why: `the command names no pipeline and project ${project.name} has no model to read free text: ${usage}` };
    const read = await this.interpreter.interpret(project, request.text);
    if (read.pipeline === null) return { why: `${read.why}: ${usage}` };
    return { pipeline: read.pipeline, ticket: read.ticket, instructions: request.text };
  }

  /** GitHub `pull_request_review` submitted: Request changes on a service pull request starts a rework. */
  private async review(event: PullRequestReviewEvent, project: ProjectConfig | null): Promise<ActDecision> {
    if (event.review.state !== 'changes_requested') return decided.filtered(`review ${event.review.state}: only Request changes starts a rework`);
    return this.reviewAct(event, project, `review:${event.review.id ?? event.deliveryId ?? 'unknown'}`, event.review.reviewer, event.review.authorAssociation, event.review.body);
  }

  /** Azure DevOps review-vote delivery: a reviewer whose vote turned to Wait for author. */
  private async vote(event: PullRequestReviewVoteEvent, project: ProjectConfig | null): Promise<ActDecision> {
    // Every vote delivery of a declared repository is remembered (a reset included: only a change is sent).
    const repo = project === null ? null : this.repositoryOf(project, event);
    if (project === null || repo === null) return decided.filtered('a review vote on a repository no project declares');
    const author = event.pullRequest.author;
    const changed = (await this.votes.changedToWaitForAuthor(event.platform, repositoryKey(repo), event.pullRequest.number, event.reviewers))
      .filter((v) => !v.isContainer && !(author && sameAccount(author.login, v.reviewer)));
    const voter = changed[0];
    if (!voter) return decided.filtered('no reviewer changed their vote to Wait for author');
    const actId = `vote:${event.pullRequest.number}:${voter.reviewer.id ?? voter.reviewer.login ?? 'unknown'}:${event.deliveryId ?? Date.now()}`;
    return this.reviewAct(event, project, actId, voter.reviewer, null, null);
  }

  /** GitLab's own requested-changes system note on a service merge request (19.3+). */
  private async systemNote(event: PullRequestCommentEvent, project: ProjectConfig | null): Promise<ActDecision> {
    if (!isRequestedChangesNote(event.comment.body)) return decided.filtered('a system note other than a request for changes');
    if (project !== null) {
      const repo = this.repositoryOf(project, event);
      const username = event.comment.author.login;
      const conversations = repo ? this.workspaces.conversationsFor(repo) : null;
      if (conversations?.reviewerState && username) {
        const state = await conversations.reviewerState(event.pullRequest.number, username).catch(() => null);
        if (state === 'approved') return decided.filtered(`the request for changes was withdrawn: ${username} approved since`);
      }
    }
    return this.reviewAct(event, project, `note:${event.comment.id ?? event.deliveryId ?? 'unknown'}`, event.comment.author, null, null);
  }

  /**
   * GitLab 19.3+: a merge-request update on a service merge request may carry a reviewer's
   * Request changes. The act and its time are the host's own requested-changes system note, read
   * through the API: each such note not read before, by a reviewer other than the author whose
   * state still says `requested_changes` (an approval since withdraws it), is one rework act.
   * Null when the update is nothing of the kind (the label trigger's answer stands).
   */
  async mergeRequestUpdate(event: PullRequestLabeledEvent, projectName: string | null): Promise<ActDecision | null> {
    const project = projectName ? this.config.config.projects[projectName] ?? null : null;
    if (!platformOf(event.platform)?.codeHost?.updatesCarryChangeRequests || project === null) return null;
    const repo = this.repositoryOf(project, event);
    const ref = event.pullRequest;
    if (repo === null || ref.headBranch === null || ref.sameRepository === null) return null;
    if (serviceTicketOf({ head: ref.headBranch, sameRepository: ref.sameRepository }) === null) return null;
    const conversations = this.workspaces.conversationsFor(repo);
    try {
      const author = (await this.pullRequestOf(repo, ref))?.author ?? null;
      const requests = (await conversations.discussion(ref.number))
        .filter((item) => item.system && item.author !== null && isRequestedChangesNote(item.body) && !(author && item.author.toLowerCase() === author.toLowerCase()));
      for (const note of requests) {
        if (conversations.reviewerState && (await conversations.reviewerState(ref.number, note.author!)) !== 'requested_changes') continue;
        const decision = await this.reviewAct(event, project, `note:${note.id}`, { login: note.author, id: null, displayName: null }, null, null);
        if (decision.outcome !== 'duplicate') return decision;
      }
      return requests.length > 0 ? decided.filtered('no new request for changes on the service merge request') : null;
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      this.logger.warn(`the requests for changes on ${repo.name}!${ref.number} could not be read: ${(error as Error).message}`);
      return null;
    }
  }

  /** The review acts' shared rules: a service pull request, not its author, read once, write access, then the rework. */
  private async reviewAct(event: ReviewActEvent, project: ProjectConfig | null, actId: string, reviewer: Actor, association: string | null, body: string | null): Promise<ActDecision> {
    if (project === null) return decided.rejected('UnknownProject', 'no project declares this repository');
    const repo = this.repositoryOf(project, event);
    if (repo === null) return decided.rejected('UndeclaredRepository', `the pull request's repository is not declared in project ${project.name}`);
    const ref = event.pullRequest;
    const pull = await this.pullRequestOf(repo, ref);
    const ticket = pull ? serviceTicketOf(pull) : null;
    if (ticket === null) return decided.filtered('a review act on a pull request the service did not open starts nothing');
    if (pull?.author && sameAccount(pull.author, reviewer)) return decided.filtered("the pull request's author is not a reviewer");
    if (body !== null && (await this.facts.isOwnNote(repo, body, reviewer.login))) return decided.filtered("the service's own review");
    if (!(await this.receipts.firstRead(repo.platform, repositoryKey(repo), actId))) return decided.duplicate(`${actId} already read`);
    return this.forgetIfStoreAway(repo, actId, async () => {
      const site: ActSite = { project, repo, number: ref.number, actId, by: nameOf(reviewer) };
      const refused = await this.refusedAccess(site, reviewer, association);
      if (refused) return refused;
      return this.runs.rework(site, ticket, body?.trim() ? body.trim() : null);
    });
  }

  /** The pull request from the payload when it names head, fork and author (GitHub reviews), else from the host. */
  private async pullRequestOf(repo: RepoConfig, ref: PullRequestRef): Promise<PullRequestFacts | null> {
    if (ref.headBranch !== null && ref.sameRepository !== null && ref.author?.login) {
      return { number: ref.number, head: ref.headBranch, sameRepository: ref.sameRepository, author: ref.author.login, open: true };
    }
    return this.facts.read(repo, ref);
  }

  /** Null when `author` may act; else the refusal, told on the pull request. */
  private async refusedAccess(site: ActSite, author: Actor, association: string | null): Promise<ActDecision | null> {
    const verdict = await this.writeAccess.check({ platform: site.repo.platform, project: site.project.name, repo: site.repo, author, authorAssociation: association });
    if (verdict.granted) return null;
    this.replier.post(site.repo, site.number, site.actId, reply.noWriteAccess(site.by, verdict.reason));
    return decided.rejected('NoWriteAccess', `${site.by}: ${verdict.reason}`);
  }

  /** The store went away mid-act: the host redelivers the 503, and that delivery must find the act unread. */
  private async forgetIfStoreAway(repo: RepoConfig, actId: string, work: () => Promise<ActDecision>): Promise<ActDecision> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        await this.receipts.forget(repo.platform, repositoryKey(repo), actId).catch(() => undefined);
        return decided.storeUnavailable();
      }
      throw error;
    }
  }

  private repositoryOf(project: ProjectConfig, event: ReviewActEvent): RepoConfig | null {
    const key = event.route.repositoryUrl === undefined ? null : repositoryUrlKey(event.route.repositoryUrl);
    if (key === null) return null;
    return project.repos.find((r) => r.platform === event.platform && repositoryUrlKey(r.url) === key) ?? null;
  }
}

function nameOf(actor: Actor): string {
  return actor.login ?? actor.displayName ?? actor.id ?? 'someone';
}

function sameAccount(login: string | null, actor: Actor): boolean {
  return login !== null && actor.login !== null && login.toLowerCase() === actor.login.toLowerCase();
}


