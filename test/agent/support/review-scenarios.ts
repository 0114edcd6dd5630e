import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../../src/platforms/platform.js';
import { branchTip, commitFiles, git, setBranchTip } from '../../stand-ins/git-repositories.js';
import { ModelStandIn, type ScriptedTurn } from '../../stand-ins/model-stand-in.js';
import { type CodeHost, DONE_STATUS, type HostKind, type ReviewComment, startCodeHost } from '../../workspaces/support/code-hosts.js';
import { eventually } from '../../support/eventually.js';
import { GIT_IDENTITY } from '../../workspaces/support/publish-config.js';
import { PublishServer } from '../../workspaces/support/publish-server.js';
import { CONTEXT_FILES, PROVIDER_OF } from './code-scenarios.js';

/** `src/greeter.ts` on main: thirty numbered greetings, so a finding's line is easy to place. */
const GREETER = Array.from({ length: 30 }, (_, i) => `export const g${i + 1} = 'hello ${i + 1}';`);

/** The feature branch: lines 10–14 of the greeter changed, ten appended, a new file of twelve lines. */
const FEATURE_FILES = {
  'src/greeter.ts': [
    ...GREETER.slice(0, 9),
    ...GREETER.slice(9, 14).map((l) => l.replace('hello', 'HELLO')),
    ...GREETER.slice(14),
    ...Array.from({ length: 10 }, (_, i) => `export const g${i + 31} = 'hello ${i + 31}';`),
    '',
  ].join('\n'),
  'src/farewell.ts': [...Array.from({ length: 11 }, (_, i) => `export const f${i + 1} = 'bye ${i + 1}';`), "export const marker = 'DIFF-MARKER-9d4';", ''].join('\n'),
};

/** The 27 changed new-side lines, the new file's first: its first two findings are the least severe. */
const CHANGED_POSITIONS: readonly { path: string; line: number }[] = [
  ...Array.from({ length: 12 }, (_, i) => ({ path: 'src/farewell.ts', line: i + 1 })),
  ...[10, 11, 12, 13, 14, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40].map((line) => ({ path: 'src/greeter.ts', line })),
];

const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

interface ScriptedFinding {
  path: string;
  line: number;
  end_line?: number;
  severity: string;
  title: string;
  detail: string;
}

/**
 * One review's findings, titled `<tag>-…`: 27 on changed lines (the first two `info`, reported
 * first, so only a severity ranking keeps them out of the 25 inline; one a range of changed
 * lines), one on an unchanged line of a changed file, one in a file the diff does not touch.
 */
function reviewFindings(tag: string): { anchorable: ScriptedFinding[]; inline: ScriptedFinding[]; summary: ScriptedFinding[] } {
  const anchorable = CHANGED_POSITIONS.map(({ path, line }, i): ScriptedFinding => ({
    path,
    line,
    ...(path === 'src/greeter.ts' && line === 31 ? { end_line: 33 } : {}),
    severity: i < 2 ? 'info' : SEVERITIES[i % SEVERITIES.length]!,
    title: `${tag}-F${String(i).padStart(2, '0')}`,
    detail: `Detail of ${tag} finding ${i}.`,
  }));
  const unchangedLine = { path: 'src/greeter.ts', line: 3, severity: 'high', title: `${tag}-UNCHANGED`, detail: 'On a line the change did not touch.' };
  const outsideDiff = { path: 'README.md', line: 1, severity: 'critical', title: `${tag}-OUTSIDE`, detail: 'In a file the change did not touch.' };
  return { anchorable: [...anchorable, unchangedLine, outsideDiff], inline: anchorable.slice(2), summary: [anchorable[0]!, anchorable[1]!, unchangedLine, outsideDiff] };
}

/** A review conversation: look around, report every finding in one answer, finish with `assessment`. */
function reviewTurns(findings: readonly ScriptedFinding[], assessment: string): ScriptedTurn[] {
  return [
    { toolCalls: [{ name: 'read_file', input: { path: 'src/greeter.ts' } }, { name: 'bash', input: { command: 'wc -l src/farewell.ts' } }], text: 'Reading the change first.' },
    { toolCalls: findings.map((f) => ({ name: 'report_finding', input: { ...f } })) },
    { toolCalls: [{ name: 'finish', input: { summary: assessment } }] },
  ];
}

