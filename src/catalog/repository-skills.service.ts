import { Injectable } from '@nestjs/common';
import { withTimeout } from '../common/with-timeout.js';
import { collectSecrets, scrubSecrets } from '../common/secret-scrubber.js';
import { ConfigService } from '../config/config.service.js';
import type { RepoConfig } from '../config/service-config.js';
import { gitCredentialFor } from '../workspaces/git/git-credential.js';
import { describeRepositoryFailure } from '../workspaces/publishing/publish-errors.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import { type SkillRead, sourceFinding } from './skill-read.js';
import { readTreeSkills } from './tree-skills.reader.js';

/** A repository's mirror is fetched for its skills at most this often (a run's own fetch is separate). */
export const REPOSITORY_REFRESH_MS = 60_000;
/** Commits whose skills are kept in memory (the skills of a commit never change). */
const COMMITS_KEPT = 256;

interface Refresh {
  at: number;
  read: Promise<SkillRead>;
}

/**
 * The skills each repository keeps under `.service/skills/`, read on the server from its mirror
 * (the workspaces' mirror cache, fetched with the repository's `auth_secret`) at the tip of its
 * default branch: the reviewed state, not a ticket's work branch, so a skill cannot be slipped
 * into a run by whoever can push a branch. Nothing is checked out and nothing of the repository
 * runs. Reads are cached per commit, and the mirror is fetched at most once a minute per
 * repository; when a fetch fails, the last skills read stand and a finding says why.
 */
@Injectable()
export class RepositorySkillsService {
  private readonly byCommit = new Map<string, SkillRead>();
  private readonly refreshes = new Map<string, Refresh>();
  private readonly lastGood = new Map<string, SkillRead>();

  /** How long a caller waits for a read (fetching the mirror included) before the last skills read answer. */
  waitMs = 20_000;

  constructor(private readonly config: ConfigService, private readonly workspaces: WorkspacesService) {}

  /** The repository's skills (and findings), at most REPOSITORY_REFRESH_MS old. Never throws. */
  skillsOf(project: string, repo: RepoConfig): Promise<SkillRead> {
    const key = `${project}\u0000${repo.name}\u0000${repo.url}\u0000${repo.branch ?? ''}`;
    const known = this.refreshes.get(key);
    if (known && Date.now() - known.at < REPOSITORY_REFRESH_MS) return known.read;
    const read = this.read(project, repo).then((result) => {
      this.lastGood.set(key, result);
      return result;
    }, (error: unknown) => this.failed(key, project, repo, error));
    this.refreshes.set(key, { at: Date.now(), read });
    // A slow host never holds a request for long: the last skills read answer, the read goes on.
    return withTimeout(read, this.waitMs, 'still reading').catch(() => this.pending(key, project, repo));
  }

  /** What answers while a read is still under way. */
  private pending(key: string, project: string, repo: RepoConfig): SkillRead {
    const previous = this.lastGood.get(key);
    const reason = `the skills of repository ${repo.name} of project ${project} are still being read from its host${previous ? '; the last ones read stand' : ''}`;
    return { skills: previous?.skills ?? [], findings: [...(previous?.findings ?? []), sourceFinding(reason, { project })] };
  }

  private async read(project: string, repo: RepoConfig): Promise<SkillRead> {
    const at = { project };
    const credential = gitCredentialFor(repo);
    if (!credential) {
      return { skills: [], findings: [sourceFinding(`repository ${repo.name} of project ${project} has no auth_secret: its skills cannot be read`, at)] };
    }
    const branch = repo.branch ?? await this.workspaces.hostFor(repo).defaultBranch();
    const heads = await this.workspaces.repositories.sync({ repo, credential, workBranch: branch, baseBranch: branch });
    const commit = heads.get(branch);
    if (!commit) {
      return { skills: [], findings: [sourceFinding(`repository ${repo.name} of project ${project} has no branch ${branch}: its skills cannot be read`, at)] };
    }
    const cacheKey = `${repo.url}@${commit}\u0000${project}\u0000${repo.name}`;
    const cached = this.byCommit.get(cacheKey);
    if (cached) return cached;
    const result = await readTreeSkills(this.workspaces.repositories.committedTree(repo, commit), { project, repository: repo.name });
    this.byCommit.set(cacheKey, result);
    if (this.byCommit.size > COMMITS_KEPT) this.byCommit.delete(this.byCommit.keys().next().value!);
    return result;
  }

  /** The last skills read stand; the finding says why they may be old. */
  private failed(key: string, project: string, repo: RepoConfig, error: unknown): SkillRead {
    // A failure is not kept for a minute: the next request tries again.
    this.refreshes.delete(key);
    const secrets = collectSecrets(this.config.config, this.config.env);
    const why = scrubSecrets(describeRepositoryFailure(repo.name, 'reading its skills', error), secrets);
    const previous = this.lastGood.get(key);
    const reason = `the skills of repository ${repo.name} of project ${project} could not be read${previous ? ' (the last ones read stand)' : ''}: ${why}`;
    return { skills: previous?.skills ?? [], findings: [...(previous?.findings ?? []), sourceFinding(reason, { project })] };
  }
}
