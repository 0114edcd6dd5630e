import { Injectable, Logger } from '@nestjs/common';
import type { RepoConfig } from '../config/service-config.js';
import type { PullRequestRef } from '../platforms/inbound-event.js';
import { carriesServiceMarker } from '../platforms/service-marker.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';

/** A pull request as a command or review act needs it. */
export interface PullRequestFacts {
  number: number;
  /** Head branch without `refs/heads/`. */
  head: string;
  sameRepository: boolean;
  /** Login / username / uniqueName of its author, when known. */
  author: string | null;
  open: boolean;
}

/** Spec "Rework on a service pull request": head `service/<ticket>` in the same repository (not the init branch). */
const SERVICE_BRANCH = /^service\/(.+)$/;
const INIT_BRANCH = 'service/init';

/** The ticket a service pull request works on, or null when the pull request is someone else's. */
export function serviceTicketOf(facts: Pick<PullRequestFacts, 'head' | 'sameRepository'>): string | null {
  if (!facts.sameRepository || facts.head === INIT_BRANCH) return null;
  return SERVICE_BRANCH.exec(facts.head)?.[1] ?? null;
}

/**
 * Reads what the payload may not carry (GitHub's `issue_comment` names no head branch) from the
 * host, and tells the service's own notes from a stranger's: a comment is the service's own only
 * when it carries the service marker *and* the account behind the repository token wrote it.
 */
@Injectable()
export class PullRequestFactsService {
  private readonly logger = new Logger('PullRequestCommands');

  constructor(private readonly workspaces: WorkspacesService) {}

  /** The pull request as the host has it now, or null when the host cannot say (logged). */
  async read(repo: RepoConfig, ref: PullRequestRef): Promise<PullRequestFacts | null> {
    try {
      const pull = await this.workspaces.reviewsFor(repo).read(ref.number);
      return { number: ref.number, head: pull.head, sameRepository: pull.sameRepository, author: pull.author, open: pull.state === 'open' };
    } catch (error) {
      this.logger.warn(`pull request #${ref.number} of ${repo.name} could not be read: ${(error as Error).message}`);
      if (ref.headBranch === null || ref.sameRepository === null) return null;
      return { number: ref.number, head: ref.headBranch, sameRepository: ref.sameRepository, author: ref.author?.login ?? null, open: true };
    }
  }

  /** True when `body` is the service's own note on `repo` (a pasted marker is a stranger's comment). */
  async isOwnNote(repo: RepoConfig, body: string, login: string | null): Promise<boolean> {
    if (!carriesServiceMarker(body) || login === null) return false;
    try {
      const self = await this.workspaces.conversationsFor(repo).self();
      return self.toLowerCase() === login.toLowerCase();
    } catch (error) {
      // Unknown account: a marked comment is not acted on rather than risk answering ourselves.
      this.logger.warn(`the token's own account on ${repo.name} could not be read (${(error as Error).message}); the marked comment is treated as the service's own`);
      return true;
    }
  }
}
