import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Platform } from '../../src/platforms/platform.js';
import { branchTip, fileAt } from '../stand-ins/git-repositories.js';
import { requireBuild, runCli, tempDir } from '../support/server-process.js';
import { type CodeHost, startCodeHost } from '../workspaces/support/code-hosts.js';

/** The built `pipeline-service init` against a GitHub stand-in with a real git remote. */
const dir = tempDir('e2e-init-cli');
const TOKEN = 'e2e-init-cli-token-4b7e21d0';
const configFile = join(dir.dir, 'service.yml');
let host: CodeHost;

beforeAll(async () => {
  requireBuild();
  host = await startCodeHost(Platform.GitHub, dir.dir, TOKEN, 'shop-web');
  writeFileSync(configFile, stringify({
    sandbox: { backend: 'in-process' },
    projects: { shop: { tracker: 'platform-d', repos: [host.repoEntry()] }, empty: { tracker: 'platform-d' } },
  }));
});

afterAll(async () => {
  await host?.stop();
  dir.remove();
});

const cli = (args: string[]) => runCli(args, { SERVICE_DATA_DIR: join(dir.dir, 'data') });

describe('pipeline-service init', () => {
  it('opens the pull request, then finds it again: one line per repository, exit 0', async () => {
    const first = await cli(['init', '--project', 'shop', '--config', configFile]);
    expect(first.code, first.stderr + first.stdout).toBe(0);
    expect(first.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^shop-web: opened \S+\/pull\/\d+ \(adds \.service\/contexts\/default\/context\.yaml, \.service\/contexts\/default\/principles\.md\)$/),
    ]);
    expect(fileAt(host.bare, 'service/init', '.service/contexts/default/context.yaml')).toContain('name: default');
    const tip = branchTip(host.bare, 'service/init');
    const again = await cli(['init', '--project', 'shop', '--config', configFile]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^shop-web: updated /);
    expect(branchTip(host.bare, 'service/init')).toBe(tip);
    expect(host.pullRequests().filter((pr) => pr.head === 'service/init')).toHaveLength(1);
  });

  it('exit 1 for an unknown project or one without repositories, 2 without --project', async () => {
    expect(await cli(['init', '--project', 'nowhere', '--config', configFile])).toMatchObject({ code: 1, stdout: 'unknown project nowhere; configured: shop, empty\n' });
    expect((await cli(['init', '--project', 'empty', '--config', configFile])).code).toBe(1);
    const usage = await cli(['init']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('pipeline-service init --project P [--config FILE]');
  });
});
