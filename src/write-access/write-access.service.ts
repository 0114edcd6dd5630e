import { Inject, Injectable, Logger } from '@nestjs/common';
import { clipText } from '../common/clip-text.js';
import { scrubSecrets } from '../common/secret-scrubber.js';
import { ConfigService } from '../config/config.service.js';
import { platformOf } from '../platforms/platform-registry.js';
import { TrackerError } from '../platforms/tracker-client.js';
import { type AuthorRef, describeAuthor, type HostVerdict } from '../platforms/write-access-lookup.js';
import { writeAccessLookupFor } from '../platforms/write-access-lookups.js';
import { VerdictMemory } from './verdict-memory.service.js';
import type { WriteAccessQuery, WriteAccessVerdict } from './write-access.js';
import { WRITE_ACCESS_OPTIONS, type WriteAccessOptions } from './write-access.options.js';

const REASON_MAX = 300;

/**
 * Who may issue pull-request commands (spec "Who may issue commands"): GitHub from the payload's
 * author_association; GitLab and Azure DevOps by asking the host with the repository's
 * auth_secret, the host's verdict remembered for five minutes per author and repository across
 * replicas. An undeclared repository, a missing token or a lookup that failed is no write access;
 * a failure is not remembered (the next command asks again).
 */
@Injectable()
export class WriteAccessService {
  private readonly logger = new Logger('WriteAccess');

  constructor(
    private readonly config: ConfigService,
    private readonly memory: VerdictMemory,
    @Inject(WRITE_ACCESS_OPTIONS) private readonly options: WriteAccessOptions,
  ) {}

  async check(query: WriteAccessQuery): Promise<WriteAccessVerdict> {
    const verdict = await this.decide(query);
    this.report(query, verdict);
    return verdict;
  }

  private async decide(query: WriteAccessQuery): Promise<WriteAccessVerdict> {
    const project = this.config.config.projects[query.project];
    if (!project) return refused(`project ${query.project} is not configured`);
    if (!project.pr_commands.require_member) return { granted: true, source: 'not-required' };
    const repo = query.repo;
    if (!repo) return refused(`the repository is not declared in project ${query.project}`);
    if (repo.platform !== query.platform) return refused(`repository ${repo.name} is on ${repo.platform}, not ${query.platform}`);
    const access = platformOf(query.platform)?.codeHost?.writeAccess;
    if (access?.from === 'payload') return fromHost(access.verdict(query.authorAssociation, query.author), 'payload');
    if (!access) return refused(`${query.platform} hosts no pull requests`);
    if (!repo.auth_secret) return refused(`repository ${repo.name} has no auth_secret: no token to check with`);
    const author = authorKeyOf(query.author);
    if (author === null) return refused('the payload does not name the author');

    const key = this.memory.key(repo.platform, repositoryKeyOf(repo.url, repo.name), author);
    const remembered = await this.memory.recall(key);
    if (remembered) return fromHost(remembered, 'remembered');
    let answer: HostVerdict;
    try {
      answer = await writeAccessLookupFor(repo, this.options.http).check(query.author);
    } catch (error) {
      return refused(`could not check write access: ${describeFailure(error, repo.auth_secret)}`);
    }
    await this.memory.remember(key, answer);
    return fromHost(answer, 'lookup');
  }

  private report(query: WriteAccessQuery, verdict: WriteAccessVerdict): void {
    const where = `${query.platform} repository ${query.repo?.name ?? '(undeclared)'} of project ${query.project}`;
    const who = describeAuthor(query.author);
    const text = verdict.granted
      ? `write access of ${who} on ${where}: granted (${verdict.source})`
      : `write access of ${who} on ${where}: refused (${verdict.source}): ${verdict.reason}`;
    // A host's fresh answer is news; the payload, the memory and the configuration are not.
    if (verdict.source === 'lookup') this.logger.log(text);
    else this.logger.debug(text);
  }
}

/** Refused without asking a host (configuration, payload) or because asking failed: never remembered. */
function refused(reason: string): WriteAccessVerdict {
  return { granted: false, source: 'lookup', reason: clipText(reason, REASON_MAX) };
}

function fromHost(answer: HostVerdict, source: 'payload' | 'lookup' | 'remembered'): WriteAccessVerdict {
  return answer.granted ? { granted: true, source } : { granted: false, source, reason: clipText(answer.reason, REASON_MAX) };
}

/** The author as memory keys name them: the stable id when the payload has one, else the handle. */
function authorKeyOf(author: AuthorRef): string | null {
  if (author.id) return `id=${author.id}`;
  if (author.login) return `login=${author.login.toLowerCase()}`;
  return null;
}

/**
 * The repository as memory keys name it: its URL without user info (which may hold a credential),
 * query, `.git` or trailing slash, in lower case (the hosts' paths are case-insensitive).
 */
export function repositoryKeyOf(url: string, name: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname.replace(/\/+$/, '').replace(/\.git$/i, '');
    return `${parsed.protocol}//${parsed.host}${path}`.toLowerCase();
  } catch {
    return `repository=${name}`;
  }
}

/** One credential-free line: what the host or the network said, without the platform prefix. */
function describeFailure(error: unknown, secret: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const detail = error instanceof TrackerError && message.startsWith(`${error.platform}: `) ? message.slice(error.platform.length + 2) : message;
  return scrubSecrets(detail.replace(/\s+/g, ' ').trim(), [secret]);
}
