import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, type Stand, UI_TIMEOUT_MS, browserUnavailable, inspectPage, startStand } from '../support/browser.js';

/**
 * The `/skills` page in a real browser against the built server: the package's skills, a
 * configured folder's (one of them malformed, one whose body carries markup), the detail view
 * with its files and its instructions rendered as text, and the page hidden from a caller
 * without catalog.read. Each view is scanned with axe-core in both themes.
 */
const HOSTILE = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>';

describe.skipIf(browserUnavailable)(`the skills page${browserUnavailable ? ` (skipped: ${browserUnavailable})` : ''}`, () => {
  let stand: Stand;
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'skills-browser-'));
    const style = join(folder, 'house-style');
    mkdirSync(join(style, 'examples'), { recursive: true });
    writeFileSync(join(style, 'SKILL.md'), `---\nname: house-style\ndescription: How we write code here.\npipelines: [code, pr-review]\n---\n# House style\n\nPrefer **small** functions.\n\n${HOSTILE}\n`);
    writeFileSync(join(style, 'examples', 'good.ts'), 'export const ok = 1;\n');
    mkdirSync(join(folder, 'broken'));
    writeFileSync(join(folder, 'broken', 'SKILL.md'), 'no front matter\n');
    stand = await startStand({ config: { skills: { paths: [folder] } } });
  }, 90_000);

  afterAll(async () => {
    await stand?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('lists the built-in and configured skills with their source and pipelines, and the one left out', async () => {
    const p = await stand.newPage();
    await p.signIn('/runs', 'reader');
    await p.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Skills' }).click();
    await p.heading('Skills');
    expect(p.here()).toBe('/skills');
    const table = p.page.getByRole('table', { name: 'Skills' });
    await table.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Name', 'Description', 'Source', 'Repository', 'Pipelines']);
    const security = table.getByRole('row').filter({ has: p.page.getByRole('link', { name: 'security-review' }) });
    await expect(security.getByRole('cell').allTextContents()).resolves.toEqual([
      'security-review', expect.stringContaining('reviewing code changes for security'), 'built in', '—', 'pr-review, security-scan',
    ]);
    const style = table.getByRole('row').filter({ has: p.page.getByRole('link', { name: 'house-style' }) });
    await expect(style.getByRole('cell').allTextContents()).resolves.toEqual(['house-style', 'How we write code here.', 'configured', '—', 'code, pr-review']);
    const leftOut = p.page.getByRole('list', { name: 'Skills left out' });
    await leftOut.getByText(`skill ${join(folder, 'broken')} is left out: SKILL.md must start with YAML front matter`).waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'skills');
  }, BROWSER_TEST_TIMEOUT_MS);

  it('shows one skill: its source, pipelines, files and instructions, markup in them as text', async () => {
    const p = await stand.newPage();
    await p.signIn('/skills', 'reader');
    await p.page.getByRole('table', { name: 'Skills' }).getByRole('link', { name: 'house-style' }).click();
    await p.heading('house-style');
    expect(p.here()).toBe('/skills/house-style');
    const main = p.page.getByRole('main');
    await main.getByText('How we write code here.').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await p.page.getByRole('list', { name: 'Files' }).getByRole('listitem').allTextContents()).toEqual(['examples/good.ts']);
    const instructions = p.page.getByRole('article', { name: 'Instructions' });
    await instructions.getByRole('heading', { name: 'House style' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await instructions.getByText('small', { exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    // The markup is shown, never run: no image, no script, the title untouched.
    await instructions.getByText(HOSTILE).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await instructions.locator('img, script').count()).toBe(0);
    expect(await p.page.title()).not.toBe('pwned');
    await inspectPage(p, 'skill-detail');
    // A deep link to a skill that does not exist says so.
    await p.goto('/skills/no-such-skill');
    await p.heading('no-such-skill');
    await main.getByText('no skill named "no-such-skill"', { exact: false }).waitFor({ timeout: UI_TIMEOUT_MS });
  }, BROWSER_TEST_TIMEOUT_MS);

  it('is not offered to a caller without catalog.read, and refuses them by the permission', async () => {
    const p = await stand.newPage();
    await p.signIn('/skills', 'nobody');
    await p.heading('Skills');
    await p.page.getByText('You may not see the skills.').waitFor({ timeout: UI_TIMEOUT_MS });
    await p.page.getByText('Missing permission: catalog.read').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await p.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Skills' }).count()).toBe(0);
  }, BROWSER_TEST_TIMEOUT_MS);
});
