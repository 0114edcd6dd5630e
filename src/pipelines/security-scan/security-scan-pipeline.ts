import { type AgentFinding, AgentToolset } from '../../agent/agent-types.js';
import type { FailThreshold } from '../../config/service-config.js';
import { buildContextsBrief } from '../../agent/prompt/contexts-brief.js';
import { buildScanPrompt, buildChallengePrompt } from '../../agent/prompt/scan-prompt.js';
import { clipText } from '../../common/clip-text.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import { AgentRun, agentTrees } from '../agent-run/agent-session.js';
import type { AgentRunSupport } from '../agent-run/agent-support.js';
import { ContextsGateStep } from '../agent-run/contexts-gate.step.js';
import type { RepositoryContext } from '../contexts/index.js';
import type { Pipeline, PipelineStep, StepContext, StepResult } from '../pipeline.js';
import { RunEventKind } from '../run-event-kind.js';
import { Challenge, type ScanFinding, type ScannerReport, ScanTool } from './scan-finding.js';
import type { ScanTools } from './scan-tools.js';
import { SCAN_MARKER, scanSummaryComment, scanVerdict } from './scan-verdict.js';

/** Scanners, the refutation rounds, the report and the comment get this much on top of the review's agent step. */
const SCAN_ALLOWANCE_MS = 30 * 60_000;
/** Model calls a refutation may take (it reads a few files, then decides). */
const CHALLENGE_MAX_STEPS = 8;
/** A scanner finding this close to a model finding (same file) backs it. */
const BACKING_LINES = 3;

class ScanRun {
  contexts: RepositoryContext[] = [];
  reports: ScannerReport[] = [];
  model: ScannerReport = { tool: ScanTool.Model, name: 'model review', ran: false, note: 'not reached', findings: [], durationMs: 0 };
  assessment = '';
  readonly agent: AgentRun;

  constructor(readonly support: AgentRunSupport, readonly tools: ScanTools, readonly project: string, readonly failOn: FailThreshold, pipeline: string) {
    this.agent = new AgentRun(support, pipeline);
  }

  get all(): ScannerReport[] {
    return [...this.reports, this.model];
  }
}

/** The deterministic scanners: secrets in the tree and in history (on the server's mirror), the dependency audit (in the sandbox). */
class ScannersStep implements PipelineStep {
  readonly name = 'scanners';
  constructor(private readonly state: ScanRun) {}

  async run(context: StepContext): Promise<StepResult> {
    const { tools } = this.state;
    for (const entry of context.sandboxes) {
      // Findings name their repository only where there are several (SARIF locations start with it).
      const repo = context.sandboxes.length > 1 ? entry.repo?.name ?? null : null;
      const reports: ScannerReport[] = [];
      if (entry.committed) {
        reports.push(...await tools.secrets(entry.committed, repo, context.signal));
      } else {
        for (const name of ['secrets in the tree', 'secrets in history']) {
          reports.push({ tool: ScanTool.Secrets, name, ran: false, note: 'no repository: the run has no committed tree to read', findings: [], durationMs: 0 });
        }
      }
      reports.push(await tools.dependencies(entry.sandbox, repo, context.signal));
      for (const report of reports) {
        const named = { ...report, findings: report.findings.map((f) => ({ ...f, repo })) };
        this.state.reports.push(named);
        const status = report.ran ? `${report.findings.length} finding(s) in ${(report.durationMs / 1000).toFixed(1)} s` : 'not run';
        context.events.emit(RunEventKind.Agent, entry.sandbox.name, `${report.name}: ${status}${report.note ? ` (${report.note})` : ''}`);
      }
    }
    return { ok: true };
  }
}

/** The model reviews the code read-only, told what the scanners found. */
class ModelReviewStep implements PipelineStep {
  readonly name = 'review';
  constructor(private readonly state: ScanRun) {}

