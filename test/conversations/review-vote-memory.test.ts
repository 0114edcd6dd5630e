import type { INestApplicationContext } from '@nestjs/common';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewVoteMemory } from '../../src/conversations/rework/review-vote-memory.service.js';
import { AzureDevOpsVote, type ReviewerVote } from '../../src/platforms/inbound-event.js';
import { Platform } from '../../src/platforms/platform.js';
import { tempConfig, type TempConfig } from '../support/temp-config.js';
import { testEnvironment } from '../support/test-env.js';
import { deleteKeys, REDIS_URL, uniqueKeyPrefix } from '../support/test-store.js';
import { bootRework } from './support/rework-app.js';

const { WaitingForAuthor: WAIT, Approved, NoVote } = AzureDevOpsVote;

function vote(login: string, value: number, isContainer = false): ReviewerVote {
  return { reviewer: { login: `${login}@acme.example`, id: `id-${login}`, displayName: login }, vote: value, isContainer };
}
const names = (votes: ReviewerVote[]): (string | null)[] => votes.map((v) => v.reviewer.login);

describe('ReviewVoteMemory on the real store', () => {
  let keyPrefix: string;
  let config: TempConfig;
  let replicas: INestApplicationContext[];
  let redis: Redis;
  let memory: ReviewVoteMemory;

  beforeAll(async () => {
    keyPrefix = uniqueKeyPrefix('review-votes');
    config = tempConfig('review-votes', { queue: { key_prefix: keyPrefix, redis_retry_interval_seconds: 1 } });
    const env = testEnvironment({ SERVICE_CONFIG: config.path, SERVICE_DATA_DIR: config.dir, KVSTORE_URL: REDIS_URL });
    replicas = await Promise.all([bootRework(env), bootRework(env)]);
    memory = replicas[0]!.get(ReviewVoteMemory);
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await deleteKeys(redis, keyPrefix);
    redis.disconnect();
    config.remove();
  });

  it('reports a reviewer whose vote became Wait for author, once; first sight counts, groups never', async () => {
    const pr = [Platform.AzureDevOps, 'shop-web', 7] as const;
    expect(names(await memory.changedToWaitForAuthor(...pr, [vote('ana', WAIT), vote('bo', Approved), vote('team', WAIT, true)]))).toEqual(['ana@acme.example']);
    expect(await memory.changedToWaitForAuthor(...pr, [vote('ana', WAIT), vote('bo', Approved)])).toEqual([]);
    expect(names(await memory.changedToWaitForAuthor(...pr, [vote('ana', WAIT), vote('bo', WAIT)]))).toEqual(['bo@acme.example']);
    // Reset first (spec: only a change of vote is sent), then Wait for author again.
    expect(await memory.changedToWaitForAuthor(...pr, [vote('ana', NoVote), vote('bo', WAIT)])).toEqual([]);
    expect(names(await memory.changedToWaitForAuthor(...pr, [vote('ana', WAIT), vote('bo', WAIT)]))).toEqual(['ana@acme.example']);

    const key = `${keyPrefix}review-votes:${Platform.AzureDevOps}:shop-web:7`;
    expect(await redis.hgetall(key)).toEqual({ 'id:id-ana': '-5', 'id:id-bo': '-5' });
    expect(await redis.ttl(key)).toBeGreaterThan(0);
  });

  it('two replicas handling the same delivery: only one reports the change', async () => {
    const rounds = Array.from({ length: 25 }, (_, i) => 100 + i);
    const answers = await Promise.all(rounds.flatMap((n) => replicas.map((r) => r.get(ReviewVoteMemory).changedToWaitForAuthor(Platform.AzureDevOps, 'shop-web', n, [vote('ana', WAIT)]))));
    expect(answers.filter((a) => a.length === 1)).toHaveLength(rounds.length);
    expect(answers.filter((a) => a.length === 0)).toHaveLength(rounds.length);
  });

  it('pull requests and repositories are kept apart', async () => {
    expect(await memory.changedToWaitForAuthor(Platform.AzureDevOps, 'shop-web', 8, [vote('ana', WAIT)])).toHaveLength(1);
    expect(await memory.changedToWaitForAuthor(Platform.AzureDevOps, 'billing', 8, [vote('ana', WAIT)])).toHaveLength(1);
  });
});

describe('ReviewVoteMemory without a store', () => {
  it('keeps the votes in the process', async () => {
    const config = tempConfig('review-votes-local', {});
    const app = await bootRework(testEnvironment({ SERVICE_CONFIG: config.path, SERVICE_DATA_DIR: config.dir }));
    try {
      const memory = app.get(ReviewVoteMemory);
      expect(names(await memory.changedToWaitForAuthor(Platform.AzureDevOps, 'shop-web', 1, [vote('ana', WAIT), vote('bo', NoVote)]))).toEqual(['ana@acme.example']);
      expect(await memory.changedToWaitForAuthor(Platform.AzureDevOps, 'shop-web', 1, [vote('ana', WAIT), vote('bo', NoVote)])).toEqual([]);
      expect(names(await memory.changedToWaitForAuthor(Platform.AzureDevOps, 'shop-web', 1, [vote('ana', WAIT), vote('bo', WAIT)]))).toEqual(['bo@acme.example']);
    } finally {
      await app.close();
      config.remove();
    }
  });
});
