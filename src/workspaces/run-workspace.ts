import type { GitConfig, RepoConfig } from '../config/service-config.js';
import type { PipelineWorkspace, PreparedSandbox, RunEventSink, RunSandbox, StepResult } from '../pipelines/pipeline.js';
import { RunEventKind } from '../pipelines/run-event-kind.js';
import type { PullRequestHost, PullRequestRef } from '../platforms/pull-request-host.js';
import type { PullRequestReviews, PullRequestState } from '../platforms/pull-request-review.js';
import type { PullRequestTarget } from '../runs/pipeline-request.js';
import type { Sandbox } from '../sandbox/sandbox-backend.js';
import { inSpan } from '../tracing/spans.js';
import { gitCredentialFor } from './git/git-credential.js';
import type { RepositoryWorkspaces } from './git/repository-workspaces.js';
import type { HeadRefs } from './git/mirror-cache.js';
import type { PreparedTree, StagedChange, WorkspaceSource } from './git/workspace-types.js';
import { describeRepositoryFailure } from './publishing/publish-errors.js';
import { type CriterionLine, type PublishedPullRequest, type RunFacts, commitMessage, pullRequestBody, titleOf, wipCommitMessage } from './publishing/publication-texts.js';
import type { PullRequestRecord } from './publishing/pull-request-records.service.js';
import { describeFindings, scanForSecrets, scanPathsForSecrets } from './publishing/secret-scan.js';
import { workBranchName } from './work-branch.js';

/** What a run's workspace needs from the server (WorkspacesService supplies it). */
export interface RunWorkspaceDeps {
  git: RepositoryWorkspaces;
  hostFor(repo: RepoConfig): PullRequestHost;
  /** The host's review side (pull-request runs read their pull request through it). */
  reviewsFor(repo: RepoConfig): PullRequestReviews;
  record(input: PullRequestRecord): Promise<void>;
  /** The ticket's open pull requests as recorded (every run's, every repository's). */
  openForTicket(project: string, ticket: string): Promise<PublishedPullRequest[]>;
  /** The ticket's title and web page (null fields when the tracker cannot be read). */
  ticketFacts(): Promise<{ title: string | null; url: string | null }>;
  identity: GitConfig;
  /** Every configured secret value: scanned for in changes, scrubbed from texts. */
  secrets: readonly string[];
}

export interface RunWorkspaceInput {
  runId: string;
  project: string;
  ticket: string | null;
  pipeline: string;
  /** The pipeline proposes its changes as pull requests (`publish: pull-request`, `code`). */
  publishes: boolean;
  /** A run that changes nothing (and resumes nothing) has failed its purpose (`code`). */
  requiresChange?: boolean;
  /** The pull request a ticket-less run works on: its repository only, its head as the tree. */
  target?: PullRequestTarget | null;
  /** A ticket run that works on the ticket's open pull requests (`pr-review`): the repositories that have one, each at its head. */
  onTicketPullRequests?: boolean;
  events: RunEventSink;
}

interface Tree {
  repo: RepoConfig;
  prepared: PreparedTree;
  baseBranch: string;
}

interface Change {
  tree: Tree;
  staged: StagedChange;
}

const fail = (error: string): StepResult => ({ ok: false, error });

/**
 * One run's repositories on the server side. Before the steps each sandbox receives its
 * repository's tree (the work branch `service/<ticket>` when the remote has it, else the base
 * branch). After the steps, for a publishing pipeline with a ticket: every changed repository
 * is scanned for secrets, committed on the work branch and pushed without force; on success its
 * pull request is found or created (a re-run updates the open one) and recorded, and the pull
 * requests of a multi-repository run are linked to each other; on failure the change is pushed
 * as a wip commit the next run resumes from. Credentials stay in the server: git gets them
 * through its environment, the hosts through their API clients.
 */
export class RunWorkspace implements PipelineWorkspace {
  private readonly trees = new Map<Sandbox, Tree>();
  private readonly scratch: (PreparedTree | StagedChange)[] = [];
  private readonly baseBranches = new Map<string, Promise<string>>();
  /** One fetch per repository per run: `imageFor` syncs the mirror, `prepare` uses what it answered. */
  private readonly synced = new Map<string, Promise<HeadRefs>>();
  /** The pull request each selected repository's tree is the head of (pull-request runs). */
  private readonly pulls = new Map<string, PullRequestState>();
  /** The ticket's acceptance criteria with their verdicts, listed in the pull requests' bodies. */
  private criteria: readonly CriterionLine[] = [];

