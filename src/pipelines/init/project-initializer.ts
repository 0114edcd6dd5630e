import { randomUUID } from 'node:crypto';
import type { GitConfig, ProjectConfig, RepoConfig } from '../../config/service-config.js';
import { oneLine } from '../../agent/prompt/prompt-text.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import type { PullRequestHost, PullRequestRef } from '../../platforms/pull-request-host.js';
import type { Sandbox, SandboxBackend } from '../../sandbox/sandbox-backend.js';
import { gitCredentialFor } from '../../workspaces/git/git-credential.js';
import type { RepositoryWorkspaces } from '../../workspaces/git/repository-workspaces.js';
import { type ChangedFile, isRegularFileMode, type PreparedTree, type StagedChange, type StagedFile, type WorkspaceSource } from '../../workspaces/git/workspace-types.js';
import { describeRepositoryFailure } from '../../workspaces/publishing/publish-errors.js';
import { describeFindings, scanForSecrets, scanPathsForSecrets } from '../../workspaces/publishing/secret-scan.js';
import { contextFilePath } from '../contexts/context-files.js';
import { type ContextScan, scanContexts } from '../contexts/context-reader.js';
import { type MissingContextFiles, missingContextFiles, missingPaths, stillMissingIn } from '../contexts/missing-context-files.js';
import { writeSandboxFiles } from '../contexts/sandbox-files.js';
import type { ContextWriter } from './context-writer.js';
import { discardedParagraph, INIT_BRANCH, INIT_PULL_REQUEST_TITLE, initCommitMessage, initPullRequestBody, listedForPeople, paragraphOf } from './init-texts.js';
import { TemplateContextWriter } from './template-context.writer.js';

/** How initialisation ended for one repository. */
export const InitStatus = { Opened: 'opened', Updated: 'updated', Complete: 'complete', Failed: 'failed' } as const;
export type InitStatus = (typeof InitStatus)[keyof typeof InitStatus];

export interface InitRepositoryResult {
  repo: string;
  /** `opened`: a new pull request; `updated`: the open one of `service/init` was found (and brought up to date); `complete`: nothing missing, no pull request. */
  status: InitStatus;
  pullRequest?: { url: string; number: number };
  /** The files the pull request adds (those the base branch lacks); empty when complete. */
  files: string[];
  /**
   * What the writer changed besides the missing files, dropped from the pull request
   * (`path (status)`); absent when it changed nothing else.
   */
  discarded?: string[];
  error?: string;
}

/** What one write ended with: the body's `**How.**` sentence and the writer's other changes, dropped. */
interface Written {
  how: string;
  discarded: string[];
}

/** What initialisation needs of the server (ProjectInitService or the CLI supplies it). */
export interface ProjectInitializerDeps {
  git: RepositoryWorkspaces;
  backend: SandboxBackend;
  hostFor(repo: RepoConfig): PullRequestHost;
  writer: ContextWriter;
  identity: GitConfig;
  /** Every configured secret value: scanned for in the change, scrubbed from errors. */
  secrets: readonly string[];
  /** Progress, one line at a time (the CLI prints it, the server logs it). */
  log?(line: string): void;
}

/** Refusals of initialisation's own making (before or after the writer): their message is the result's error. */
class InitRefusal extends Error {}

/**
 * Project initialisation (contract "Contexts and the bootstrap gate"): for each repository of
 * the project, what its base branch lacks of `.service/contexts/<name>/{context.yaml,principles.md}`
 * is written by the ContextWriter into the tree of branch `service/init` (resumed when the remote
 * has it), committed, pushed without force and proposed in one pull request per repository
 * (found or created). Existing files are never overwritten: whatever else the writer changes (an
 * existing file, a path elsewhere, a link or a folder where a missing file belongs) is dropped,
 * the missing files it added as plain files are kept, the rest comes from the template, and the
 * pull request says what was dropped. Repositories are handled one after the other; one failing
 * does not stop the others.
 */