  async run(context: StepContext): Promise<StepResult> {
    const { support } = this.state;
    const trees = agentTrees(context.sandboxes);
    const prompt = buildScanPrompt({
      trees: trees.map((t, i) => ({ prefix: t.prefix, from: describeStart(context.sandboxes[i]!) })),
      scanners: this.state.reports.map((r) => ({ name: r.name, ran: r.ran, note: r.note, findings: r.findings.map(describeFinding) })),
      contextsBrief: buildContextsBrief(this.state.contexts, { secrets: support.secrets }),
      secrets: support.secrets,
    });
    const started = Date.now();
    const session = await this.state.agent.session(context, AgentToolset.Review, trees);
    const outcome = await session.send(scrubSecrets(prompt, support.secrets));
    this.state.agent.close(session);
    const repoOf = (path: string): { repo: string | null; path: string } => {
      const tree = trees.find((t) => t.prefix !== null && path.startsWith(`${t.prefix}/`));
      return tree ? { repo: tree.prefix, path: path.slice(tree.prefix!.length + 1) } : { repo: null, path };
    };
    const findings = session.findings.map((f) => modelFinding(f, repoOf(f.path)));
    if (outcome.kind !== 'finished') {
      const why = outcome.kind === 'asked' ? `it asked instead: ${outcome.question}` : outcome.kind === 'failed' ? outcome.error : outcome.reason;
      return { ok: false, error: `the security review agent did not finish: ${oneLine(why)}` };
    }
    this.state.assessment = outcome.summary.trim();
    this.state.model = { tool: ScanTool.Model, name: 'model review', ran: true, note: null, findings, durationMs: Date.now() - started };
    context.events.emit(RunEventKind.Agent, null, `the security review finished with ${findings.length} finding(s)`);
    return { ok: true };
  }
}

/** Each model finding no scanner backs is challenged once by a fresh conversation that tries to refute it. */
class ChallengeStep implements PipelineStep {
  readonly name = 'challenge';
  constructor(private readonly state: ScanRun) {}

  async run(context: StepContext): Promise<StepResult> {
    const { support } = this.state;
    const backing = this.state.reports.flatMap((r) => r.findings);
    const trees = agentTrees(context.sandboxes);
    for (const finding of this.state.model.findings) {
      if (backedBy(finding, backing)) {
        finding.challenge = Challenge.Confirmed;
        context.events.emit(RunEventKind.Agent, null, `${describeFinding(finding)}: backed by a scanner, not challenged`);
        continue;
      }
      if (context.signal.aborted) return { ok: false, error: 'stopped during the refutation round' };
      const prefix = trees.length > 1 ? finding.repo : null;
      const session = await this.state.agent.session(context, AgentToolset.Review, trees, { maxSteps: CHALLENGE_MAX_STEPS });
      const outcome = await session.send(scrubSecrets(buildChallengePrompt({ ...finding, path: prefix ? `${prefix}/${finding.path}` : finding.path }, support.secrets), support.secrets));
      this.state.agent.close(session);
      finding.challenge = outcome.kind !== 'finished' ? Challenge.NotChallenged : /^\s*REFUTED\b/i.test(outcome.summary) ? Challenge.Refuted : Challenge.Confirmed;
      const why = outcome.kind === 'finished' ? oneLine(outcome.summary) : `the challenge did not finish (${outcome.kind}); the finding stands`;
      context.events.emit(RunEventKind.Agent, null, `${describeFinding(finding)}: ${finding.challenge} — ${why}`);
    }
    return { ok: true };
  }
}

/** SARIF and markdown stored with the run, a summary comment, and the verdict against `fail_on`. */
class ReportStep implements PipelineStep {
  readonly name = 'report';
  constructor(private readonly state: ScanRun) {}

