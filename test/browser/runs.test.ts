import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, type DashboardPage, type PageGlobals, type Stand, UI_TIMEOUT_MS, browserUnavailable, inspectPage, startStand } from '../support/browser.js';
import { RUNS_ENV, labelIssue, runsConfig } from '../support/dashboard-runs.js';
import { eventually } from '../support/eventually.js';
import { GitRemotes } from '../support/git-remotes.js';

/**
 * The runs list in a real browser against the built server, signed in through the authority's
 * login form (code flow + PKCE), enforcement on, PostgreSQL and Redis for real; runs started by
 * signed webhook deliveries and controlled through the API, as a person and a script would.
 */
interface RunsBody { items: { id: string; state: string; ticket: string | null }[]; total: number }

const RUN_CONTROLS = /^(Cancel run|Retry run|Delete run|Answer)$/;
/** The runs page's filter form. */
const filters = (p: DashboardPage) => p.page.getByRole('search', { name: 'Filter runs' });

describe.skipIf(browserUnavailable)(`the runs list${browserUnavailable ? ` (skipped: ${browserUnavailable})` : ''}`, () => {
  let stand: Stand;
  let remotes: GitRemotes;
  beforeAll(async () => {
    remotes = await new GitRemotes().start();
    stand = await startStand({ config: runsConfig(remotes), env: RUNS_ENV });
  }, 90_000);
  afterAll(async () => {
    await stand?.stop();
    await remotes?.stop();
  });

  it('a reader signs in and lands on the deep link asked for: filters survive the sign-in round trip', async () => {
    const p = await stand.newPage();
    await p.signIn('/runs?state=failed', 'reader');
    expect(p.here()).toBe('/runs?state=failed');
    await p.heading('Runs');
    await p.page.getByText('Signed in as reader').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await filters(p).getByLabel('State').inputValue()).toBe('failed');
    await p.page.getByText('No run matches these filters.').waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'runs-filtered-empty');
  }, BROWSER_TEST_TIMEOUT_MS);

  it('a user with no roles opening /runs is told which permission is missing', async () => {
    const p = await stand.newPage();
    await p.signIn('/runs', 'nobody');
    await p.page.getByText('You may not see the runs.').waitFor({ timeout: UI_TIMEOUT_MS });
    await p.page.getByText('Missing permission: runs.read').waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'runs-forbidden');
  }, BROWSER_TEST_TIMEOUT_MS);

  it('a run started by a webhook shows up live for a reader, and an operator\'s cancel ends it in the open page without a reload; the reader is offered no run control', async () => {
    const p = await stand.newPage();
    await p.signIn('/runs', 'reader');
    await p.page.getByText('No runs yet.').waitFor({ timeout: UI_TIMEOUT_MS });
    await p.page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'runs-none-yet');
    // A marker on this document: a reload would lose it.
    await p.page.evaluate(() => { (globalThis as unknown as PageGlobals)['sameDocument'] = true; });

    expect(await labelIssue(stand.baseUrl, remotes, 4101)).toMatchObject({ status: 202 });
    // New runs wait behind a control rather than moving the list.
    await p.page.getByRole('button', { name: '1 new run' }).click({ timeout: UI_TIMEOUT_MS });
    const table = p.page.getByRole('table', { name: 'Runs' });
    const row = table.getByRole('row').filter({ hasText: '4101' });
    await row.filter({ hasText: 'running' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await row.textContent()).toContain('slow');
    await inspectPage(p, 'runs-live');

    const runs = await stand.api<RunsBody>('reader', 'GET', '/api/runs?ticket=4101');
    const id = runs.body.items[0]!.id;
    const cancel = await stand.api<{ run: { state: string } }>('operator', 'POST', `/api/runs/${id}/cancel`);
    expect(cancel).toMatchObject({ status: 202, body: { run: { state: 'cancelled' } } });
    await row.filter({ hasText: 'cancelled' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await p.page.evaluate(() => (globalThis as unknown as PageGlobals)['sameDocument'])).toBe(true);

    // The run's own page offers a reader none of the run's controls; Back returns to the list.
    await row.getByRole('link', { name: '4101', exact: true }).click();
    await p.page.waitForURL(`**/runs/${id}`);
    await p.page.getByRole('heading', { level: 1 }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await p.page.getByRole('button', { name: RUN_CONTROLS }).count()).toBe(0);
    await inspectPage(p, 'run-reader');
    await p.page.goBack();
    await row.filter({ hasText: 'cancelled' }).waitFor({ timeout: UI_TIMEOUT_MS });
  }, BROWSER_TEST_TIMEOUT_MS);

  it('keeps every filter in the URL: a shared link opens the same list, and Back restores the filters before', async () => {
    // A cancelled run of its own, so the test stands alone.
    expect(await labelIssue(stand.baseUrl, remotes, 4102)).toMatchObject({ status: 202 });
    const id = await eventually(async () => (await stand.api<RunsBody>('reader', 'GET', '/api/runs?ticket=4102')).body.items[0]?.id, UI_TIMEOUT_MS, 'run 4102');
    expect((await stand.api('operator', 'POST', `/api/runs/${id}/cancel`)).status).toBe(202);
    const p = await stand.newPage();
    await p.signIn('/runs', 'reader');
    const state = filters(p).getByLabel('State');
    const project = filters(p).getByLabel('Project');
    const table = p.page.getByRole('table', { name: 'Runs' });
    await table.waitFor({ timeout: UI_TIMEOUT_MS });

    await state.selectOption('cancelled');
    await p.page.waitForURL((url) => url.search === '?state=cancelled');
    await project.fill('nowhere');
    await project.press('Enter');
    await p.page.waitForURL((url) => url.searchParams.get('project') === 'nowhere' && url.searchParams.get('state') === 'cancelled');
    await p.page.getByText('No run matches these filters.').waitFor({ timeout: UI_TIMEOUT_MS });

    // A link to this list opens it as it is, in another tab.
    const shared = await stand.newPage();
    await shared.signIn(p.here(), 'reader');
    expect(new URL(shared.page.url()).searchParams.get('project')).toBe('nowhere');
    expect(await filters(shared).getByLabel('Project').inputValue()).toBe('nowhere');
    await shared.page.getByText('No run matches these filters.').waitFor({ timeout: UI_TIMEOUT_MS });

    await p.page.goBack();
    await p.page.waitForURL((url) => url.search === '?state=cancelled');
    await table.getByRole('row').filter({ hasText: '4102' }).filter({ hasText: 'cancelled' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await project.inputValue()).toBe('');
    expect(await state.inputValue()).toBe('cancelled');
    await p.page.goBack();
    await p.page.waitForURL((url) => url.pathname === '/runs' && url.search === '');
    expect(await state.inputValue()).toBe('');

    // Through the navigation and back.
    await p.page.getByRole('navigation').getByRole('link', { name: 'Findings' }).click();
    await p.heading('Findings');
    await inspectPage(p, 'findings');
    await p.page.goBack();
    await p.heading('Runs');
  }, BROWSER_TEST_TIMEOUT_MS);
});
