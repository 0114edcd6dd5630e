import { type AgentOutcome, type AgentSession, AgentToolset } from '../../agent/agent-types.js';
import { cutOutput } from '../../agent/output-cut.js';
import { buildContextsBrief } from '../../agent/prompt/contexts-brief.js';
import { buildConversationBrief, resumedHandBack } from '../../agent/prompt/conversation-brief.js';
import { buildTaskPrompt } from '../../agent/prompt/task-prompt.js';
import { buildTicketBrief } from '../../agent/prompt/ticket-brief.js';
import { clipText } from '../../common/clip-text.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import { AgentRun, agentTrees } from '../agent-run/agent-session.js';
import { ContextsGateStep } from '../agent-run/contexts-gate.step.js';
import type { RepositoryContext } from '../contexts/index.js';
import type { Pipeline, PipelineStep, RunSandbox, StepContext, StepResult } from '../pipeline.js';
import { RunEventKind } from '../run-event-kind.js';
import type { AgentRunSupport } from '../agent-run/agent-support.js';
import { reportCriterionTool } from '../../agent/tools/report-criterion.tool.js';
import { type CommandsOutcome, type ContextCommands, runContextCommands } from './context-commands.js';
import { CriteriaLedger, CriteriaStep } from './criteria-ledger.js';

/** Setup, build and test around two agent steps (work and one repair round) get this much on top. */
const COMMANDS_ALLOWANCE_MS = 60 * 60_000;
/** Failing output handed to the model in the repair round: head and tail of it. */
const REPAIR_OUTPUT_CHARS = 12_000;

/** What the steps of one `code` run share. */
class CodeRun {
  contexts: RepositoryContext[] = [];
  session: AgentSession | null = null;
  summary: string | null = null;

  readonly agent: AgentRun;
  readonly criteria: CriteriaLedger;

  constructor(readonly support: AgentRunSupport, readonly project: string, readonly ticket: string | null, pipeline: string) {
    this.agent = new AgentRun(support, pipeline);
    this.criteria = new CriteriaLedger(support.criteria);
  }

  sandboxFor(sandboxes: readonly RunSandbox[], repo: string | null): RunSandbox {
    const found = sandboxes.find((s) => (s.repo?.name ?? null) === repo);
    if (!found) throw new Error(`no sandbox for repository ${repo ?? '(default)'}`);
    return found;
  }

  commands(phase: ContextCommands['phase']): ContextCommands[] {
    return this.contexts.map((c) => ({ repo: c.repo, context: c.name, path: c.path, phase, commands: c[phase] }))
      .filter((set) => set.commands.length > 0);
  }
}

/** Each context's `setup` commands, before the model sees the tree. */
class SetupStep implements PipelineStep {
  readonly name = 'setup';
  constructor(private readonly state: CodeRun) {}

  async run(context: StepContext): Promise<StepResult> {
    for (const set of this.state.commands('setup')) {
      const outcome = await runContextCommands(this.state.sandboxFor(context.sandboxes, set.repo).sandbox, set, context);
      if (!outcome.ok) return { ok: false, error: outcome.error };
    }
    return { ok: true };
  }
}

/** The model works on the ticket until it finishes, asks, or a budget ends it. */
class AgentStep implements PipelineStep {
  readonly name = 'agent';
  constructor(private readonly state: CodeRun) {}

  async run(context: StepContext): Promise<StepResult> {
    const { support } = this.state;
    const trees = agentTrees(context.sandboxes);
    const ticket = await support.ticketText();
    if (ticket?.criteria) await this.state.criteria.take(ticket.criteria, context);
    const criteria = this.state.criteria.criteria;
    const ticketBrief = ticket
      ? buildTicketBrief({
        ticketId: ticket.ticket, platform: ticket.platform, title: ticket.title, description: ticket.description, comments: ticket.comments, secrets: support.secrets,
        criteria, criteriaDropped: ticket.criteria?.dropped ?? 0,
      })
      : '';
    const conversation = (await support.conversation?.()) ?? null;
    const handBack = resumedHandBack(conversation);
    const prompt = buildTaskPrompt({
      ticketBrief,
      contextsBrief: buildContextsBrief(this.state.contexts, { secrets: support.secrets }),
      trees: trees.map((t) => ({ prefix: t.prefix })),
      resumed: context.sandboxes.some((s) => s.resumed === true),
      conversationBrief: conversation ? buildConversationBrief(conversation, support.secrets) : '',
      handBack: handBack ? { kind: handBack.kind, answered: handBack.answer !== null } : null,
      hasCriteria: criteria.length > 0,
    });
    // `report_criterion` only where there is something to report on: a run without criteria is as before.
    const extraTools = criteria.length > 0 ? [reportCriterionTool(this.state.criteria)] : [];
    const session = await this.state.agent.session(context, AgentToolset.Code, trees, { extraTools });
    this.state.session = session;
    return endedAgentStep(this.state, await session.send(scrubSecrets(prompt, support.secrets)), context);
  }
}