export class ProjectInitializer {
  /** Fills what a writer left unusable once its other changes are dropped (the docs' promise: every missing file is proposed). */
  private readonly template = new TemplateContextWriter();

  constructor(private readonly deps: ProjectInitializerDeps) {}

  async initialise(project: ProjectConfig): Promise<InitRepositoryResult[]> {
    const results: InitRepositoryResult[] = [];
    for (const repo of project.repos) {
      const result = await this.repository(project.name, repo).catch((error: unknown): InitRepositoryResult => ({
        repo: repo.name, status: InitStatus.Failed, files: [], error: describeRepositoryFailure(repo.name, 'project initialisation', error),
      }));
      if (result.error !== undefined) result.error = scrubSecrets(result.error, this.deps.secrets);
      this.log(`${repo.name}: ${result.status}${result.pullRequest ? ` ${result.pullRequest.url}` : ''}${result.error ? `: ${result.error}` : ''}`);
      results.push(result);
    }
    return results;
  }

  private async repository(project: string, repo: RepoConfig): Promise<InitRepositoryResult> {
    const failed = (error: string): InitRepositoryResult => ({ repo: repo.name, status: InitStatus.Failed, files: [], error });
    const credential = gitCredentialFor(repo);
    if (!credential) return failed(`repository ${repo.name} has no auth_secret: the server cannot fetch or push it; set auth_secret for it in project ${project}`);
    const host = this.deps.hostFor(repo);
    let baseBranch: string;
    try {
      baseBranch = repo.branch ?? await host.defaultBranch();
    } catch (error) {
      return failed(describeRepositoryFailure(repo.name, 'reading the default branch', error));
    }
    const source: WorkspaceSource = { repo, credential, workBranch: INIT_BRANCH, baseBranch };
    const scratch = new Scratch(this.deps, randomUUID(), repo.name);
    try {
      const sandbox = await scratch.sandbox();
      const prepared = await scratch.prepare(source, sandbox);
      const branchScan = await scanContexts(sandbox, repo.name);
      // What the base lacks decides; a resumed init branch may already carry some or all of it.
      const baseScan = prepared.resumed ? await this.scanBase(scratch, { ...source, workBranch: baseBranch }) : branchScan;
      const missing = this.missingOf(repo.name, baseScan);
      const files = missingPaths(missing);
      if (files.length === 0) {
        this.log(`${repo.name}: every context of ${baseBranch} has both files`);
        return { repo: repo.name, status: InitStatus.Complete, files: [] };
      }
      this.log(`${repo.name}: ${baseBranch} lacks ${files.join(', ')}${prepared.resumed ? ` (resuming ${INIT_BRANCH})` : ''}`);
      const toWrite = stillMissingIn(missing, branchScan);
      let written: Written | null = null;
      if (toWrite.contexts.length > 0) written = await this.writeAndPush(prepared, sandbox, toWrite, scratch);
      const { pullRequest, created } = await this.propose(host, project, baseBranch, files, written);
      return {
        repo: repo.name, status: created ? InitStatus.Opened : InitStatus.Updated, pullRequest: { url: pullRequest.url, number: pullRequest.number }, files,
        ...(written && written.discarded.length > 0 ? { discarded: written.discarded } : {}),
      };
    } catch (error) {
      if (error instanceof InitRefusal) return failed(error.message);
      return failed(describeRepositoryFailure(repo.name, 'project initialisation', error));
    } finally {
      await scratch.release();
    }
  }

  private missingOf(repo: string, scan: ContextScan): MissingContextFiles {
    try {
      return missingContextFiles(repo, scan);
    } catch (error) {
      throw new InitRefusal((error as Error).message);
    }
  }

  /** The base branch's contexts, read in a sandbox of their own. */
  private async scanBase(scratch: Scratch, source: WorkspaceSource): Promise<ContextScan> {
    const sandbox = await scratch.sandbox();
    await scratch.prepare(source, sandbox);
    return scanContexts(sandbox, source.repo.name);
  }

