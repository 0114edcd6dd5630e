import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { BROWSER_TEST_TIMEOUT_MS, type DashboardPage, type Stand, UI_TIMEOUT_MS, browserUnavailable, inspectPage, startStand } from '../support/browser.js';
import { eventually } from '../support/eventually.js';

/**
 * The admin pages in a real browser against the built server (enforcement on, real sign-in,
 * PostgreSQL and Redis for real), driven as an administrator would: found by role and accessible
 * name, each refusal read where the person acted, each effect checked through the API a script
 * would call. One stand for the file; the tests build on each other in order (a role created in
 * one is held in the next), as an installation being set up would.
 *
 * Admin comes only from the `roles` claim (no SERVICE_ADMIN_GRANT, no grant, no group mapping),
 * so taking the role claim away would leave no route to admin: that refusal is real here.
 */

/** A person the directory gives no roles: whatever they hold comes from a grant on People. */
const NEWCOMER = 'newcomer';
const SECRET_NAME = 'SHOP_TOKEN';
/** A value no page or answer may ever carry back. */
const SECRET_VALUE = `shop-token-${randomBytes(12).toString('hex')}`;
/** A literal secret in an import, where a `${NAME}` reference belongs. */
const LITERAL = `sk-literal-${randomBytes(12).toString('hex')}`;
const LIVE_KEY = 'queue.max_parallel_runs';
/** The four routes to admin as the page words them (refusal.ts's ADMIN_ROUTE_LABELS). */
const FOUR_ROUTES = [
  'a person granted admin (People)',
  'a group mapped onto admin (Groups)',
  'a role claim the installation reads, seen carrying admin (Claim names)',
  'a non-empty SERVICE_ADMIN_GRANT (the environment)',
];
const ADMIN_NAV = ['Access', 'Configuration', 'Secrets', 'Changes'];

interface ConfigBody { keys: { key: string; value: unknown; source: string }[] }
interface PeopleBody { people: { claim: string; value: string; lastSeen: string | null; roles: string[] }[] }

const visible = { timeout: UI_TIMEOUT_MS };
/** The server writes what it observed of callers every 5 s, off the request path; slack for a loaded machine. */
const OBSERVED_WITHIN_MS = 30_000;

