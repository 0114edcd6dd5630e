import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { createBareRepository } from '../stand-ins/git-repositories.js';
import { BROWSER_TEST_TIMEOUT_MS, type DashboardPage, type Stand, UI_TIMEOUT_MS, browserUnavailable, inspectPage, startStand } from '../support/browser.js';
import { deliverLabel } from '../support/dashboard-runs.js';
import { eventually } from '../support/eventually.js';

/**
 * Projects and Diagnostics in a real browser against the built server (enforcement on, real
 * sign-in, PostgreSQL, Redis, stored secrets under SERVICE_SECRETS_KEY): an admin adds a GitHub
 * project through "Add project" against the token-checked GitHub stand-in (which also serves the
 * repository's git), a signed delivery for it runs its command pipeline to the end, and a probe on
 * Diagnostics follows a tracker stand-in going down and coming back.
 */
const SHOP_TOKEN = 'ghp_projectsBrowserShopToken0123456789';
const OPS_TOKEN = 'ghp_projectsBrowserOpsToken0123456789';
const TRIGGER = 'ready-to-build';

interface ConfigBody { keys: { key: string }[] }
interface SecretsBody { secrets: { name: string }[] }
interface RunsBody { items: { id: string; state: string; project: string; pipeline: string; ticket: string | null; error: string | null }[] }

/** The "Add project" form. */
const form = (p: DashboardPage) => p.page.getByRole('form', { name: 'Add project' });

