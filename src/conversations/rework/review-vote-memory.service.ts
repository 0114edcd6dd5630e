import { Injectable } from '@nestjs/common';
import { AzureDevOpsVote, type ReviewerVote } from '../../platforms/inbound-event.js';
import type { Platform } from '../../platforms/platform.js';
import { StoreConnectionService } from '../../store/store-connection.service.js';

/**
 * The reviewers' votes last seen on each pull request, so a delivery that lists every vote
 * (Azure DevOps sends the whole list, not who changed it) tells which reviewer has just voted
 * Wait for author (spec, "Rework on a service pull request" rules 2 and 3: only a change of
 * vote counts). One store hash per pull request, compared and written by one Lua script, so
 * when two replicas handle the same delivery only the first reports the change. While the store
 * is down the votes are kept in this process instead (the replicas then do not share them).
 */

/** Compares and records in one step: answers the fields whose vote became -5 (nil before counts). */
const COMPARE_AND_RECORD = `
local changed = {}
for i = 2, #ARGV, 2 do
  local before = redis.call('HGET', KEYS[1], ARGV[i])
  if ARGV[i + 1] == ARGV[1] and before ~= ARGV[1] then table.insert(changed, ARGV[i]) end
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[1], ${180 * 24 * 3600})
return changed`;

/** Pull requests whose votes this process keeps at most while the store is down. */
const MAX_IN_PROCESS = 10_000;

@Injectable()
export class ReviewVoteMemory {
  private readonly inProcess = new Map<string, Map<string, string>>();

  constructor(private readonly store: StoreConnectionService) {}

  /**
   * The reviewers (not groups) whose vote is now Wait for author and was not when last seen (a
   * reviewer seen for the first time counts), recording every current vote.
   */
  async changedToWaitForAuthor(platform: Platform, repoKey: string, number: number, reviewers: readonly ReviewerVote[]): Promise<ReviewerVote[]> {
    const votes = new Map<string, ReviewerVote>();
    for (const r of reviewers) {
      const field = fieldOf(r);
      if (!r.isContainer && field !== null) votes.set(field, r);
    }
    if (votes.size === 0) return [];
    const key = this.store.key('review-votes', platform, repoKey, String(number));
    const changed = (await this.inStore(key, votes)) ?? this.locally(key, votes);
    return changed.map((field) => votes.get(field)!);
  }

  /** Null when the store cannot answer now. */
  private async inStore(key: string, votes: Map<string, ReviewerVote>): Promise<string[] | null> {
    const client = this.store.client;
    if (!client || !this.store.isConnected) return null;
    const args = [...votes].flatMap(([field, r]) => [field, voteOf(r)]);
    try {
      return (await client.eval(COMPARE_AND_RECORD, 1, key, WAITING, ...args)) as string[];
    } catch {
      return null;
    }
  }

  private locally(key: string, votes: Map<string, ReviewerVote>): string[] {
    const seen = this.inProcess.get(key) ?? new Map<string, string>();
    const changed = [...votes].filter(([field, r]) => voteOf(r) === WAITING && seen.get(field) !== WAITING).map(([field]) => field);
    for (const [field, r] of votes) seen.set(field, voteOf(r));
    this.inProcess.delete(key);
    this.inProcess.set(key, seen);
    if (this.inProcess.size > MAX_IN_PROCESS) this.inProcess.delete(this.inProcess.keys().next().value!);
    return changed;
  }
}

const WAITING = String(AzureDevOpsVote.WaitingForAuthor);

/** A reviewer's identity id, else its unique name; null when the delivery names neither. */
function fieldOf(r: ReviewerVote): string | null {
  if (r.reviewer.id) return `id:${r.reviewer.id.toLowerCase()}`;
  return r.reviewer.login ? `login:${r.reviewer.login.toLowerCase()}` : null;
}

function voteOf(r: ReviewerVote): string {
  return String(Math.trunc(r.vote));
}