describe.skipIf(browserUnavailable)(`the admin pages${browserUnavailable ? ` (skipped: ${browserUnavailable})` : ''}`, () => {
  let stand: Stand;
  beforeAll(async () => {
    stand = await startStand({
      // A webhook secret referencing the stored secret: once set, the server resolves it into its
      // configuration, which is exactly where a value could leak back into an answer.
      config: { webhooks: { platform_a_secret: `\${${SECRET_NAME}}` } },
      env: { SERVICE_SECRETS_KEY: randomBytes(32).toString('base64') },
    });
  }, 90_000);
  afterAll(async () => {
    await stand?.stop();
  });

  const configKey = async (key: string) => {
    const { status, body } = await stand.api<ConfigBody>('admin', 'GET', '/api/config');
    expect(status).toBe(200);
    return body.keys.find((k) => k.key === key);
  };
  const adminPage = async (path: string, heading: string): Promise<DashboardPage> => {
    const p = await stand.newPage();
    await p.signIn(path, 'admin');
    await p.heading(heading);
    return p;
  };
  const tab = (p: DashboardPage, name: string) => p.page.getByRole('tab', { name, exact: true });

  it('an administrator grants a role to a person seen earlier, and that person\'s next request has it', async () => {
    // The newcomer signs in first and is refused the runs: the directory gives them nothing.
    const newcomer = await stand.newPage();
    await newcomer.signIn('/runs', NEWCOMER);
    await newcomer.page.getByText('Missing permission: runs.read').waitFor(visible);
    expect((await stand.api('newcomer', 'GET', '/api/runs')).status).toBe(403);
    // Observations are written off the request path: the newcomer is listed once seen.
    await eventually(async () => {
      const { body } = await stand.api<PeopleBody>('admin', 'GET', `/api/access/people?q=${NEWCOMER}`);
      return body.people.find((x) => x.value === NEWCOMER && x.lastSeen !== null);
    }, OBSERVED_WITHIN_MS, 'the newcomer to be seen');

    const p = await adminPage('/access/people', 'Access');
    await p.page.getByText('applies from each caller\'s next request').waitFor(visible);
    const row = p.page.getByRole('table', { name: 'People' }).getByRole('row').filter({ hasText: NEWCOMER });
    expect(await row.textContent()).toContain('no roles');
    await row.getByRole('button', { name: `Edit roles of ${NEWCOMER}` }).click();
    const dialog = p.page.getByRole('dialog', { name: `Roles granted to ${NEWCOMER}` });
    await dialog.getByRole('checkbox', { name: 'reader', exact: true }).check();
    await inspectPage(p, 'access-people-grant-dialog');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await p.page.getByRole('status').filter({ hasText: `Saved roles of sub=${NEWCOMER}: reader. It applies from their next request.` }).waitFor(visible);
    await row.filter({ hasText: 'granted here' }).waitFor(visible);

    // Their very next request holds it: no new token, no sign-in again.
    expect((await stand.api('newcomer', 'GET', '/api/runs')).status).toBe(200);
    await newcomer.page.reload();
    await newcomer.heading('Runs');
    await newcomer.page.getByText('No runs yet.').waitFor(visible);
    expect(await newcomer.page.getByText('Missing permission: runs.read').count()).toBe(0);
  }, BROWSER_TEST_TIMEOUT_MS);

  it('a custom role is created on Roles; a built-in name is refused at the field with what was typed kept; removing a held role names its holders', async () => {
    const p = await adminPage('/access/roles', 'Access');
    const create = async (name: string, permissions: string[]) => {
      await p.page.getByRole('button', { name: 'Create a role' }).click();
      const dialog = p.page.getByRole('dialog', { name: 'Create a role' });
      await dialog.getByLabel('Role name').fill(name);
      for (const permission of permissions) await dialog.getByRole('checkbox', { name: permission, exact: true }).check();
      await dialog.getByRole('button', { name: 'Save role' }).click();
      return dialog;
    };
    await create('auditor', ['runs.read', 'diagnostics.read']);
    await p.page.getByRole('status').filter({ hasText: 'Saved role auditor' }).waitFor(visible);
    const auditor = p.page.getByRole('table', { name: 'Custom roles' }).getByRole('row').filter({ hasText: 'auditor' });
    expect(await auditor.textContent()).toContain('diagnostics.read, runs.read');

    // "Admin" folds onto the built-in admin: refused at the name field; the dialog keeps everything typed.
    const refused = await create('Admin', ['runs.read', 'catalog.read']);
    await refused.getByRole('alert').filter({ hasText: 'Not saved: see the marked field.' }).waitFor(visible);
    await refused.getByText('reader, operator and admin are built-in role names in any case').waitFor(visible);
    const name = refused.getByLabel('Role name');
    expect(await name.inputValue()).toBe('Admin');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await refused.getByRole('checkbox', { name: 'runs.read', exact: true }).isChecked()).toBe(true);
    expect(await refused.getByRole('checkbox', { name: 'catalog.read', exact: true }).isChecked()).toBe(true);
    await inspectPage(p, 'access-roles-builtin-refused');
    await refused.getByRole('button', { name: 'Cancel' }).click();
    expect((await stand.api<{ custom: { name: string }[] }>('admin', 'GET', '/api/access/roles')).body.custom.map((r) => r.name)).toEqual(['auditor']);

    // Grant it to the newcomer on People, then try to remove it on Roles.
    await tab(p, 'People').click();
    await p.page.getByRole('button', { name: `Edit roles of ${NEWCOMER}` }).click();
    const grant = p.page.getByRole('dialog', { name: `Roles granted to ${NEWCOMER}` });
    await grant.getByRole('checkbox', { name: 'auditor', exact: true }).check();
    await grant.getByRole('button', { name: 'Save', exact: true }).click();
    await p.page.getByRole('status').filter({ hasText: new RegExp(`Saved roles of sub=${NEWCOMER}: (reader, auditor|auditor, reader)\\.`) }).waitFor(visible);
    await tab(p, 'Roles').click();
    await p.page.getByRole('button', { name: 'Remove role auditor' }).click();
    const remove = p.page.getByRole('dialog', { name: 'Remove role auditor?' });
    await remove.getByRole('button', { name: 'Remove role' }).click();
    const holders = remove.getByRole('alert').filter({ hasText: 'This role is still held. Withdraw it from each holder first:' });
    await holders.getByRole('listitem').filter({ hasText: `person sub=${NEWCOMER} (granted here)` }).waitFor(visible);
    await inspectPage(p, 'access-roles-held-refused');
    await remove.getByRole('button', { name: 'Close' }).click();
    expect((await stand.api<{ custom: { name: string }[] }>('admin', 'GET', '/api/access/roles')).body.custom.map((r) => r.name)).toEqual(['auditor']);
  }, BROWSER_TEST_TIMEOUT_MS);

  it('a claim-name change that would leave no route to admin is refused, naming the four routes, with the typed value kept', async () => {
    // The only route is the role claim (admin arrives in `roles`): renaming it takes that away.
    const before = (await stand.api<{ claimNames: { role_claim: string }; adminRoutes: string[] }>('admin', 'GET', '/api/access')).body;
    expect(before).toMatchObject({ claimNames: { role_claim: 'roles' }, adminRoutes: ['role-claim'] });

    const p = await adminPage('/access/claims', 'Access');
    const roleClaim = p.page.getByLabel('Role claim');
    await roleClaim.fill('app_roles');
    await p.page.getByRole('button', { name: 'Save claim names' }).click();
    const alert = p.page.getByRole('alert').filter({ hasText: 'Refused: this change would leave no route to admin. Keep at least one of these four:' });
    await alert.waitFor(visible);
    expect(await alert.getByRole('listitem').allTextContents()).toEqual(FOUR_ROUTES);
    expect(await roleClaim.inputValue()).toBe('app_roles');
    await inspectPage(p, 'access-claims-no-route-refused');
    expect((await stand.api<{ claimNames: { role_claim: string } }>('admin', 'GET', '/api/access')).body.claimNames.role_claim).toBe('roles');
  }, BROWSER_TEST_TIMEOUT_MS);

  it('a setting saved on Configuration applies live, and reverting its change on Changes brings the value back', async () => {
    const original = await configKey(LIVE_KEY);
    expect(original).toMatchObject({ source: 'default' });
    const next = (original!.value as number) + 3;

    const p = await adminPage('/config', 'Configuration');
    await p.page.getByLabel('Filter keys').fill(LIVE_KEY);
    await p.page.getByRole('button', { name: `Edit ${LIVE_KEY}` }).click();
    await p.page.getByLabel(`New value of ${LIVE_KEY}`).fill(String(next));
    await p.page.getByRole('button', { name: 'Save setting' }).click();
    await p.page.getByRole('status').filter({ hasText: `Saved ${LIVE_KEY}; applied on every replica within a second, no restart.` }).waitFor(visible);
    // The running server holds it now, from the store; the page's row says the same.
    expect(await configKey(LIVE_KEY)).toMatchObject({ value: next, source: 'store' });
    const keyRow = p.page.getByRole('table', { name: 'Every key in force' }).getByRole('row').filter({ hasText: LIVE_KEY });
    await keyRow.filter({ hasText: String(next) }).filter({ hasText: 'store' }).waitFor(visible);

    await p.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Changes' }).click();
    await p.heading('Changes');
    const change = p.page.getByRole('table', { name: 'Changes' }).getByRole('row').filter({ hasText: LIVE_KEY }).first();
    await change.getByRole('button', { name: /^Before and after of change \d+$/ }).click();
    const diff = p.page.getByRole('table', { name: /^Change \d+: before and after$/ });
    expect(await diff.textContent()).toContain(String(next));
    const revert = change.getByRole('button', { name: /^Revert change \d+$/ });
    const id = (await revert.getAttribute('aria-label'))!.replace('Revert change ', '');
    await revert.click();
    const dialog = p.page.getByRole('dialog', { name: `Revert change #${id}?` });
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    await p.page.getByRole('status').filter({ hasText: `Reverted change #${id}; the revert is change #` }).waitFor(visible);
    expect(await configKey(LIVE_KEY)).toMatchObject({ value: original!.value, source: 'default' });
  }, BROWSER_TEST_TIMEOUT_MS);

  it('an import with problems lists every one on Changes and changes nothing', async () => {
    // What an import would replace (settings, access records) and the change feed; `lastSeen`
    // left out, since the admin's own requests move it.
    const snapshot = async () => Promise.all([
      stand.api('admin', 'GET', '/api/config'),
      stand.api('admin', 'GET', '/api/config/settings'),
      stand.api<PeopleBody>('admin', 'GET', '/api/access/people').then((r) => r.body.people.map(({ lastSeen: _, ...person }) => person)),
      stand.api('admin', 'GET', '/api/access/roles'),
      stand.api('admin', 'GET', '/api/access/groups'),
      stand.api('admin', 'GET', '/api/config/changes'),
    ]);
    const before = await snapshot();

    const p = await adminPage('/changes', 'Changes');
    // The export, downloaded as a person would, is the document edited into a broken one.
    const [download] = await Promise.all([
      p.page.waitForEvent('download'),
      p.page.getByRole('button', { name: 'Download the configuration' }).click(),
    ]);
    const doc = parseYaml(readFileSync((await download.path())!, 'utf8')) as { configuration: Record<string, Record<string, unknown>> };
    doc.configuration['queue'] = { ...doc.configuration['queue'], max_parallel_runs: 'many' };
    doc.configuration['agent'] = { ...doc.configuration['agent'], api_key: LITERAL };
    const form = p.page.getByRole('form', { name: 'Import a configuration' });
    await form.getByLabel('Configuration document (.yaml or .json)').setInputFiles({ name: 'broken.yaml', mimeType: 'application/yaml', buffer: Buffer.from(toYaml(doc)) });
    await form.getByRole('button', { name: 'Import', exact: true }).click();
    await p.page.getByRole('dialog', { name: 'Import this configuration?' }).getByRole('button', { name: 'Import', exact: true }).click();
    const alert = form.getByRole('alert').filter({ hasText: 'The import was refused; nothing was applied. Every problem found:' });
    await alert.waitFor(visible);
    const problems = await alert.getByRole('listitem').allTextContents();
    expect(problems.map((x) => x.split(':')[0]).sort()).toEqual(['configuration.agent.api_key', 'configuration.queue.max_parallel_runs']);
    await inspectPage(p, 'changes-import-refused');
    expect(await p.page.content()).not.toContain(LITERAL);

    expect(await snapshot()).toEqual(before);
  }, BROWSER_TEST_TIMEOUT_MS);

  it('an operator sees no admin navigation, and a direct link to /config or /access/people gets the panel naming the missing permission', async () => {
    const p = await stand.newPage();
    await p.signIn('/runs', 'operator');
    await p.heading('Runs');
    const nav = p.page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Runs' }).waitFor(visible);
    for (const name of ADMIN_NAV) expect(await nav.getByRole('link', { name, exact: true }).count(), name).toBe(0);

    const direct = await stand.newPage();
    await direct.signIn('/config', 'operator');
    await direct.heading('Configuration');
    await direct.page.getByText('You may not see the configuration.').waitFor(visible);
    await direct.page.getByText('Missing permission: config.read').waitFor(visible);
    // No empty tables or forms around the refusal.
    expect(await direct.page.getByRole('table').count()).toBe(0);
    await inspectPage(direct, 'config-forbidden');

    await p.goto('/access/people');
    await p.heading('Access');
    await p.page.getByText('You may not see the Access surface.').waitFor(visible);
    await p.page.getByText('Missing permission: access.read').waitFor(visible);
    expect(await p.page.getByRole('tab').count()).toBe(0);
    await inspectPage(p, 'access-forbidden');
  }, BROWSER_TEST_TIMEOUT_MS);

  it('a secret set on Secrets never comes back: not in any admin page nor any answer the browser received; every admin page passes axe', async () => {
    const p = await stand.newPage();
    // Every answer and every hub frame this page receives, scanned at the end.
    const bodies: Promise<string>[] = [];
    const frames: string[] = [];
    p.page.on('response', (response) => { bodies.push(response.text().catch(() => '')); });
    p.page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => { frames.push(String(payload)); }));
    // The control: the value did pass through this browser (in the one request that sets it).
    const sent: string[] = [];
    p.page.on('request', (request) => { sent.push(request.postData() ?? ''); });
    const pages: string[] = [];
    const look = async (name: string) => {
      pages.push(await p.page.content());
      await inspectPage(p, name);
    };

    await p.signIn('/secrets', 'admin');
    await p.heading('Secrets');
    const references = p.page.getByRole('table', { name: 'Referenced by the configuration' });
    await references.getByRole('row').filter({ hasText: SECRET_NAME }).filter({ hasText: 'nowhere: unresolved' }).waitFor(visible);
    const form = p.page.getByRole('form', { name: 'Set a secret' });
    await form.getByLabel('Name', { exact: true }).fill(SECRET_NAME);
    await form.getByLabel('Value', { exact: true }).fill(SECRET_VALUE);
    await form.getByRole('button', { name: 'Save secret' }).click();
    await p.page.getByRole('status').filter({ hasText: `Saved secret ${SECRET_NAME}, used by webhooks.platform_a_secret.` }).waitFor(visible);
    expect(await form.getByLabel('Value', { exact: true }).inputValue()).toBe('');
    await p.page.getByRole('table', { name: 'Stored secrets' }).getByRole('row').filter({ hasText: SECRET_NAME }).waitFor(visible);
    await references.getByRole('row').filter({ hasText: SECRET_NAME }).filter({ hasText: 'stored here' }).waitFor(visible);
    await look('secrets');

    // Every admin page, through the navigation and the Access tabs (one document, no reload).
    const nav = p.page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Configuration' }).click();
    await p.heading('Configuration');
    await p.page.getByRole('table', { name: 'Every key in force' }).getByRole('row').filter({ hasText: 'webhooks.platform_a_secret' }).filter({ hasText: 'resolves from a stored secret' }).waitFor(visible);
    await look('config');
    await nav.getByRole('link', { name: 'Changes' }).click();
    await p.heading('Changes');
    const secretChange = p.page.getByRole('table', { name: 'Changes' }).getByRole('row').filter({ hasText: SECRET_NAME }).first();
    await secretChange.getByRole('button', { name: /^Before and after of change \d+$/ }).click();
    await p.page.getByRole('table', { name: /^Change \d+: before and after$/ }).waitFor(visible);
    await look('changes');
    await nav.getByRole('link', { name: 'Access' }).click();
    await p.heading('Access');
    for (const [pane, name] of [['People', 'access-people'], ['Groups', 'access-groups'], ['Roles', 'access-roles'], ['Claim names', 'access-claims']] as const) {
      await tab(p, pane).click();
      await p.page.getByRole('tabpanel', { name: pane }).waitFor(visible);
      await p.page.getByRole('tabpanel').getByRole('status').filter({ hasText: /^Loading/ }).waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
      await look(name);
    }

    expect(sent.filter((body) => body.includes(SECRET_VALUE))).toHaveLength(1);
    const received = [...await Promise.all(bodies), ...frames];
    expect(received.length).toBeGreaterThan(10);
    const leaks = [...received, ...pages].filter((text) => text.includes(SECRET_VALUE));
    expect(leaks, 'the secret value came back').toEqual([]);
  }, BROWSER_TEST_TIMEOUT_MS + 60_000);
});