  async run(context: StepContext): Promise<StepResult> {
    const { support, tools } = this.state;
    const reports = this.state.all;
    const verdict = scanVerdict(reports, this.state.failOn);
    const title = `security-scan of ${context.sandboxes.map(describeStart).join(', ')}`;
    if (context.artifacts) {
      await context.artifacts.save('security-scan.sarif', 'application/sarif+json', tools.sarif(reports));
      await context.artifacts.save('security-scan.md', 'text/markdown; charset=utf-8', tools.markdown(reports, title));
      context.events.emit(RunEventKind.Agent, null, 'report stored: security-scan.sarif, security-scan.md');
    }
    const comment = scanSummaryComment({ reports, verdict, assessment: this.state.assessment, runId: context.runId, secrets: support.secrets });
    const problems: string[] = [];
    const pulls = context.sandboxes.filter((s) => s.pullRequest && s.repo);
    for (const entry of pulls) {
      try {
        await support.reviewsFor!(entry.repo!).upsertComment(entry.pullRequest!.number, comment, SCAN_MARKER);
        context.events.emit(RunEventKind.Publish, entry.sandbox.name, `summary posted on pull request #${entry.pullRequest!.number}`);
      } catch (error) {
        problems.push(`the summary could not be posted on pull request #${entry.pullRequest!.number}: ${(error as Error).message}`);
      }
    }
    if (pulls.length === 0 && support.commentOnTicket) {
      try {
        await support.commentOnTicket(comment);
        context.events.emit(RunEventKind.Publish, null, 'summary posted on the ticket');
      } catch (error) {
        problems.push(`the summary could not be posted on the ticket: ${(error as Error).message}`);
      }
    }
    for (const problem of problems) context.events.emit(RunEventKind.Publish, null, problem);
    if (!verdict.passed) return { ok: false, error: verdict.text };
    return { ok: true, summary: verdict.text };
  }
}

function modelFinding(f: AgentFinding, where: { repo: string | null; path: string }): ScanFinding {
  const slug = f.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'finding';
  return {
    tool: ScanTool.Model, ruleId: `model/${slug}`, severity: f.severity, title: f.title, detail: f.detail, suggestion: f.suggestion,
    repo: where.repo, path: where.path, line: f.line, endLine: f.endLine, commit: null, challenge: Challenge.NotChallenged,
  };
}

function backedBy(finding: ScanFinding, scanners: readonly ScanFinding[]): boolean {
  const end = finding.endLine ?? finding.line;
  return scanners.some((s) => s.commit === null && s.repo === finding.repo && s.path === finding.path
    && s.line >= finding.line - BACKING_LINES && s.line <= end + BACKING_LINES);
}

function describeFinding(f: ScanFinding): string {
  return `${f.severity} ${f.repo ? `${f.repo}/` : ''}${f.path}:${f.line} ${oneLine(f.title)}`;
}

function describeStart(entry: StepContext['sandboxes'][number]): string {
  const repo = entry.repo?.name ?? 'the sandbox';
  if (entry.pullRequest) return `${repo} pull request #${entry.pullRequest.number} (${entry.pullRequest.head})`;
  return entry.committed ? `${repo} at ${entry.committed.commit.slice(0, 12)}` : repo;
}

function oneLine(text: string): string {
  return clipText(text.replace(/\s+/g, ' ').trim(), 300);
}

/**
 * The built-in `security-scan` pipeline: gate → scanners → review (the model, read-only) →
 * challenge (each unbacked model finding once) → report (SARIF and markdown artifacts, the
 * summary comment, the verdict against `security_scan.fail_on`). Nothing is published.
 */
export function securityScanPipeline(support: AgentRunSupport, tools: ScanTools, project: string, failOn: FailThreshold, name = 'security-scan'): Pipeline {
  const run = new ScanRun(support, tools, project, failOn, name);
  return {
    name,
    steps: [
      new ContextsGateStep(project, (contexts) => { run.contexts = contexts; }),
      new ScannersStep(run),
      new ModelReviewStep(run),
      new ChallengeStep(run),
      new ReportStep(run),
    ],
    timeoutMs: 2 * support.agent.step_timeout_seconds * 1000 + SCAN_ALLOWANCE_MS,
  };
}