  /**
   * Lets the writer add the files; keeps of its change only the missing files it added as plain
   * files (anything else is dropped, in a clean tree when there is anything to drop); checks the
   * change adds exactly those; scans, commits and pushes.
   */
  private async writeAndPush(prepared: PreparedTree, sandbox: Sandbox, toWrite: MissingContextFiles, scratch: Scratch): Promise<Written> {
    const repo = prepared.source.repo;
    const { kind } = this.deps.writer;
    const expected = missingPaths(toWrite);
    const written = await this.deps.writer.write({ repo, sandbox }, toWrite);
    let staged = await scratch.collect(prepared, sandbox);
    const { kept, dropped } = await this.sortOut(staged, expected);
    let how = written.how;
    const discarded = dropped.map((f) => `${oneLine(f.path, this.deps.secrets, 200)} (${f.status})`);
    if (dropped.length > 0) {
      this.log(`${repo.name}: dropped what the ${kind} writer changed besides the missing context files: ${listedForPeople(discarded)}; initialisation only adds missing context files and never overwrites one`);
      const clean = await this.cleanTree(prepared, toWrite, kept, scratch);
      staged = clean.staged;
      if (clean.template.length > 0) how = `${how} ${clean.template.map((f) => `\`${f}\``).join(', ')} from the template instead: the ${kind} writer left no plain file there.`;
    }
    const changed = staged?.files ?? [];
    // The clean tree holds only the kept and the template's files: this is the last line of defence.
    const foreign = changed.filter((f) => f.status !== 'added' || !expected.includes(f.path));
    if (foreign.length > 0) {
      throw new InitRefusal(`repository ${repo.name}: the ${kind} writer changed ${foreign.map((f) => `${oneLine(f.path, this.deps.secrets, 200)} (${f.status})`).join(', ')}; initialisation only adds missing context files and never overwrites one, so nothing was pushed`);
    }
    const absent = expected.filter((path) => !changed.some((f) => f.path === path));
    if (absent.length > 0 || !staged) {
      throw new InitRefusal(`repository ${repo.name}: the ${kind} writer did not write ${absent.join(', ')}; nothing was pushed`);
    }
    const findings = [...scanPathsForSecrets(expected, this.deps.secrets), ...await scanForSecrets(staged.addedLines(), this.deps.secrets)];
    if (findings.length > 0) {
      throw new InitRefusal(`repository ${repo.name}: push refused: the context files add what looks like a secret in ${describeFindings(findings)}; nothing was pushed`);
    }
    const { author_name: authorName, author_email: authorEmail } = this.deps.identity;
    const sha = await this.deps.git.commit(staged, { message: initCommitMessage(), authorName, authorEmail });
    await this.deps.git.push(staged);
    this.log(`${repo.name}: ${sha.slice(0, 12)} pushed to ${INIT_BRANCH} (${expected.length} file(s), ${kind} writer)`);
    return { how, discarded };
  }

  /**
   * The writer's change split: the missing files it added as plain files (read on the server, so
   * a link is never followed), and every other change, to drop: an existing file modified,
   * deleted or made a link, a path outside the missing files, a link or a folder's content where
   * a missing file belongs.
   */
  private async sortOut(staged: StagedChange | null, expected: readonly string[]): Promise<{ kept: StagedFile[]; dropped: ChangedFile[] }> {
    if (!staged) return { kept: [], dropped: [] };
    const added = staged.files.filter((f) => f.status === 'added' && expected.includes(f.path)).map((f) => f.path);
    const kept = (await this.deps.git.stagedFiles(staged, added)).filter((f) => isRegularFileMode(f.mode));
    return { kept, dropped: staged.files.filter((f) => !kept.some((k) => k.path === f.path)) };
  }

  /**
   * A fresh tree of the same commit with only the kept files, the template writing what they do
   * not cover (from the repository's own files, not the writer's edits of them); the writer's
   * sandbox is left as it is.
   */
  private async cleanTree(prepared: PreparedTree, toWrite: MissingContextFiles, kept: readonly StagedFile[], scratch: Scratch): Promise<{ staged: StagedChange | null; template: string[] }> {
    const repo = prepared.source.repo;
    const sandbox = await scratch.sandbox();
    // The start branch mapped to the commit already prepared: the same tree (resumed or not), without another fetch.
    const fresh = await scratch.prepare(prepared.source, sandbox, new Map([[prepared.startBranch, prepared.commit]]));
    if (kept.length > 0) await writeSandboxFiles(sandbox, kept.map((f) => ({ path: f.path, content: f.content })));
    const have = new Set(kept.map((f) => f.path));
    const remaining: MissingContextFiles = {
      repo: toWrite.repo,
      contexts: toWrite.contexts
        .map((c) => ({ ...c, files: c.files.filter((file) => !have.has(contextFilePath(c.name, file))) }))
        .filter((c) => c.files.length > 0),
    };
    const template = remaining.contexts.length > 0 ? (await this.template.write({ repo, sandbox }, remaining)).files : [];
    return { staged: await scratch.collect(fresh, sandbox), template };
  }

  /** The open pull request of `service/init`, brought up to date, or a new one. */
  private async propose(host: PullRequestHost, project: string, base: string, files: readonly string[], written: Written | null): Promise<{ pullRequest: PullRequestRef; created: boolean }> {
    const existing = await host.findOpen(INIT_BRANCH, base);
    const kind = this.deps.writer.kind;
    // Nothing written this time: the branch's files are an earlier run's, and so is how they were written and what was dropped.
    const body = (previous: PullRequestRef | null) => written
      ? initPullRequestBody(project, files, written.how, written.discarded.length > 0 ? discardedParagraph(kind, written.discarded) : null)
      : initPullRequestBody(project, files, paragraphOf('How', previous?.body ?? null), paragraphOf('Discarded', previous?.body ?? null));
    if (existing) return { pullRequest: await host.update(existing.number, { title: INIT_PULL_REQUEST_TITLE, body: body(existing) }), created: false };
    const made = await host.create({ head: INIT_BRANCH, base, title: INIT_PULL_REQUEST_TITLE, body: body(null) });
    if (made.created) return made;
    return { pullRequest: await host.update(made.pullRequest.number, { title: INIT_PULL_REQUEST_TITLE, body: body(made.pullRequest) }), created: false };
  }

  private log(line: string): void {
    this.deps.log?.(line);
  }
}

/** One repository's sandboxes and server-side scratch state, all released together. */
class Scratch {
  private readonly sandboxes: Sandbox[] = [];
  private readonly trees: PreparedTree[] = [];
  private readonly changes: StagedChange[] = [];

  constructor(
    private readonly deps: ProjectInitializerDeps,
    private readonly id: string,
    private readonly name: string,
  ) {}

  async sandbox(): Promise<Sandbox> {
    const sandbox = await this.deps.backend.create({ runId: this.id, name: this.name, env: {} });
    this.sandboxes.push(sandbox);
    return sandbox;
  }

  async prepare(source: WorkspaceSource, sandbox: Sandbox, synced?: ReadonlyMap<string, string>): Promise<PreparedTree> {
    const prepared = await this.deps.git.prepare(source, sandbox, synced);
    this.trees.push(prepared);
    return prepared;
  }

  async collect(prepared: PreparedTree, sandbox: Sandbox): Promise<StagedChange | null> {
    const staged = await this.deps.git.collect(prepared, sandbox);
    if (staged) this.changes.push(staged);
    return staged;
  }

  async release(): Promise<void> {
    for (const item of [...this.changes.splice(0), ...this.trees.splice(0)]) await this.deps.git.release(item).catch(() => undefined);
    for (const sandbox of this.sandboxes.splice(0)) await sandbox.destroy().catch(() => undefined);
  }
}
