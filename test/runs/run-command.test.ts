import { AGENTS_REFUSED } from '../../src/pipelines/pipeline-catalog.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/cli/run.command.js';
import { type RunTestSetup, createRunTestSetup } from './support/run-test-setup.js';

let setup: RunTestSetup;

beforeAll(async () => {
  setup = await createRunTestSetup();
});

afterAll(async () => {
  await setup?.cleanup();
});

describe('pipeline-service run', () => {
  it('runs a command pipeline in-process and reports success', async () => {
    const lines: string[] = [];
    expect(await runPipeline(setup.env, { pipeline: 'hello', project: 'solo', ticket: '5' }, (l) => lines.push(l))).toBe(true);
    expect(lines).toContain('[solo-web] hello from solo-web');
    expect(lines.at(-1)).toBe('pipeline hello succeeded');
  });

  it('reports failure for a failing pipeline, a built-in agent pipeline the in-process backend refuses and an unknown project', async () => {
    const lines: string[] = [];
    expect(await runPipeline(setup.env, { pipeline: 'broken', project: 'solo', ticket: null }, (l) => lines.push(l))).toBe(false);
    expect(lines.at(-1)).toBe('pipeline broken failed: `exit 3` exited with code 3 in sandbox solo-web');
    expect(await runPipeline(setup.env, { pipeline: 'security-scan', project: 'solo', ticket: null }, (l) => lines.push(l))).toBe(false);
    expect(lines.at(-1)).toBe(`pipeline security-scan failed: ${AGENTS_REFUSED}`);
    expect(await runPipeline(setup.env, { pipeline: 'hello', project: 'nowhere', ticket: null }, (l) => lines.push(l))).toBe(false);
  });

  it('runs on the stored settings when DATABASE_URL names the database, and says so when it cannot read them', async () => {
    await setup.db.query(`INSERT INTO config_settings (key, value, updated_by) VALUES ('pipelines.greet', $1::jsonb, 'test')`,
      [JSON.stringify({ commands: ['echo a stored greeting'], timeout_seconds: 60 })]);
    try {
      const lines: string[] = [];
      expect(await runPipeline(setup.env, { pipeline: 'greet', project: 'solo', ticket: null }, (l) => lines.push(l))).toBe(true);
      expect(lines).toContain('[solo-web] a stored greeting');
      expect(lines.some((l) => l.startsWith('stored secrets and settings'))).toBe(false);

      const away: string[] = [];
      const unreachable = { ...setup.env, databaseUrl: 'postgres://postgres@127.0.0.1:1/nothing' };
      expect(await runPipeline(unreachable, { pipeline: 'greet', project: 'solo', ticket: null }, (l) => away.push(l))).toBe(false);
      expect(away[0]).toMatch(/^stored secrets and settings could not be read \(.*\): the bootstrap file and the environment apply$/);
    } finally {
      await setup.db.query(`DELETE FROM config_settings WHERE key = 'pipelines.greet'`);
    }
  });
});
