import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { CONTEXT_FILES } from '../agent/support/code-scenarios.js';
import { commitFiles } from '../stand-ins/git-repositories.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { BROWSER_TEST_TIMEOUT_MS, type DashboardPage, type PageGlobals, type Stand, UI_TIMEOUT_MS, browserUnavailable, inspectPage, startStand } from '../support/browser.js';
import { RUNS_ENV, TRIGGER_LABEL, labelIssueOf } from '../support/dashboard-runs.js';
import { eventually } from '../support/eventually.js';
import { type CodeHost, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';

/**
 * One run's page in a real browser against the built server (enforcement on, real code + PKCE
 * sign-in, PostgreSQL and Redis for real): its events arrive live in the log, an operator cancels
 * it and answers a parked run's question through the page's own controls, a reader is offered
 * none of them. Tickets live on the GitHub stand-in (which also serves the repository); runs are
 * started by signed `issues` `labeled` deliveries. The `code` agent talks to the model stand-in,
 * which is scripted to call `ask`, so the parked run is parked the way production parks it.
 */
interface RunsBody { items: { id: string; state: string }[] }

const RUN_CONTROLS = /^(Cancel run|Retry run|Delete run|Answer)$/;
/** The label that starts the `code` pipeline (the trigger label starts `ticker`). */
const CODE_LABEL = 'agent-code';

describe.skipIf(browserUnavailable)(`a run's page${browserUnavailable ? ` (skipped: ${browserUnavailable})` : ''}`, () => {
  let stand: Stand;
  let host: CodeHost;
  let model: ModelStandIn;
  let root: string;
  /** `ticker` prints two lines, then waits until this file exists before printing `tick-5`. */
  let gate: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'run-page-browser-'));
    gate = join(root, 'gate');
    const token = `run-page-${randomBytes(10).toString('hex')}`;
    const apiKey = `sk-model-${randomBytes(10).toString('hex')}`;
    host = await startCodeHost(Platform.GitHub, root, token, 'greeter');
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    model = await ModelStandIn.start({ apiKey });
    // The command never spells `tick-5` (a command is its step's name, itself a log line): the
    // shell builds it, so the word in the log can only be the command's output.
    const ticker = `for i in 1 2; do echo tick-$i; done; while [ ! -e '${gate}' ]; do sleep 0.2; done; i=5; echo tick-$i; sleep 600`;
    stand = await startStand({
      env: RUNS_ENV,
      config: {
        git: GIT_IDENTITY,
        pipelines: { ticker: { commands: [ticker], timeout_seconds: 900 } },
        sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
        agent: { provider: 'openai', model: 'gpt-5.1', base_url: model.baseUrl, api_key: apiKey, max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
        projects: {
          app: {
            tracker: 'platform-a',
            repos: [host.repoEntry()],
            platform_a_trigger: { pipeline_from_label: { [TRIGGER_LABEL]: 'ticker', [CODE_LABEL]: 'code' }, done_status: 'done', needs_clarification_status: 'needs-info' },
          },
        },
      },
    });
  }, 90_000);
  afterAll(async () => {
    await stand?.stop();
    await model?.close();
    await host?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const repositoryUrl = () => String(host.repoEntry()['url']);
  /** Opens issue `ticket` on the stand-in and labels it; resolves with the run's id once it exists. */
  async function startRun(ticket: number, label: string, title = `Ticket ${ticket}`, description = 'Made by the run page tests.'): Promise<string> {
    host.addTicket(String(ticket), title, description);
    expect(await labelIssueOf(stand.baseUrl, repositoryUrl(), ticket, label)).toMatchObject({ status: 202 });
    return eventually(async () => (await stand.api<RunsBody>('reader', 'GET', `/api/runs?ticket=${ticket}`)).body.items[0]?.id, UI_TIMEOUT_MS, `the run of ticket ${ticket}`);
  }
  const runState = async (id: string) => (await stand.api<{ state: string }>('reader', 'GET', `/api/runs/${id}`)).body.state;
  const log = (p: DashboardPage) => p.page.getByRole('region', { name: 'Run log' });
  /** The state shown in the run's header (the first field of its description list). */
  const headerState = (p: DashboardPage, state: string) => p.page.getByRole('main').getByRole('definition').filter({ hasText: new RegExp(`^${state}$`) });
  const mark = (p: DashboardPage) => p.page.evaluate(() => { (globalThis as unknown as PageGlobals)['sameDocument'] = true; });
  const sameDocument = (p: DashboardPage) => p.page.evaluate(() => (globalThis as unknown as PageGlobals)['sameDocument']);

  it('an operator watches a running run\'s output arrive live in its log, then cancels it from the page and sees it end cancelled without a reload', async () => {
    const p = await stand.newPage();
    await p.signIn('/runs', 'operator');
    await p.heading('Runs');
    const id = await startRun(5101, TRIGGER_LABEL);
    // Into the run's page inside the app (a full navigation would be a new document).
    await p.page.getByRole('button', { name: '1 new run' }).click({ timeout: UI_TIMEOUT_MS });
    await p.page.getByRole('table', { name: 'Runs' }).getByRole('row').filter({ hasText: '5101' }).getByRole('link', { name: '5101', exact: true }).click({ timeout: UI_TIMEOUT_MS });
    await p.page.waitForURL(`**/runs/${id}`);
    await mark(p);

    await log(p).getByText('tick-1').waitFor({ timeout: UI_TIMEOUT_MS });
    await log(p).getByText('tick-2').waitFor({ timeout: UI_TIMEOUT_MS });
    await headerState(p, 'running').waitFor({ timeout: UI_TIMEOUT_MS });
    // The command waits at the gate: `tick-5` cannot be in the log yet, only after it opens.
    expect(await log(p).getByText('tick-5').count()).toBe(0);
    await inspectPage(p, 'run-running');
    writeFileSync(gate, '');
    await log(p).getByText('tick-5').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await sameDocument(p)).toBe(true);

    // Cancel through the page: the dialog asks, its own "Cancel run" confirms.
    const main = p.page.getByRole('main');
    await main.getByRole('button', { name: 'Cancel run' }).click();
    const dialog = p.page.getByRole('alertdialog', { name: 'Cancel this run?' });
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await dialog.waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    await headerState(p, 'cancelled').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await runState(id)).toBe('cancelled');
    expect(await sameDocument(p)).toBe(true);
    // Now "Cancel run" is refused with its reason, and "Retry run" offered.
    const cancel = main.getByRole('button', { name: 'Cancel run' });
    await eventually(async () => ((await cancel.isDisabled()) ? true : undefined), UI_TIMEOUT_MS, '"Cancel run" to be disabled');
    const reason = await cancel.getAttribute('aria-describedby');
    expect(reason).toBeTruthy();
    expect(await p.page.locator(`[id="${reason}"]`).textContent()).toBe('Cancel run: The run has ended (cancelled); only a queued, running or parked run can be cancelled.');
    expect(await main.getByRole('button', { name: 'Retry run' }).isEnabled()).toBe(true);
    // The cancel reached the executor: the run's log says its commands were stopped.
    await log(p).getByText(/commands killed and sandboxes removed/).waitFor({ timeout: UI_TIMEOUT_MS });
    // The live log is the stored one, line for line: a reload would show the same lines (the
    // hub's ticket transitions, which are no stored event, have no place in it).
    await eventually(async () => {
      const stored = (await stand.api<{ items: { seq: number }[] }>('reader', 'GET', `/api/runs/${id}/events?limit=1000`)).body.items.map((e) => `line-${e.seq}`);
      const shown = await log(p).locator('[id^="line-"]').evaluateAll((lines) => lines.map((line) => (line as unknown as { id: string }).id));
      return JSON.stringify(shown) === JSON.stringify(stored) ? true : undefined;
    }, UI_TIMEOUT_MS, 'the live log to hold exactly the stored events');
    expect(await sameDocument(p)).toBe(true);
    await inspectPage(p, 'run-cancelled');
  }, BROWSER_TEST_TIMEOUT_MS);

  it('a reader on a running run\'s page is offered none of the run\'s controls', async () => {
    const id = await startRun(5102, TRIGGER_LABEL);
    const p = await stand.newPage();
    await p.signIn(`/runs/${id}`, 'reader');
    // The page has loaded the run and its events (the controls would be there by now).
    await log(p).getByText('tick-1').waitFor({ timeout: UI_TIMEOUT_MS });
    await headerState(p, 'running').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await p.page.getByRole('button', { name: RUN_CONTROLS }).count()).toBe(0);
    expect(await p.page.getByRole('textbox', { name: 'Your answer' }).count()).toBe(0);
    await inspectPage(p, 'run-running-reader');
    expect((await stand.api('operator', 'POST', `/api/runs/${id}/cancel`)).status).toBe(202);
  }, BROWSER_TEST_TIMEOUT_MS);

  it('an operator answers a parked run\'s question from its page; the page links the run that resumes the ticket, and a second answer is refused with 409', async () => {
    const title = 'Greet visitors in their language';
    model.script({ match: title, turns: [{ toolCalls: [{ name: 'ask', input: { kind: 'question', question: 'Formal or informal German? QUESTION-5103' } }] }] });
    // The resumed run finishes at once.
    model.script({ match: 'ANSWER-5103', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Nothing to change.' } }] }] });
    const id = await startRun(5103, CODE_LABEL, title);
    await eventually(async () => {
      const state = await runState(id);
      if (['succeeded', 'failed', 'cancelled'].includes(state)) throw new Error(`the run ended ${state} instead of parking`);
      return state === 'parked' ? true : undefined;
    }, 60_000, 'the run to park');

    // A reader sees the question but no answer box and no control.
    const reader = await stand.newPage();
    await reader.signIn(`/runs/${id}`, 'reader');
    const question = reader.page.getByRole('region', { name: 'The agent handed the ticket back with a question' });
    await question.getByText('Formal or informal German? QUESTION-5103').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await reader.page.getByRole('button', { name: RUN_CONTROLS }).count()).toBe(0);
    expect(await question.getByRole('textbox').count()).toBe(0);

    const p = await stand.newPage();
    await p.signIn(`/runs/${id}`, 'operator');
    const panel = p.page.getByRole('region', { name: 'The agent handed the ticket back with a question' });
    await panel.getByText('Formal or informal German? QUESTION-5103').waitFor({ timeout: UI_TIMEOUT_MS });
    await headerState(p, 'parked').waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'run-parked');
    await mark(p);
    const field = panel.getByRole('textbox', { name: 'Your answer' });
    const answer = panel.getByRole('button', { name: 'Answer' });
    expect(await answer.isDisabled()).toBe(true); // nothing typed yet
    await field.fill('Informal, please. ANSWER-5103');
    await answer.click();

    // The page says it was answered and links the new run; the question shows who answered it.
    const sent = panel.getByRole('status').filter({ hasText: 'Answered: the ticket resumes in' });
    await sent.waitFor({ timeout: UI_TIMEOUT_MS });
    const next = await sent.getByRole('link', { name: 'a new run' }).getAttribute('href');
    expect(next).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
    expect(next).not.toBe(`/runs/${id}`);
    await panel.getByText(/Answered by operator \(dashboard\)/).waitFor({ timeout: UI_TIMEOUT_MS });
    await panel.getByRole('link', { name: 'the run that resumed the ticket' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await field.count()).toBe(0); // the answer box is gone once answered
    expect(await sameDocument(p)).toBe(true);
    expect(await runState(id)).not.toBe('parked');
    await inspectPage(p, 'run-answered');

    // The first answer won: a second one is refused.
    const again = await stand.api<{ error: string }>('operator', 'POST', `/api/runs/${id}/answer`, { answer: 'formal after all' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBeTruthy();

    // The resumed run's page opens from the link.
    await panel.getByRole('link', { name: 'a new run' }).click();
    await p.page.waitForURL(`**${next}`);
    await p.page.getByRole('heading', { level: 1, name: 'Run of 5103' }).waitFor({ timeout: UI_TIMEOUT_MS });
  }, BROWSER_TEST_TIMEOUT_MS);

  it('a failed code run shows its acceptance criteria; an operator judges one through the dialog (a reason required), the run stays failed; a reader may not judge', async () => {
    const title = 'Greet with criteria CRIT-5104';
    const description = ['## Acceptance criteria', '', '- [ ] greeting.txt says hello', '- [ ] the greeting is in French', '- [ ] the tests pass'].join('\n');
    model.script({
      match: 'CRIT-5104',
      turns: [
        { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
        { toolCalls: [
          { name: 'report_criterion', input: { id: 'c1', verdict: 'met', evidence: 'greeting.txt holds hello' } },
          { name: 'report_criterion', input: { id: 'c2', verdict: 'unmet', evidence: 'The tests require English.' } },
          { name: 'report_criterion', input: { id: 'c3', verdict: 'met', evidence: 'sh test.sh passes' } },
        ] },
        { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt.' } }] },
      ],
    });
    const id = await startRun(5104, CODE_LABEL, title, description);
    await eventually(async () => (['succeeded', 'failed', 'cancelled'].includes(await runState(id)) ? true : undefined), 60_000, 'the run to end');
    expect(await runState(id)).toBe('failed');

    // A reader sees the criteria, and no way to judge them.
    const reader = await stand.newPage();
    await reader.signIn(`/runs/${id}`, 'reader');
    const readerTable = reader.page.getByRole('table', { name: 'Acceptance criteria' });
    await readerTable.getByRole('row').filter({ hasText: 'the greeting is in French' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await reader.page.getByRole('button', { name: /^Judge/ }).count()).toBe(0);

    const p = await stand.newPage();
    await p.signIn(`/runs/${id}`, 'operator');
    await headerState(p, 'failed').waitFor({ timeout: UI_TIMEOUT_MS });
    const table = p.page.getByRole('table', { name: 'Acceptance criteria' });
    const c2 = table.getByRole('row').filter({ has: p.page.getByRole('rowheader', { name: 'c2' }) });
    await c2.getByText('Unmet').waitFor({ timeout: UI_TIMEOUT_MS });
    await c2.getByText('The tests require English.').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await table.getByRole('row').count()).toBe(4); // the header and three criteria
    await inspectPage(p, 'run-criteria');
    await mark(p);

    await c2.getByRole('button', { name: 'Judge c2' }).click();
    const dialog = p.page.getByRole('dialog', { name: 'Judge c2' });
    await dialog.waitFor({ timeout: UI_TIMEOUT_MS });
    const record = dialog.getByRole('button', { name: 'Record judgement' });
    expect(await record.isDisabled()).toBe(true); // no reason yet
    await dialog.getByRole('radio', { name: 'Not applicable' }).check();
    await dialog.getByRole('textbox', { name: 'Reason (required)' }).fill('French was dropped from the scope. JUDGED-5104');
    await inspectPage(p, 'run-criteria-judge-dialog');
    await record.click();
    await dialog.waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });

    // The judgement shows beside the agent's verdict, attributed; the run did not change.
    await c2.getByText('French was dropped from the scope. JUDGED-5104').waitFor({ timeout: UI_TIMEOUT_MS });
    await c2.getByText(/^by operator,/).waitFor({ timeout: UI_TIMEOUT_MS });
    await c2.getByText('Not applicable').waitFor({ timeout: UI_TIMEOUT_MS });
    await headerState(p, 'failed').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await sameDocument(p)).toBe(true);
    const run = (await stand.api<{ state: string; criteria: { id: string; judgement: { verdict: string; by: string } | null }[] }>('reader', 'GET', `/api/runs/${id}`)).body;
    expect(run.state).toBe('failed');
    expect(run.criteria.find((c) => c.id === 'c2')?.judgement).toMatchObject({ verdict: 'not_applicable', by: 'operator' });
    // The reader's page follows through the hub.
    await readerTable.getByText('French was dropped from the scope. JUDGED-5104').waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'run-criteria-judged');
  }, BROWSER_TEST_TIMEOUT_MS);

  it('the pull requests, statistics and findings pages pass the accessibility scan once loaded; Statistics shows the criteria counts the API gives', async () => {
    const p = await stand.newPage();
    await p.signIn('/pull-requests', 'reader');
    await p.heading('Pull requests');
    await p.page.getByRole('main').getByText('Loading pull requests…').waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'pull-requests');

    await p.page.getByRole('navigation').getByRole('link', { name: 'Statistics' }).click();
    await p.heading('Statistics');
    await p.page.getByText('Loading the figures…').waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    await p.page.getByText('Loading the charts…').waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    // The criteria tiles show the API's counts; the judgement of the test above is one overruling.
    const { criteria } = (await stand.api<{ criteria: { met: number; unmet: number; notApplicable: number; overruled: number } }>('reader', 'GET', '/api/runs/statistics')).body;
    expect(criteria.overruled).toBeGreaterThan(0);
    const tile = (label: string) => p.page.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd');
    expect(await tile('Criteria met / unmet / n\\.a\\.').textContent()).toBe(`${criteria.met} / ${criteria.unmet} / ${criteria.notApplicable}`);
    expect(await tile('Criteria overruled').textContent()).toBe(String(criteria.overruled));
    await inspectPage(p, 'statistics');

    await p.page.getByRole('navigation').getByRole('link', { name: 'Findings' }).click();
    await p.heading('Findings');
    await p.page.getByRole('table', { name: 'Subsystems' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await inspectPage(p, 'findings-loaded');
  }, BROWSER_TEST_TIMEOUT_MS);
});