  constructor(
    private readonly deps: RunWorkspaceDeps,
    private readonly run: RunWorkspaceInput,
  ) {}

  private get workBranch(): string | null {
    return this.run.ticket === null ? null : workBranchName(this.run.ticket);
  }

  /** The base branch: the repository's `branch:`, else the host's default (asked once per run). */
  private baseBranchOf(repo: RepoConfig): Promise<string> {
    let known = this.baseBranches.get(repo.name);
    if (!known) {
      known = repo.branch ? Promise.resolve(repo.branch) : this.deps.hostFor(repo).defaultBranch();
      this.baseBranches.set(repo.name, known);
    }
    return known;
  }

  private headsOf(source: WorkspaceSource): Promise<HeadRefs> {
    let heads = this.synced.get(source.repo.name);
    if (!heads) {
      heads = inSpan('workspace.sync', { attributes: repoAttribute(source.repo) }, () => this.deps.git.sync(source));
      this.synced.set(source.repo.name, heads);
      // A failed fetch is not remembered: prepare tries again and reports what it meets.
      heads.catch(() => this.synced.delete(source.repo.name));
    }
    return heads;
  }

  /**
   * The toolchain image the tree's contexts name (before its sandbox exists, so a container
   * backend can start from it), or null: none names one, or the tree cannot be read yet (prepare
   * then reports why).
   */
  async imageFor(repo: RepoConfig): Promise<string | null> {
    const credential = gitCredentialFor(repo);
    if (!credential) return null;
    try {
      const baseBranch = await this.baseBranchOf(repo);
      const source = { repo, credential, workBranch: this.workBranch ?? baseBranch, baseBranch };
      return await this.deps.git.contextImage(source, await this.headsOf(source));
    } catch {
      return null;
    }
  }

  async select(repos: readonly RepoConfig[]): Promise<{ ok: true; repos: RepoConfig[] } | { ok: false; error: string }> {
    const fail = (error: string) => ({ ok: false, error }) as const;
    const { target } = this.run;
    if (target) {
      const repo = repos.find((r) => r.name === target.repo);
      if (!repo) return fail(`repository ${target.repo} is no longer declared in project ${this.run.project}`);
      const read = await this.readPullRequest(repo, target.number);
      if ('error' in read) return fail(read.error);
      return { ok: true, repos: [repo] };
    }
    if (!this.run.onTicketPullRequests || this.workBranch === null) return { ok: true, repos: [...repos] };
    const selected: RepoConfig[] = [];
    const problems: string[] = [];
    for (const repo of repos) {
      try {
        const open = await this.deps.hostFor(repo).findOpen(this.workBranch, await this.baseBranchOf(repo));
        if (!open) continue;
        const read = await this.readPullRequest(repo, open.number);
        if ('error' in read) problems.push(read.error);
        else selected.push(repo);
      } catch (error) {
        problems.push(describeRepositoryFailure(repo.name, `finding the open pull request of ${this.workBranch}`, error));
      }
    }
    if (problems.length > 0) return fail(joinErrors(null, problems));
    if (selected.length === 0) {
      return fail(`ticket ${this.run.ticket} has no open pull request of branch ${this.workBranch} in any repository of project ${this.run.project}, so there is nothing to ${this.run.pipeline}`);
    }
    return { ok: true, repos: selected };
  }

  /** Reads an open pull request for the run (remembered for `prepare`), or says why it cannot be worked on. */
  private async readPullRequest(repo: RepoConfig, number: number): Promise<{ state: PullRequestState } | { error: string }> {
    let state: PullRequestState;
    try {
      state = await this.deps.reviewsFor(repo).read(number);
    } catch (error) {
      return { error: describeRepositoryFailure(repo.name, `reading pull request #${number}`, error) };
    }
    if (state.state !== 'open') return { error: `pull request #${number} of ${repo.name} is ${state.state}: there is nothing to ${this.run.pipeline}` };
    this.pulls.set(repo.name, state);
    return { state };
  }