/** New-side lines the change adds, per file, from git's own zero-context diff of the merge base and the head. */
function changedLinesOf(bare: string, base: string, head: string): Map<string, Set<number>> {
  const from = git(['merge-base', base, head], { cwd: bare });
  const lines = new Map<string, Set<number>>();
  let current: Set<number> | null = null;
  for (const text of git(['diff', '-U0', '--no-color', from, head], { cwd: bare }).split('\n')) {
    if (text.startsWith('+++ ')) {
      current = text.startsWith('+++ b/') ? new Set() : null;
      if (current) lines.set(text.slice(6), current);
      continue;
    }
    const hunk = /^@@ -\S+ \+(\d+)(?:,(\d+))? @@/.exec(text);
    if (hunk && current) {
      const start = Number(hunk[1]);
      for (let line = start; line < start + Number(hunk[2] ?? 1); line++) current.add(line);
    }
  }
  return lines;
}

/** Every branch and its commit: a review pushes nothing, so this must not change. */
function branchTips(bare: string): string {
  return git(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads'], { cwd: bare });
}

const inlineOf = (comments: readonly ReviewComment[]) => comments.filter((c) => c.path !== null);
/** An inline comment's heading is `**<Severity>: <title>**` (GitLab puts a range's lines above it). */
const titleOfInline = (comment: ReviewComment) => /^\*\*\w+: (\S+)\*\*$/m.exec(comment.body)?.[1] ?? null;

/**
 * The `pr-review` pipeline end to end on one code host: the whole server, a real git remote behind
 * the host's stand-in with a pull request open on it, and the model stand-in replaying scripted
 * findings over the provider's real wire format. What the pull request shows afterwards (the
 * service's comments, their places, their verdicts), what the model was sent, the run's events
 * and the remote's branches are what is asserted.
 */
export function describeReviewPipeline(kind: HostKind): void {
  describe(`the pr-review pipeline end to end on ${kind}`, () => {
    const token = `e2e-review-${randomBytes(10).toString('hex')}`;
    const apiKey = `sk-model-${randomBytes(10).toString('hex')}`;
    const tickets = { withPullRequest: '51', withoutPullRequest: '52' };
    let root: string;
    let host: CodeHost;
    let model: ModelStandIn;
    let server: PublishServer;

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'review-e2e-'));
      host = await startCodeHost(kind, root, token, 'greeter');
      commitFiles(host.bare, 'main', { ...CONTEXT_FILES, 'src/greeter.ts': `${GREETER.join('\n')}\n` }, 'Add the contexts and the greeter');
      commitFiles(host.bare, 'feature', FEATURE_FILES, 'Warmer greetings', 'main');
      // Before any pull request: GitHub's issues and pull requests share one number sequence.
      for (const ticket of Object.values(tickets)) host.addTicket(ticket, `Ticket ${ticket}`, 'Review the change.');
      model = await ModelStandIn.start({ apiKey });
      const { provider, model: name, base } = PROVIDER_OF[kind];
      server = await PublishServer.boot({
        git: GIT_IDENTITY,
        // Model-driven pipelines on this host: the opt-in for development and tests.
        sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
        agent: { provider, model: name, base_url: base(model), api_key: apiKey, max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
        projects: { app: { ...host.trackerConfig(DONE_STATUS[kind], 'pr-review'), repos: [host.repoEntry()] } },
      });
    }, 60_000);

    afterAll(async () => {
      await server?.close();
      await model?.close();
      await host?.stop();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const review = (number: number) => server.runOnPullRequest(kind, 'app', { repo: host.name, number }, 'pr-review', 60_000);
    const pushes = () => host.standIn.requests.filter((r) => r.path.endsWith('/git-receive-pack') || r.query.get('service') === 'git-receive-pack');

    it('posts the 25 most severe findings on changed lines inline and the rest in one summary, commenting only, pushing nothing', async () => {
      const title = 'REVIEW-PLACEMENT-3e1';
      const number = host.openPullRequest({ head: 'feature', title, description: 'Warmer greetings. DESCRIPTION-MARKER-1a2.' });
      const findings = reviewFindings('R1');
      model.script({ match: title, turns: reviewTurns(findings.anchorable, 'ASSESSMENT-ONE: mostly fine.') });
      const tips = branchTips(host.bare);

      const { runId, state, error } = await review(number);
      expect({ state, error }).toEqual({ state: 'succeeded', error: null });

      // 25 inline comments, each on a changed new-side line of its file (git's own diff says which).
      const changed = changedLinesOf(host.bare, 'main', 'feature');
      const comments = host.serviceReviewComments(number);
      const inline = inlineOf(comments);
      expect(inline).toHaveLength(25);
      for (const comment of inline) expect(changed.get(comment.path!)?.has(comment.line!), `${comment.path}:${comment.line}`).toBe(true);
      // Exactly the non-info findings on changed lines, each where the model put it.
      expect(inline.map(titleOfInline).sort()).toEqual(findings.inline.map((f) => f.title).sort());
      for (const finding of findings.inline) {
        const comment = inline.find((c) => titleOfInline(c) === finding.title)!;
        expect(comment.path).toBe(finding.path);
        expect(comment.line).toBeGreaterThanOrEqual(finding.line);
        expect(comment.line).toBeLessThanOrEqual(finding.end_line ?? finding.line);
      }

      // One summary: the assessment, the counts, and the findings not posted inline.
      const summaries = host.summaryComments(number);
      expect(summaries).toHaveLength(1);
      expect(comments).toHaveLength(26);
      const summary = summaries[0]!;
      expect(summary).toContain('ASSESSMENT-ONE: mostly fine.');
      expect(summary).toContain('25 posted on the changed lines');
      for (const finding of findings.summary) expect(summary).toContain(`\`${finding.path}:${finding.line}\`: ${finding.title}.`);
      for (const finding of findings.inline) expect(summary).not.toContain(`${finding.title}.`);

      // Comments only: never an approval nor a request for changes.
      expect(host.reviewVerdicts(number)).toEqual(kind === Platform.GitHub ? ['COMMENT'] : []);
      // Nothing reached the repository.
      expect(branchTips(host.bare)).toBe(tips);
      expect(pushes()).toEqual([]);

      // The model got the description and the diff, each inside its own untrusted-data block.
      const calls = model.modelCalls().filter((r) => r.body.includes(title));
      expect(calls).toHaveLength(3);
      const first = calls[0]!.text;
      expect(first).toMatch(/<untrusted-data source="pull-request-description" id="(\w+)">[^]*DESCRIPTION-MARKER-1a2[^]*<\/untrusted-data id="\1">/);
      expect(first).toMatch(/<untrusted-data source="pull-request-diff" id="(\w+)">[^]*\+export const marker = 'DIFF-MARKER-9d4';[^]*<\/untrusted-data id="\1">/);
      expect(first).toContain('src/greeter.ts`: modified; lines 10-14, 31-40');
      // The read-only tools ran on the pull request's head.
      expect(calls[1]!.text).toContain("export const g10 = 'HELLO 10';");
      expect(calls[1]!.text).toMatch(/12 src\/farewell\.ts/);

      // Every model call and tool call is an event; the run's usage is kept.
      const events = await server.events(runId);
      expect(events.filter((e) => e.kind === 'model-call')).toHaveLength(3);
      expect(events.filter((e) => e.kind === 'tool-call').map((e) => e.text.split(/[: ]/)[0]))
        .toEqual(['read_file', 'bash', ...findings.anchorable.map(() => 'report_finding'), 'finish']);
      const resource = await server.get<{ usage: { modelCalls: number; inputTokens: number; outputTokens: number } }>(`/api/runs/${runId}`);
      expect(resource.body.usage.modelCalls).toBe(3);
      expect(resource.body.usage.inputTokens).toBeGreaterThan(0);
      expect(resource.body.usage.outputTokens).toBeGreaterThan(0);
    }, 90_000);

    it('a second review of the pull request replaces the first: as many service comments as before, only the new texts', async () => {
      setBranchTip(host.bare, 'feature-again', branchTip(host.bare, 'feature')!);
      const number = host.openPullRequest({ head: 'feature-again', title: 'REVIEW-AGAIN-8c0', description: 'PASS-ONE-4f2' });
      model.script({ match: 'PASS-ONE-4f2', turns: reviewTurns(reviewFindings('P1').anchorable, 'ASSESSMENT-P1.') });
      const tips = branchTips(host.bare);
      const first = await review(number);
      expect({ state: first.state, error: first.error }).toEqual({ state: 'succeeded', error: null });
      const before = host.serviceReviewComments(number);
      expect(before).toHaveLength(26);

      // The author edits the description; the next review is told the new one.
      host.describePullRequest(number, 'PASS-TWO-6d3');
      const findings = reviewFindings('P2');
      model.script({ match: 'PASS-TWO-6d3', turns: reviewTurns(findings.anchorable, 'ASSESSMENT-P2.') });
      const second = await review(number);
      expect({ state: second.state, error: second.error }).toEqual({ state: 'succeeded', error: null });

      const after = host.serviceReviewComments(number);
      expect(after).toHaveLength(before.length);
      expect(after.filter((c) => /P1-|ASSESSMENT-P1/.test(c.body))).toEqual([]);
      expect(inlineOf(after).map(titleOfInline).sort()).toEqual(findings.inline.map((f) => f.title).sort());
      const summaries = host.summaryComments(number);
      expect(summaries).toHaveLength(1);
      expect(summaries[0]).toContain('ASSESSMENT-P2.');
      expect(summaries[0]).toContain('P2-OUTSIDE');
      const published = (await server.events(second.runId)).filter((e) => e.kind === 'publish').map((e) => e.text);
      expect(published.join('\n')).toMatch(/the previous review's \d+ comment\(s\) replaced/);

      expect(host.reviewVerdicts(number)).toEqual(kind === Platform.GitHub ? ['COMMENT', 'COMMENT'] : []);
      expect(branchTips(host.bare)).toBe(tips);
      expect(pushes()).toEqual([]);
    }, 120_000);

    it("a fork's pull request is reviewed on the fork's head, fetched through the base repository", async () => {
      const fork = join(root, `${kind}-fork.git`);
      git(['clone', '--quiet', '--bare', host.bare, fork]);
      commitFiles(fork, 'patch-1', { 'src/fork-only.ts': "export const forked = 'FORK-MARKER-2b7';\n" }, 'A contribution', 'main');
      const title = 'FORK-PR-7e5';
      const number = host.openPullRequest({ head: 'patch-1', title, fork: { repository: fork, owner: 'contributor' } });
      model.script({
        match: title,
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: 'src/fork-only.ts' } }] },
          { toolCalls: [{ name: 'report_finding', input: { path: 'src/fork-only.ts', line: 1, severity: 'low', title: 'FORK-FINDING', detail: 'Named oddly.' } }] },
          { toolCalls: [{ name: 'finish', input: { summary: 'ASSESSMENT-FORK.' } }] },
        ],
      });
      const tips = branchTips(host.bare);

      const { state, error } = await review(number);
      expect({ state, error }).toEqual({ state: 'succeeded', error: null });
      expect(model.modelCalls().filter((r) => r.body.includes(title))[1]!.text).toContain('FORK-MARKER-2b7');
      expect(inlineOf(host.serviceReviewComments(number)).map((c) => [c.path, c.line, titleOfInline(c)])).toEqual([['src/fork-only.ts', 1, 'FORK-FINDING']]);
      expect(host.summaryComments(number)).toEqual([expect.stringContaining('ASSESSMENT-FORK.')]);
      expect(branchTips(host.bare)).toBe(tips);
      expect(pushes()).toEqual([]);
    }, 90_000);

    it("a ticket's pr-review reviews the open pull request of its work branch", async () => {
      const ticket = tickets.withPullRequest;
      const branch = `service/${ticket}`;
      commitFiles(host.bare, branch, { 'src/welcome.ts': "export const welcome = 'hi';\nexport const TICKET_LINE = 2;\n" }, 'Welcome', 'main');
      const title = 'TICKET-PR-5b2';
      const number = host.openPullRequest({ head: branch, title, description: 'The ticket work.' });
      model.script({
        match: title,
        turns: [
          { toolCalls: [{ name: 'report_finding', input: { path: 'src/welcome.ts', line: 2, severity: 'medium', title: 'TICKET-FINDING', detail: 'Unused.' } }] },
          { toolCalls: [{ name: 'finish', input: { summary: 'ASSESSMENT-TICKET.' } }] },
        ],
      });
      const tips = branchTips(host.bare);

      const { state, error } = await server.run(kind, 'app', ticket, 'pr-review', 60_000);
      expect({ state, error }).toEqual({ state: 'succeeded', error: null });
      await eventually(() => (host.labels(ticket).includes('service:done') ? true : undefined), 15_000, `${ticket} to be service:done`);
      const first = model.modelCalls().find((r) => r.body.includes(title))!;
      expect(first.text).toContain(`Pull request #${number}: \`${branch}\` into \`main\``);
      const comments = host.serviceReviewComments(number);
      expect(inlineOf(comments).map((c) => [c.path, c.line, titleOfInline(c)])).toEqual([['src/welcome.ts', 2, 'TICKET-FINDING']]);
      expect(host.summaryComments(number)).toEqual([expect.stringContaining('ASSESSMENT-TICKET.')]);
      expect(branchTips(host.bare)).toBe(tips);
      expect(pushes()).toEqual([]);
    }, 90_000);

    it('a ticket without an open pull request fails naming its work branch, without calling the model', async () => {
      const ticket = tickets.withoutPullRequest;
      const calls = model.modelCalls().length;
      const { runId, state, error } = await server.run(kind, 'app', ticket, 'pr-review', 60_000);
      expect(state).toBe('failed');
      expect(error).toContain(`no open pull request of branch service/${ticket}`);
      // The ticket says why, in its failure comment.
      const said = await eventually(() => host.comments(ticket).find((c) => c.includes(runId)), 15_000, `the failure comment on ${ticket}`);
      expect(said).toContain(`service/${ticket}`);
      await eventually(() => (host.labels(ticket).includes('service:failed') ? true : undefined), 15_000, `${ticket} to be service:failed`);
      expect(model.modelCalls()).toHaveLength(calls);
    }, 90_000);
  });
}
