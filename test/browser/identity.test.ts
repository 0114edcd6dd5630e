import { afterAll, beforeAll, describe, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, DASHBOARD_AUDIENCE, type Stand, UI_TIMEOUT_MS, browserUnavailable, inspectPage, startStand } from '../support/browser.js';

/**
 * A refused token in a real browser: the authority's API registration names another audience
 * than the server's, so the sign-in succeeds at the authority and every token it hands the app is
 * refused by the server on `audience` (enforcement on). The dashboard says which check refused it
 * and what each side named, instead of looping through sign-in.
 */
const WRONG_AUDIENCE = 'api://another-registration';

describe.skipIf(browserUnavailable)(`a refused token${browserUnavailable ? ` (skipped: ${browserUnavailable})` : ''}`, () => {
  let stand: Stand;
  beforeAll(async () => {
    stand = await startStand({ tokenAudience: WRONG_AUDIENCE });
  }, 90_000);
  afterAll(async () => {
    await stand?.stop();
  });

  it('the runs page says the token was refused on its audience, naming the expected and the presented one', async () => {
    const p = await stand.newPage();
    await p.signIn('/runs', 'reader');
    await p.heading('Runs');
    const error = p.page.getByRole('main').getByText(`the token's audience '${WRONG_AUDIENCE}' is not the configured audience '${DASHBOARD_AUDIENCE}'`);
    await error.waitFor({ timeout: UI_TIMEOUT_MS });
    // No sign-in loop: the page stays (an audience refusal is not cured by signing in again).
    await p.page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'runs-refused-token');
  });

  it('the identity page names the check that refused the token, with the expected audience beside the presented one', async () => {
    const p = await stand.newPage();
    await p.signIn('/identity', 'reader');
    await p.heading('Identity');
    const main = p.page.getByRole('main');
    await main.getByRole('heading', { name: 'Your token was refused by the audience check' }).waitFor({ timeout: UI_TIMEOUT_MS });
    // The refusing row of the comparison: expected audience beside the presented one.
    const row = main.getByRole('row').filter({ hasText: 'refused here' });
    await row.getByText(DASHBOARD_AUDIENCE).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await row.getByText(WRONG_AUDIENCE).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await main.getByText(DASHBOARD_AUDIENCE).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await main.getByText(WRONG_AUDIENCE).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'identity-refused');
  }, BROWSER_TEST_TIMEOUT_MS);
});
