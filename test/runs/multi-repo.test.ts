import { existsSync } from 'node:fs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { ClaimService } from '../../src/tickets/claim.service.js';
import { bootRunApp } from './support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup, eventually } from './support/run-test-setup.js';


let setup: RunTestSetup;
let app: NestFastifyApplication;

beforeAll(async () => {
  setup = await createRunTestSetup({
    projects: (remotes) => {
      const repo = (name: string, prefix: string) => remotes.entry(name, 'platform-a', { path_prefix: prefix });
      return { shop: { tracker: 'platform-a', repos: [repo('shop-web', 'web/'), repo('shop-api', 'api/'), repo('shop-docs', 'docs/')] } };
    },
  });
  app = await bootRunApp(setup.env);
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
});

describe('a multi-repository project', () => {
  it('runs one claim as one run with one sandbox per repository, routed by path prefix', async () => {
    const outcome = await app.get(ClaimService).claim({ platform: Platform.GitHub, project: 'shop', ticket: '7' }, 'where');
    expect(outcome.outcome).toBe('Claimed');
    const runId = outcome.outcome === 'Claimed' ? outcome.runId : '';
    await eventually(async () => {
      const { rows } = await setup.db.query('SELECT state FROM runs WHERE id = $1', [runId]);
      return rows[0]?.state === 'succeeded' ? true : undefined;
    }, 20_000, 'the run to succeed');

    expect((await setup.db.query(`SELECT count(*)::int AS n FROM runs WHERE project = 'shop'`)).rows[0].n).toBe(1);
    const sandboxes = (await setup.db.query('SELECT repo, path_prefix, state FROM run_sandboxes WHERE run_id = $1 ORDER BY repo', [runId])).rows;
    expect(sandboxes).toEqual([
      { repo: 'shop-api', path_prefix: 'api/', state: 'destroyed' },
      { repo: 'shop-docs', path_prefix: 'docs/', state: 'destroyed' },
      { repo: 'shop-web', path_prefix: 'web/', state: 'destroyed' },
    ]);

    // Each sandbox received its own repository's tree (branch main) before the steps.
    const trees = (await setup.db.query(`SELECT sandbox, text FROM run_events WHERE run_id = $1 AND kind = 'workspace' ORDER BY sandbox`, [runId])).rows;
    expect(trees).toEqual(['shop-api', 'shop-docs', 'shop-web'].map((name) => ({
      sandbox: name,
      text: expect.stringMatching(new RegExp(`^${name}: tree of branch main at [0-9a-f]{12}$`)),
    })));

    const out = (await setup.db.query(`SELECT sandbox, text FROM run_events WHERE run_id = $1 AND kind = 'stdout' ORDER BY seq`, [runId])).rows as { sandbox: string; text: string }[];
    const dirs = new Set<string>();
    for (const name of ['shop-web', 'shop-api', 'shop-docs']) {
      const [where, env] = out.filter((e) => e.sandbox === name).map((e) => e.text);
      const prefix = name.replace('shop-', '');
      expect(where).toMatch(new RegExp(`^repo=${name} prefix=${prefix}/ dir=`));
      const dir = where!.replace(/^.* dir=/, '');
      dirs.add(dir);
      expect(existsSync(dir)).toBe(false); // removed afterwards
      // The environment is what the run was given, nothing of the server's.
      const names = env!.trim().split(' ');
      expect(names).toContain('SERVICE_RUN_ID');
      expect(names).not.toContain('DATABASE_URL');
      expect(names).not.toContain('KVSTORE_URL');
      expect(names).not.toContain('SERVICE_CONFIG');
    }
    expect(dirs.size).toBe(3); // a fresh directory per sandbox
  });
});
