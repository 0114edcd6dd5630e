import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, createBareRepository } from '../stand-ins/git-repositories.js';
import { GitHubStandIn } from '../stand-ins/github-stand-in.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { BROWSER_TEST_TIMEOUT_MS, type Stand, UI_TIMEOUT_MS, browserUnavailable, inspectPage, startStand } from '../support/browser.js';
import { eventually } from '../support/eventually.js';

/**
 * The Design page in a real browser against the built server (enforcement on, real sign-in): an
 * operator talks about a GitHub project, the model stand-in reads the repository and proposes two
 * drafts shown side by side, both are chosen and filed, and their links appear; a designer
 * (dialog.write only) is not offered "Start work" and does not see the operator's conversation;
 * a reader has no Design link.
 */
const TOKEN = 'ghp_dialogBrowserToken0123456789abcdef';
const API_KEY = 'sk-dialog-browser';

function drafts(tag: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    name: 'propose_ticket',
    input: {
      title: `${tag} ticket ${i + 1}`,
      body: `Part ${i + 1} of the rounding change, in src/totals.ts.`,
      criteria: [`${tag} totals ${i + 1} are in cents`, `${tag} receipts ${i + 1} show two decimals`],
      labels: ['design'],
    },
  }));
}

describe.skipIf(browserUnavailable)(`the Design page${browserUnavailable ? ` (skipped: ${browserUnavailable})` : ''}`, () => {
  let stand: Stand;
  let shop: GitHubStandIn;
  let model: ModelStandIn;
  let gitRoot: string;

  beforeAll(async () => {
    gitRoot = mkdtempSync(join(tmpdir(), 'dialog-browser-'));
    shop = await new GitHubStandIn(TOKEN, 'acme', 'shop-web').start();
    const bare = join(gitRoot, 'shop-web.git');
    createBareRepository(bare, { defaultBranch: 'main', files: { 'README.md': 'shop\n' } });
    commitFiles(bare, 'main', { 'src/totals.ts': 'export const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0); // TOTALS-MARKER\n' }, 'Totals');
    shop.mountGit('/acme/shop-web', { repository: bare, credential: { username: 'x-access-token', password: TOKEN } });
    model = await ModelStandIn.start({ apiKey: API_KEY });
    stand = await startStand({
      users: { operator: ['operator'], designer: ['designer'], reader: ['reader'], admin: ['admin'] },
      config: {
        sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
        agent: { provider: 'openai', model: 'gpt-5.1', base_url: model.baseUrl, api_key: API_KEY, max_steps: 10, step_timeout_seconds: 120, requests_per_minute: 6000 },
        projects: {
          shop: {
            tracker: 'platform-a',
            repos: [{ name: 'shop-web', platform: 'platform-a', url: `${shop.url}/acme/shop-web`, api_url: shop.apiUrl, auth_secret: TOKEN }],
            platform_a_trigger: { trigger_statuses: ['ready-for-agent'], default_pipeline: 'code' },
          },
        },
      },
    });
    const role = await stand.api('admin', 'PUT', '/api/access/roles/designer', { permissions: ['dialog.write'] });
    expect(role.status, JSON.stringify(role.body)).toBe(200);
  }, 90_000);
  afterAll(async () => {
    await stand?.stop();
    await model?.close();
    await shop?.stop();
    if (gitRoot) rmSync(gitRoot, { recursive: true, force: true });
  });

  it('an operator talks, sees two drafts side by side, files both and gets their links; a designer is not offered Start work nor sees that conversation; a reader has no Design link', async () => {
    model.script({
      match: 'ROUND-OP',
      turns: [
        { toolCalls: [{ name: 'read_file', input: { path: 'src/totals.ts' } }] },
        { toolCalls: drafts('ROUND-OP', 2) },
        { text: 'Two tickets: first the cents, then the receipts.' },
      ],
    });
    const p = await stand.newPage();
    await p.signIn('/dialog', 'operator');
    await p.heading('Design');
    await expect(p.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Design' }).getAttribute('aria-current')).resolves.toBe('page');
    // The list of projects arrives after the page: wait for the default to be chosen.
    await expect.poll(() => p.page.getByLabel('Project').inputValue(), { timeout: UI_TIMEOUT_MS }).toBe('shop');
    await p.page.getByRole('textbox', { name: 'Message' }).fill('ROUND-OP: plan rounding totals to cents');
    await p.page.getByRole('button', { name: 'Send' }).click();

    const messages = p.page.getByRole('list', { name: 'Messages' });
    await messages.getByText('Two tickets: first the cents, then the receipts.').waitFor({ timeout: 60_000 });
    expect(p.here()).toMatch(/^\/dialog\?c=[0-9a-f-]{36}$/);
    const cards = p.page.getByRole('list', { name: 'Drafts' }).getByRole('listitem').filter({ has: p.page.getByRole('heading', { level: 3 }) });
    await expect(cards.count()).resolves.toBe(2);
    // Side by side: the two cards share a row.
    const [a, b] = [await cards.nth(0).boundingBox(), await cards.nth(1).boundingBox()];
    expect(Math.abs(a!.y - b!.y)).toBeLessThan(2);
    expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
    await cards.nth(0).getByText('ROUND-OP totals 1 are in cents').waitFor({ timeout: UI_TIMEOUT_MS });

    await p.page.getByRole('checkbox', { name: 'Choose “ROUND-OP ticket 1”' }).check();
    await p.page.getByRole('checkbox', { name: 'Choose “ROUND-OP ticket 2”' }).check();
    expect(await p.page.getByRole('checkbox', { name: 'Start work' }).isChecked()).toBe(false);
    await inspectPage(p, 'dialog');
    await p.page.getByRole('button', { name: 'File tickets' }).click();
    const filed = p.page.getByRole('list', { name: 'Filed tickets' });
    await filed.waitFor({ timeout: UI_TIMEOUT_MS });
    await expect(filed.getByRole('link').count()).resolves.toBe(2);
    const issues = [...shop.issues.values()].filter((i) => i.title.startsWith('ROUND-OP'));
    expect(issues.map((i) => i.title).sort()).toEqual(['ROUND-OP ticket 1', 'ROUND-OP ticket 2']);
    expect(issues[0]!.body).toContain('## Acceptance criteria\n\n- [ ] ROUND-OP totals');
    expect(await filed.getByRole('link').first().getAttribute('href')).toMatch(/^https:\/\/github\.com\/acme\/shop-web\/issues\/\d+$/);
    // The cards now show where each draft went instead of a checkbox.
    await p.page.getByRole('list', { name: 'Drafts' }).getByText(/^Filed as/).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await expect(p.page.getByRole('checkbox', { name: /^Choose/ }).count()).resolves.toBe(0);
    await inspectPage(p, 'dialog-filed');
    // A phone-width window: the conversation list, the messages and the drafts stack in one column.
    await p.page.setViewportSize({ width: 390, height: 844 });
    await p.page.getByRole('heading', { name: 'Drafts' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'dialog-narrow');
    await p.page.setViewportSize({ width: 1280, height: 800 });

    // A designer: no Start work, and only their own conversations.
    model.script({ match: 'ROUND-DS', turns: [{ toolCalls: drafts('ROUND-DS', 1) }, { text: 'One ticket.' }] });
    const d = await stand.newPage();
    await d.signIn('/dialog', 'designer');
    await d.heading('Design');
    const list = d.page.getByRole('navigation', { name: 'Your conversations' });
    await list.getByText(/None yet/).waitFor({ timeout: UI_TIMEOUT_MS });
    await d.page.getByRole('textbox', { name: 'Message' }).fill('ROUND-DS: one more');
    await d.page.getByRole('button', { name: 'Send' }).click();
    await d.page.getByRole('list', { name: 'Messages' }).getByText('One ticket.').waitFor({ timeout: 60_000 });
    await d.page.getByRole('button', { name: 'File tickets' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await expect(d.page.getByRole('checkbox', { name: 'Start work' }).count()).resolves.toBe(0);
    await eventually(async () => ((await list.getByRole('link').count()) === 1 ? true : undefined), UI_TIMEOUT_MS, 'the designer\'s one conversation listed');
    await expect(list.getByText(/ROUND-OP/).count()).resolves.toBe(0);

    // A reader holds no dialog.write: no Design link.
    const r = await stand.newPage();
    await r.signIn('/runs', 'reader');
    await r.heading('Runs');
    await expect(r.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Design' }).count()).resolves.toBe(0);
  }, BROWSER_TEST_TIMEOUT_MS);
});