/** The text of the element(s) a field names in `aria-describedby`: what a screen reader reads at it. */
async function descriptionOf(p: DashboardPage, field: ReturnType<DashboardPage['page']['getByLabel']>): Promise<string> {
  const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  const texts = await Promise.all(ids.map((id) => p.page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' ');
}

describe.skipIf(browserUnavailable)(`projects and diagnostics${browserUnavailable ? ` (skipped: ${browserUnavailable})` : ''}`, () => {
  let stand: Stand;
  /** The new project's host: its API (token-checked) and its repository's git. */
  let shop: GitHubStandIn;
  /** The configured project `ops`'s tracker, stopped and restarted by the diagnostics test. */
  let ops: GitHubStandIn;
  let gitRoot: string;

  beforeAll(async () => {
    gitRoot = mkdtempSync(join(tmpdir(), 'projects-browser-'));
    shop = await new GitHubStandIn(SHOP_TOKEN, 'acme', 'shop-web').start();
    const bare = join(gitRoot, 'shop-web.git');
    createBareRepository(bare, { defaultBranch: 'main', files: { 'README.md': 'shop\n' } });
    shop.mountGit('/acme/shop-web', { repository: bare, credential: { username: 'x-access-token', password: SHOP_TOKEN } });
    ops = await new GitHubStandIn(OPS_TOKEN, 'acme', 'ops-tools').start();
    stand = await startStand({
      config: {
        pipelines: { quick: { commands: ['true'], timeout_seconds: 60 } },
        sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
        projects: {
          ops: {
            tracker: 'platform-a',
            repos: [{ name: 'ops-tools', platform: 'platform-a', url: ops.webUrl, api_url: ops.apiUrl, auth_secret: OPS_TOKEN }],
          },
        },
      },
      // No PLATFORM_A webhook secret: the form makes one and shows it once.
      env: { SERVICE_SECRETS_KEY: randomBytes(32).toString('base64') },
    });
  }, 90_000);
  afterAll(async () => {
    await stand?.stop();
    await shop?.stop();
    await ops?.stop();
    if (gitRoot) rmSync(gitRoot, { recursive: true, force: true });
  });

  it('adds a GitHub project: a wrong token is refused at its field and saves nothing; the right one saves once, shows the webhook, and a signed delivery runs its pipeline to success', async () => {
    const repositoryUrl = `${shop.url}/acme/shop-web`;
    shop.addIssue(5101, [TRIGGER]);
    const p = await stand.newPage();
    await p.signIn('/projects', 'admin');
    await p.heading('Projects');
    await p.page.getByRole('link', { name: 'Add project' }).first().click();
    await p.heading('Add project');
    const f = form(p);
    await f.getByLabel('Project name').fill('storefront', { timeout: UI_TIMEOUT_MS });
    await f.getByLabel('GitHub', { exact: true }).check();
    await f.getByLabel('Repository URLs').fill(repositoryUrl);
    await f.getByLabel('API URL (optional)').fill(shop.apiUrl);
    const token = f.getByLabel('Access token');
    await token.fill('ghp_wrongToken0000000000000000000000');
    await f.getByLabel('Trigger labels').fill(TRIGGER);
    await f.getByLabel('Pipeline', { exact: true }).selectOption('quick');
    await inspectPage(p, 'projects-new');

    // Wrong token: the probe's refusal is shown at the token field, and nothing is written.
    await f.getByRole('button', { name: 'Save project' }).click();
    await f.getByText(/fails: .*401.*Bad credentials/).first().waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await token.getAttribute('aria-invalid')).toBe('true');
    expect(await descriptionOf(p, token)).toMatch(/Repository shop-web fails: .*401.*Bad credentials/);
    expect(await p.page.getByRole('heading', { name: 'Register the webhook on GitHub' }).count()).toBe(0);
    const configBefore = await stand.api<ConfigBody>('admin', 'GET', '/api/config');
    expect(configBefore.body.keys.filter((k) => k.key.startsWith('projects.storefront'))).toEqual([]);
    expect((await stand.api<SecretsBody>('admin', 'GET', '/api/secrets')).body.secrets).toEqual([]);
    await inspectPage(p, 'projects-new-refused');

    // Right token: saved once (one token secret, one webhook secret, no `_2`), the webhook shown.
    await token.fill(SHOP_TOKEN);
    await f.getByRole('button', { name: 'Save project' }).click();
    await p.page.getByRole('status').filter({ hasText: 'Project storefront is saved and in force.' }).waitFor({ timeout: UI_TIMEOUT_MS });
    const webhook = p.page.getByRole('region', { name: 'Register the webhook on GitHub' });
    const shown = webhook.locator('code');
    expect(await shown.nth(0).textContent()).toBe(`${stand.baseUrl}/webhook/platform-a`);
    const secret = (await shown.nth(1).textContent()) ?? '';
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    // The token never reaches the page's markup.
    expect(await p.page.content()).not.toContain(SHOP_TOKEN);
    const secrets = (await stand.api<SecretsBody>('admin', 'GET', '/api/secrets')).body.secrets.map((s) => s.name).sort();
    expect(secrets).toEqual(['STOREFRONT_TOKEN', 'WEBHOOK_SECRET_PLATFORM_A']);
    const config = (await stand.api<ConfigBody>('admin', 'GET', '/api/config')).body.keys.map((k) => k.key);
    expect(config).toContain('projects.storefront.tracker');
    await inspectPage(p, 'projects-new-saved');

    await p.page.getByRole('link', { name: 'See the projects' }).click();
    await p.heading('Projects');
    await p.page.getByRole('article', { name: 'storefront' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'projects');

    // The secret shown is the one in force: another is refused; it starts the chosen pipeline, which
    // clones the repository with the stored token and succeeds.
    expect(await deliverLabel(stand.baseUrl, { repositoryUrl, number: 5101, label: TRIGGER, secret: 'not-the-shown-secret' })).toMatchObject({ status: 401 });
    shop.clearRequests();
    expect(await deliverLabel(stand.baseUrl, { repositoryUrl, number: 5101, label: TRIGGER, secret })).toMatchObject({ status: 202 });
    const run = await eventually(async () => {
      const { body } = await stand.api<RunsBody>('admin', 'GET', '/api/runs?ticket=5101');
      const found = body.items[0];
      return found && ['succeeded', 'failed', 'cancelled'].includes(found.state) ? found : undefined;
    }, 60_000, 'the run of issue 5101 to end');
    expect(run).toMatchObject({ state: 'succeeded', project: 'storefront', pipeline: 'quick' });
    expect(shop.requests.some((r) => r.path === '/acme/shop-web/git-upload-pack')).toBe(true);
    expect((await stand.api<RunsBody>('admin', 'GET', '/api/runs?ticket=5101')).body.items).toHaveLength(1);
  }, BROWSER_TEST_TIMEOUT_MS + 60_000);

  it('Diagnostics: a probe shows the tracker failing with its error while the stand-in is down, and working once it is back on the same port', async () => {
    const p = await stand.newPage();
    await p.signIn('/diagnostics', 'admin');
    await p.heading('Diagnostics');
    const row = p.page.getByRole('table', { name: 'Connections' }).getByRole('row').filter({ hasText: 'tracker:ops' });
    const probe = row.getByRole('button', { name: 'Probe tracker:ops' });
    await probe.waitFor({ timeout: UI_TIMEOUT_MS });

    await ops.stop();
    await probe.click();
    await row.getByRole('status').filter({ hasText: /Failed after \d+ ms: .*ECONNREFUSED/ }).waitFor({ timeout: UI_TIMEOUT_MS });
    await row.getByText('failing', { exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await row.textContent()).toMatch(/ECONNREFUSED/);
    await inspectPage(p, 'diagnostics-failing');

    await ops.restart();
    await probe.click();
    await row.getByRole('status').filter({ hasText: /OK in \d+ ms/ }).waitFor({ timeout: UI_TIMEOUT_MS });
    await row.getByText('works', { exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'diagnostics');
  }, BROWSER_TEST_TIMEOUT_MS);
});