  async prepare(repo: RepoConfig, sandbox: Sandbox): Promise<PreparedSandbox> {
    const credential = gitCredentialFor(repo);
    if (!credential) {
      return fail(`repository ${repo.name} has no auth_secret: the server cannot fetch its tree; set auth_secret for it in project ${this.run.project}`);
    }
    let baseBranch: string;
    try {
      baseBranch = await this.baseBranchOf(repo);
    } catch (error) {
      return fail(describeRepositoryFailure(repo.name, 'reading the default branch', error));
    }
    try {
      const source = { repo, credential, workBranch: this.workBranch ?? baseBranch, baseBranch };
      const heads = await this.headsOf(source);
      const pull = this.pulls.get(repo.name);
      const pinned = pull ? await this.pullRequestStart(source, heads, pull) : undefined;
      const prepared = await inSpan('workspace.tree', { attributes: repoAttribute(repo) }, () => this.deps.git.prepare(source, sandbox, heads, pinned, { collect: this.collects }));
      this.scratch.push(prepared);
      this.trees.set(sandbox, { repo, prepared, baseBranch });
      const from = prepared.resumed ? `work branch ${prepared.startBranch} (resuming the previous run's work)` : pull ? prepared.startBranch : `branch ${prepared.startBranch}`;
      this.run.events.emit(RunEventKind.Workspace, sandbox.name, `${repo.name}: tree of ${from} at ${prepared.commit.slice(0, 12)}`);
      return { ok: true, resumed: prepared.resumed, committed: this.deps.git.committedTree(repo, prepared.commit), ...(pull ? { pullRequest: pull } : {}) };
    } catch (error) {
      return fail(describeRepositoryFailure(repo.name, 'fetching the tree', error));
    }
  }

  /**
   * A pull request's head: the branch tip the sync brought when the head lives in this repository
   * and still is the commit the host named, else the ref the base repository keeps for it (a
   * fork's head, or a head pushed since the sync). A fork's tree is read like any other; nothing
   * is ever pushed for it.
   */
  private async pullRequestStart(source: WorkspaceSource, heads: HeadRefs, pull: PullRequestState): Promise<{ branch: string; commit: string }> {
    const label = `pull request #${pull.number} (${pull.sameRepository ? pull.head : `fork head ${pull.head}`})`;
    if (pull.sameRepository && heads.get(pull.head) === pull.headSha) return { branch: label, commit: pull.headSha };
    return { branch: label, commit: await this.deps.git.fetchRef(source, pull.fetchRef) };
  }

  /** Whether `finish` brings the trees back: a run that publishes, with a work branch. */
  private get collects(): boolean {
    return this.run.publishes && this.workBranch !== null;
  }

  async finish(result: StepResult, sandboxes: readonly RunSandbox[]): Promise<StepResult> {
    if (!this.collects) return result;
    const { changes, refusals } = await this.collect(sandboxes);
    let outcome = result;
    // A refusal after steps that succeeded is the publish's own failure: its wip commits say so.
    // A hand-back is dropped with it: the run fails (the question stays in its error) rather than
    // parking, since the refused work is not kept for the answer to resume from. Otherwise the
    // hand-back passes through pushWorkInProgress, which keeps the work like any failure's.
    if (refusals.length > 0) outcome = { ok: false, error: joinErrors(result.ok ? null : result.error, refusals), failedStep: result.ok ? 'publish (secret scan)' : result.failedStep };
    if (!outcome.ok) return this.pushWorkInProgress(outcome, changes);
    this.criteria = result.ok ? (result.criteria ?? []) : [];
    return this.publish(changes, result.ok ? (result.summary ?? '') : '');
  }

  async release(): Promise<void> {
    // Behind the run's end: the mirror's record of the pushed branch may still be reading them.
    for (const item of this.scratch.splice(0)) await this.deps.git.release(item, { behind: true });
  }