/** A one-line run error for every way an agent step can end other than `finished`. */
function endedAgentStep(run: CodeRun, outcome: AgentOutcome, context: StepContext): StepResult {
  switch (outcome.kind) {
    case 'finished':
      run.summary = outcome.summary.trim() || run.summary;
      context.events.emit(RunEventKind.Agent, null, `the agent finished: ${oneLine(run.summary ?? '')}`);
      return { ok: true, summary: run.summary ?? undefined };
    case 'asked':
      // A ticket run parks on this (the executor); the question goes whole onto the ticket.
      context.events.emit(RunEventKind.Agent, null, `the agent handed the ticket back (${outcome.askKind}): ${oneLine(outcome.question)}`);
      return {
        ok: false,
        error: `the agent handed the ticket back (${outcome.askKind}): ${oneLine(outcome.question)}`,
        handBack: { kind: outcome.askKind, question: outcome.question.trim() },
      };
    case 'budget':
      return { ok: false, error: `the agent was stopped: ${oneLine(outcome.reason)}` };
    case 'cancelled':
      return { ok: false, error: `the agent was stopped: ${oneLine(outcome.reason)}` };
    case 'failed':
      return { ok: false, error: `the model call failed: ${oneLine(outcome.error)}` };
  }
}

/**
 * The contexts' build and test commands, run by the server after the model's work; when they are
 * red, the model gets one repair round with the failing output, then they run again.
 */
class VerifyStep implements PipelineStep {
  readonly name = 'verify';
  constructor(private readonly state: CodeRun) {}

  async run(context: StepContext): Promise<StepResult> {
    const first = await this.verify(context);
    if (first.ok) return { ok: true, summary: this.state.summary ?? undefined };
    const session = this.state.session;
    if (!session) return { ok: false, error: first.error };
    context.events.emit(RunEventKind.Agent, null, `red: ${first.error}; one repair round`);
    const repaired = endedAgentStep(this.state, await session.send(repairMessage(first, this.state.support.secrets)), context);
    // A question asked in the repair round hands the ticket back like one asked in the work round.
    if (!repaired.ok) return { ok: false, error: `${first.error}, and the repair round ended: ${repaired.error}`, ...(repaired.handBack ? { handBack: repaired.handBack } : {}) };
    const second = await this.verify(context);
    if (second.ok) return { ok: true, summary: this.state.summary ?? undefined };
    return { ok: false, error: `still red after the repair round: ${second.error}` };
  }

  private async verify(context: StepContext): Promise<CommandsOutcome> {
    for (const set of [...this.state.commands('build'), ...this.state.commands('test')]) {
      const outcome = await runContextCommands(this.state.sandboxFor(context.sandboxes, set.repo).sandbox, set, context);
      if (!outcome.ok) return outcome;
    }
    return { ok: true };
  }
}

function repairMessage(failure: Extract<CommandsOutcome, { ok: false }>, secrets: readonly string[]): string {
  const output = cutOutput(scrubSecrets(failure.output, secrets), REPAIR_OUTPUT_CHARS).text;
  return [
    `The server ran the contexts' build and test commands after your work, and they failed: ${failure.error}.`,
    'Their output (the end of it) follows. Fix the cause, run the failing command yourself to check, then call finish.',
    '```',
    output,
    '```',
  ].join('\n');
}

/** On one line and at most 300 characters: it becomes the run's error and the ticket's comment. */
function oneLine(text: string): string {
  return clipText(text.replace(/\s+/g, ' ').trim(), 300);
}

export interface CodePipelineOptions {
  /** Unmet or unreported acceptance criteria fail the run (the project's `criteria.enforce`; default true). */
  enforceCriteria?: boolean;
}

/**
 * The built-in `code` pipeline: gate → setup → agent → verify (with one repair round) → the
 * acceptance criteria's check. The workspace prepares the trees before and publishes (or pushes
 * the wip commit) after.
 */
export function codePipeline(support: AgentRunSupport, project: string, ticket: string | null, name = 'code', options: CodePipelineOptions = {}): Pipeline {
  const run = new CodeRun(support, project, ticket, name);
  return {
    name,
    steps: [
      new ContextsGateStep(project, (contexts) => { run.contexts = contexts; }), new SetupStep(run), new AgentStep(run), new VerifyStep(run),
      new CriteriaStep(run.criteria, options.enforceCriteria ?? true, () => run.summary),
    ],
    timeoutMs: 2 * support.agent.step_timeout_seconds * 1000 + COMMANDS_ALLOWANCE_MS,
  };
}
