import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { BROWSER_TEST_TIMEOUT_MS, type Stand, browserUnavailable, inspectPage, startStand } from '../support/browser.js';

/**
 * The shell over every page, in a real browser against the built server (enforcement on, real
 * sign-in): the degraded banner follows the server's blocking findings live, without a reload.
 */

/** The banner polls the findings every 30 s; the server re-reads its file within a few seconds. */
const BANNER_WITHIN_MS = 45_000;

describe.skipIf(browserUnavailable)(`the shell${browserUnavailable ? ` (skipped: ${browserUnavailable})` : ''}`, () => {
  let stand: Stand;
  beforeAll(async () => {
    stand = await startStand({ config: {} });
  }, 90_000);
  afterAll(async () => {
    await stand?.stop();
  });

  it('shows the degraded banner, naming the number of blocking findings, while service.yml is broken, and drops it once the file is fixed', async () => {
    const p = await stand.newPage();
    await p.signIn('/runs', 'reader');
    await p.heading('Runs');
    const banner = p.page.getByRole('alert').filter({ hasText: /degraded/ });
    if ((await banner.count()) !== 0) throw new Error('the banner stands before anything is broken');

    // Broken YAML: the server keeps the last readable file in force, with a blocking finding.
    writeFileSync(stand.config.path, 'projects: [unclosed\n');
    const blocking = await eventually(async () => {
      const { body } = await stand.api<{ blocking: number }>('reader', 'GET', '/api/config/findings');
      return body.blocking > 0 ? body.blocking : undefined;
    }, BANNER_WITHIN_MS, 'the server to report the broken file');
    await banner.filter({ hasText: `${blocking} blocking finding` }).waitFor({ timeout: BANNER_WITHIN_MS });
    expect(await banner.textContent()).toContain(`degraded: ${blocking} blocking`);
    await inspectPage(p, 'runs-degraded');
    // It links to the findings, which name the file's problem.
    await banner.getByRole('link', { name: 'See the findings' }).click();
    await p.heading('Findings');

    stand.writeConfig({});
    await banner.waitFor({ state: 'detached', timeout: BANNER_WITHIN_MS });
  }, BROWSER_TEST_TIMEOUT_MS + 30_000);
});
