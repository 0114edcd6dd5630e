import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/cli/run.command.js';
import { loadServiceConfig } from '../../src/config/load-service-config.js';
import { AGENTS_REFUSED } from '../../src/pipelines/pipeline-catalog.js';
import { Platform } from '../../src/platforms/platform.js';
import { commitFiles, fileAt } from '../stand-ins/git-repositories.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { type TempConfig, tempConfig } from '../support/temp-config.js';
import { testEnvironment } from '../support/test-env.js';
import { type CodeHost, DONE_STATUS, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { CONTEXT_FILES } from './support/code-scenarios.js';

/** `pipeline-service run code`: the same pipeline in-process, no database or store, events printed. */
describe('pipeline-service run code --project P --ticket T', () => {
  const token = `cli-code-${randomBytes(8).toString('hex')}`;
  const apiKey = `sk-cli-${randomBytes(8).toString('hex')}`;
  let root: string;
  let host: CodeHost;
  let model: ModelStandIn;
  let config: TempConfig;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'run-code-cli-'));
    host = await startCodeHost(Platform.GitHub, root, token, 'cli-app');
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    host.addTicket('7', 'Greet from the command line', 'Write greeting.txt saying hello.');
    model = await ModelStandIn.start({ apiKey });
    config = tempConfig('run-code-cli', {
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
      agent: { provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: model.baseUrl, api_key: apiKey, requests_per_minute: 6000 },
      projects: { app: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'code'), repos: [host.repoEntry()] } },
    });
  }, 30_000);

  afterAll(async () => {
    await model?.close();
    await host?.stop();
    config?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('prepares the tree, passes the gate, lets the model work, verifies and opens the pull request, printing every event', async () => {
    model.script({
      match: 'Greet from the command line',
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Greets from the command line.' } }] },
      ],
    });
    const env = testEnvironment({ SERVICE_CONFIG: config.path, SERVICE_DATA_DIR: config.dir, LOG_LEVEL: 'warn' });
    const lines: string[] = [];
    const ok = await runPipeline(env, { pipeline: 'code', project: 'app', ticket: '7' }, (l) => lines.push(l));
    expect({ ok, last: lines.at(-1) }).toEqual({ ok: true, last: 'pipeline code succeeded' });
    expect(lines.filter((l) => l.startsWith('-- model-call:'))).toHaveLength(2);
    expect(lines.some((l) => l.startsWith('-- tool-call:') && l.includes('write_file'))).toBe(true);
    expect(lines.some((l) => l.startsWith('-- usage: 2 model calls'))).toBe(true);
    expect(lines.some((l) => l.startsWith('-- pull request: cli-app '))).toBe(true);
    expect(fileAt(host.bare, 'service/7', 'greeting.txt')).toBe('hello\n');
    expect(host.pullRequests().filter((pr) => pr.head === 'service/7')).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(token);
    expect(lines.join('\n')).not.toContain(apiKey);
  });

  it('refuses to run the model on the in-process backend without the opt-in, and the configuration says so', async () => {
    const strict = tempConfig('run-code-cli-strict', {
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
      agent: { provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: model.baseUrl, api_key: apiKey },
      projects: { app: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'code'), repos: [host.repoEntry()] } },
    });
    try {
      const env = testEnvironment({ SERVICE_CONFIG: strict.path, SERVICE_DATA_DIR: strict.dir, LOG_LEVEL: 'warn' });
      const { findings } = loadServiceConfig(env);
      expect(findings.find((f) => f.field === 'sandbox.backend' && f.project === 'app')).toMatchObject({ severity: 'blocking' });
      const calls = model.modelCalls().length;
      const lines: string[] = [];
      expect(await runPipeline(env, { pipeline: 'code', project: 'app', ticket: '7' }, (l) => lines.push(l))).toBe(false);
      expect(lines.at(-1)).toBe(`pipeline code failed: ${AGENTS_REFUSED}`);
      expect(model.modelCalls().length).toBe(calls);
    } finally {
      strict.remove();
    }
  });
});