  /** Each sandbox's tree staged against where it started; a change adding a secret is refused. */
  private async collect(sandboxes: readonly RunSandbox[]): Promise<{ changes: Change[]; refusals: string[] }> {
    const changes: Change[] = [];
    const refusals: string[] = [];
    for (const { sandbox } of sandboxes) {
      const tree = this.trees.get(sandbox);
      if (!tree) continue;
      let staged: StagedChange | null;
      try {
        staged = await inSpan('workspace.collect', { attributes: repoAttribute(tree.repo) }, () => this.deps.git.collect(tree.prepared, sandbox));
      } catch (error) {
        refusals.push(describeRepositoryFailure(tree.repo.name, 'reading the changed tree', error));
        continue;
      }
      if (!staged) {
        this.run.events.emit(RunEventKind.Publish, sandbox.name, `${tree.repo.name}: no changes`);
        continue;
      }
      this.scratch.push(staged);
      const change = staged;
      const findings = await inSpan('workspace.secret_scan', { attributes: repoAttribute(tree.repo) }, async () => [
        ...scanPathsForSecrets(change.files.filter((f) => f.status !== 'deleted').map((f) => f.path), this.deps.secrets),
        ...await scanForSecrets(change.addedLines(), this.deps.secrets),
      ]);
      if (findings.length > 0) {
        const text = `repository ${tree.repo.name}: push refused: the change adds what looks like a secret in ${describeFindings(findings)}; remove it from the change (and rotate it if it is real), then run again`;
        this.run.events.emit(RunEventKind.Publish, sandbox.name, text);
        refusals.push(text);
        continue;
      }
      this.run.events.emit(RunEventKind.Publish, sandbox.name, `${tree.repo.name}: ${staged.files.length} file(s) changed`);
      changes.push({ tree, staged });
    }
    return { changes, refusals };
  }

  /** A failed run's changes, committed as `[wip]` and pushed to the work branch; the error says where. */
  private async pushWorkInProgress(result: StepResult & { ok: false }, changes: readonly Change[]): Promise<StepResult> {
    if (changes.length === 0) return result;
    const facts = this.facts(null);
    const pushed: string[] = [];
    const problems: string[] = [];
    for (const { tree, staged } of changes) {
      try {
        const sha = await this.commitAs(staged, wipCommitMessage(facts, result.failedStep ?? null));
        await this.deps.git.push(staged);
        pushed.push(tree.repo.name);
        this.run.events.emit(RunEventKind.Publish, tree.repo.name, `${tree.repo.name}: work in progress ${sha.slice(0, 12)} pushed to ${this.workBranch}`);
      } catch (error) {
        problems.push(describeRepositoryFailure(tree.repo.name, 'pushing the work in progress', error));
      }
    }
    const note = pushed.length > 0
      ? `work in progress was pushed to branch ${this.workBranch} of ${pushed.join(', ')}; the next run resumes from it`
      : null;
    return { ...result, error: joinErrors(result.error, [note, ...problems].filter((t): t is string => t !== null)) };
  }

  /**
   * Every changed repository is committed and pushed, then gets its pull request; a failure in one
   * does not stop the others (each is reported, and the run fails). The pull requests are then
   * linked to every other open pull request of the ticket, this run's and earlier runs'.
   */
  private async publish(changes: readonly Change[], summary: string): Promise<StepResult> {
    // A resumed tree the run left as it was still holds an earlier run's work: it is proposed too.
    const carried = [...this.trees.values()].filter((tree) => tree.prepared.resumed && !changes.some((c) => c.tree === tree));
    if (changes.length === 0 && carried.length === 0) {
      if (this.run.requiresChange) return fail(`the ${this.run.pipeline} run finished without changing any file, so there is nothing to propose`);
      return { ok: true, summary };
    }
    const facts = this.facts(await this.deps.ticketFacts().catch(() => ({ title: null, url: null })));
    const problems: string[] = [];
    const pushed: Change[] = [];
    for (const change of changes) {
      const name = change.tree.repo.name;
      try {
        const sha = await inSpan('workspace.commit', { attributes: repoAttribute(change.tree.repo) }, () => this.commitAs(change.staged, commitMessage(facts)));
        await inSpan('workspace.push', { attributes: repoAttribute(change.tree.repo) }, () => this.deps.git.push(change.staged));
        this.run.events.emit(RunEventKind.Publish, name, `${name}: ${sha.slice(0, 12)} pushed to ${this.workBranch}`);
        pushed.push(change);
      } catch (error) {
        problems.push(describeRepositoryFailure(name, `pushing to ${this.workBranch}`, error));
      }
    }
    const opened: { tree: Tree; pr: PullRequestRef }[] = [];
    for (const change of pushed) {
      try {
        opened.push({ tree: change.tree, pr: await inSpan('workspace.pull_request', { attributes: repoAttribute(change.tree.repo) }, () => this.openPullRequest(change.tree, facts, summary)) });
      } catch (error) {
        problems.push(describeRepositoryFailure(change.tree.repo.name, 'opening the pull request', error));
      }
    }
    for (const tree of carried) {
      try {
        const pr = await this.openPullRequest(tree, facts, summary);
        this.run.events.emit(RunEventKind.Publish, tree.repo.name, `${tree.repo.name}: no new change; ${this.workBranch} already holds earlier work, proposed as it is`);
        opened.push({ tree, pr });
      } catch (error) {
        problems.push(describeRepositoryFailure(tree.repo.name, 'opening the pull request', error));
      }
    }
    await this.link(opened, facts, summary);
    if (problems.length === 0) return { ok: true, summary };
    const unproposed = pushed.filter((change) => !opened.some((o) => o.tree === change.tree)).map((c) => c.tree.repo.name);
    const note = unproposed.length > 0 ? `the change is on branch ${this.workBranch} of ${unproposed.join(', ')} without a pull request; the next run resumes from it` : null;
    return fail(joinErrors(null, [...problems, ...(note ? [note] : [])]));
  }

