import { Injectable, Logger } from '@nestjs/common';
import type { RepoConfig } from '../config/service-config.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import { replyBody, replyMarker } from './command-replies.js';

/**
 * Posts the service's answer to a command or review act on its pull request, off the webhook's
 * path (the host is not kept waiting for our comment). One reply per act: a repeated post edits
 * it (the act's marker, and only the token's own comment). Failures are logged, never thrown.
 */
@Injectable()
export class CommandReplier {
  private readonly logger = new Logger('PullRequestCommands');
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly workspaces: WorkspacesService) {}

  post(repo: RepoConfig, number: number, actId: string, text: string): void {
    const posting = this.workspaces.reviewsFor(repo).upsertComment(number, replyBody(actId, text), replyMarker(actId))
      .then(() => this.logger.log(`answered ${actId} on ${repo.name}#${number}`))
      .catch((error: Error) => this.logger.warn(`answer to ${actId} on ${repo.name}#${number} not posted: ${error.message}`));
    this.pending.add(posting);
    void posting.finally(() => this.pending.delete(posting));
  }

  /** Resolves once every reply under way has been posted or given up (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