  /** Lists, in each pull request this run opened or updated, the ticket's other open pull requests. */
  private async link(opened: readonly { tree: Tree; pr: PullRequestRef }[], facts: RunFacts, summary: string): Promise<void> {
    if (opened.length === 0 || this.run.ticket === null) return;
    let all: PublishedPullRequest[];
    try {
      all = await this.deps.openForTicket(this.run.project, this.run.ticket);
    } catch (error) {
      this.run.events.emit(RunEventKind.Publish, null, `the related pull requests could not be read, so they are not linked: ${(error as Error).message}`);
      return;
    }
    for (const { tree, pr } of opened) {
      const name = tree.repo.name;
      const related = all.filter((other) => other.repo !== name);
      if (related.length === 0) continue;
      try {
        await this.deps.hostFor(tree.repo).update(pr.number, { title: titleOf(facts), body: pullRequestBody(facts, summary, related, this.deps.secrets, this.criteria) });
      } catch (error) {
        // The pull requests exist and are recorded: a missing cross-link is reported, not fatal.
        this.run.events.emit(RunEventKind.Publish, name, describeRepositoryFailure(name, 'linking the related pull requests', error));
      }
    }
  }

  /** Finds the work branch's open pull request and updates it, or opens one; records it with the run. */
  private async openPullRequest(tree: Tree, facts: RunFacts, summary: string): Promise<PullRequestRef> {
    const host = this.deps.hostFor(tree.repo);
    const head = this.workBranch!;
    const draft = { head, base: tree.baseBranch, title: titleOf(facts), body: pullRequestBody(facts, summary, [], this.deps.secrets, this.criteria) };
    const existing = await host.findOpen(head, tree.baseBranch);
    let pr: PullRequestRef;
    let how: string;
    if (existing) {
      pr = await host.update(existing.number, { title: draft.title, body: draft.body });
      how = 'updated';
    } else {
      const created = await host.create(draft);
      pr = created.pullRequest;
      how = created.created ? 'opened' : 'found (opened meanwhile) and updated';
      if (!created.created) pr = await host.update(pr.number, { title: draft.title, body: draft.body });
    }
    await this.deps.record({ runId: this.run.runId, project: this.run.project, ticket: this.run.ticket, repo: tree.repo.name, pullRequest: pr });
    this.run.events.emit(RunEventKind.Publish, tree.repo.name, `${tree.repo.name}: pull request ${pr.url} ${how}`);
    return pr;
  }

  private commitAs(staged: StagedChange, message: string): Promise<string> {
    const { author_name: authorName, author_email: authorEmail } = this.deps.identity;
    return this.deps.git.commit(staged, { message, authorName, authorEmail });
  }

  private facts(ticket: { title: string | null; url: string | null } | null): RunFacts {
    return { runId: this.run.runId, pipeline: this.run.pipeline, ticket: this.run.ticket ?? '', title: ticket?.title ?? null, ticketUrl: ticket?.url ?? null };
  }
}

/** The repository's configured name: an identifier, like the other span attributes. */
function repoAttribute(repo: RepoConfig): { 'pipeline_service.repo': string } {
  return { 'pipeline_service.repo': repo.name };
}

function joinErrors(first: string | null, more: readonly string[]): string {
  return [first, ...more].filter((t): t is string => t !== null && t.length > 0).join('; ');
}
