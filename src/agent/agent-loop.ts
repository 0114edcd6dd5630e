import { SpanKind, failSpan, inSpan } from '../tracing/spans.js';
import type { LanguageModel, ModelMessage, ToolResultPart } from 'ai';
import { scrubSecrets } from '../common/secret-scrubber.js';
import {
  type AgentFinding,
  type AgentLimits,
  type AgentObserver,
  type AgentOutcome,
  type AgentSession,
  type AgentToolset,
  type AgentTree,
  type AgentUsage,
  ZERO_USAGE,
} from './agent-types.js';
import { type TokenPrices, callCost, spentBudget, stepsSpent, timeSpent } from './budget.js';
import { type ModelAnswer, type ModelToolCall, callModel } from './model-call.js';
import type { ProviderGate } from './provider-gate.js';
import { DEFAULT_RETRY, ProviderFailure, type RetryPolicy, describeProviderError, withProviderRetry } from './provider-retry.js';
import { StepClock } from './step-clock.js';
import { AgentTrees } from './tools/agent-trees.js';
import { Toolbox } from './tools/toolbox.js';
import type { AgentTool, ToolContext } from './tools/tool-types.js';

export interface AgentSessionOptions {
  /** From languageModelFor (tests: the AI SDK's mock model). */
  model: LanguageModel;
  /** `provider/model`, for the run's events and error lines. */
  modelLabel: string;
  system: string;
  trees: AgentTree[];
  toolset: AgentToolset;
  /** Tools offered besides the toolset's (`load_skill` when the run has skills, the design dialogue's `propose_ticket`). */
  extraTools?: readonly AgentTool[];
  limits: AgentLimits;
  /** null: cost is not known, and not limited. */
  prices: TokenPrices | null;
  observer: AgentObserver;
  /** The run's signal (cancel, shutdown): ends the step `cancelled` within a second or two. */
  signal: AbortSignal;
  /** Removed from every tool result, brief, narration and summary before it leaves the loop. */
  secrets: readonly string[];
  gate: ProviderGate;
  /** The provider gate key: providerGateKey(agent) (provider + base_url). Default: the provider part of modelLabel. */
  gateKey?: string;
  /** Usage a resumed run already had; budgets count it. */
  initialUsage?: AgentUsage;
  /** Overrides of the provider retry policy (tests shorten the waits). */
  retry?: Partial<RetryPolicy>;
}

/** A session: the conversation of one run. See AgentSession for how sends and budgets relate. */
export function createAgentSession(options: AgentSessionOptions): AgentSession {
  return new ToolLoopSession(options);
}

class ToolLoopSession implements AgentSession {
  private readonly messages: ModelMessage[] = [];
  private readonly collected: AgentFinding[] = [];
  private readonly toolbox: Toolbox;
  private readonly trees: AgentTrees;
  private readonly retry: RetryPolicy;
  private readonly gateKey: string;
  private total: AgentUsage;
  private busy = false;

  constructor(private readonly o: AgentSessionOptions) {
    this.trees = new AgentTrees(o.trees);
    this.toolbox = new Toolbox(o.toolset, this.trees, o.extraTools);
    this.retry = { ...DEFAULT_RETRY, ...o.retry };
    this.gateKey = o.gateKey ?? o.modelLabel.split('/', 1)[0]!;
    this.total = { ...(o.initialUsage ?? ZERO_USAGE) };
  }

  get usage(): AgentUsage {
    return { ...this.total };
  }

  get findings(): readonly AgentFinding[] {
    return this.collected;
  }

  async send(message: string): Promise<AgentOutcome> {
    if (this.busy) throw new Error('an agent session takes one send at a time');
    this.busy = true;
    const clock = new StepClock(this.o.signal, this.o.limits.stepTimeoutMs);
    try {
      this.messages.push({ role: 'user', content: message });
      return await this.drive(clock);
    } finally {
      clock.dispose();
      this.busy = false;
    }
  }

  private scrub = (text: string): string => scrubSecrets(text, this.o.secrets);

  private async drive(clock: StepClock): Promise<AgentOutcome> {
    for (let calls = 0; ; ) {
      const stop = this.interrupted(clock) ?? stepsSpent(calls, this.o.limits) ?? spentBudget(this.total, this.o.limits, this.o.prices);
      if (stop) return stop;
      const started = performance.now();
      let answer: ModelAnswer;
      let attempts: number;
      try {
        ({ value: answer, attempts } = await this.tracedCall(() => withProviderRetry(
          (signal) => callModel({ model: this.o.model, instructions: this.o.system, messages: this.messages, tools: this.toolbox.definitions, signal }),
          { gate: this.o.gate, gateKey: this.gateKey, signal: clock.signal, deadline: clock.deadline, policy: this.retry, label: this.o.modelLabel },
        )));
      } catch (error) {
        const interrupted = this.interrupted(clock);
        if (interrupted) return interrupted;
        const line = error instanceof ProviderFailure ? error.message : `${this.o.modelLabel} failed: ${describeProviderError(error)}`;
        return { kind: 'failed', error: this.scrub(line) };
      }
      calls += 1;
      await this.account(answer, attempts, performance.now() - started);
      this.messages.push(...answer.messages);
      if (answer.toolCalls.length === 0) {
        const text = this.scrub(answer.text.trim());
        if (text) return { kind: 'finished', summary: text };
        return { kind: 'failed', error: `${this.o.modelLabel} answered with neither text nor a tool call (finish reason ${answer.finishReason})` };
      }
      const end = await this.runTools(answer.toolCalls, clock);
      if (end) return end;
    }
  }

  /** A model call's span, with the GenAI semantic conventions' attributes (no prompt, no answer text). */
  private tracedCall(call: () => Promise<{ value: ModelAnswer; attempts: number }>): Promise<{ value: ModelAnswer; attempts: number }> {
    const model = this.o.model as { provider?: string; modelId?: string };
    const system = (model.provider ?? 'unknown').split('.')[0]!;
    const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': system, 'gen_ai.provider.name': system, 'gen_ai.request.model': model.modelId ?? this.o.modelLabel };
    return inSpan(`chat ${model.modelId ?? this.o.modelLabel}`, { attributes, kind: SpanKind.CLIENT }, async (span) => {
      const result = await call();
      span.setAttributes({
        'gen_ai.usage.input_tokens': result.value.inputTokens,
        'gen_ai.usage.output_tokens': result.value.outputTokens,
        'gen_ai.response.finish_reasons': [result.value.finishReason],
        'pipeline_service.model.attempts': result.attempts,
      });
      return result;
    });
  }

  /** Usage, cost and the model-call, narration and usage events of one answer. */
  private async account(answer: ModelAnswer, attempts: number, durationMs: number): Promise<void> {
    const costUsd = callCost(answer.inputTokens, answer.outputTokens, this.o.prices);
    this.total = {
      modelCalls: this.total.modelCalls + 1,
      inputTokens: this.total.inputTokens + answer.inputTokens,
      outputTokens: this.total.outputTokens + answer.outputTokens,
      costUsd: this.total.costUsd + costUsd,
    };
    this.o.observer.modelCall({
      model: this.o.modelLabel,
      inputTokens: answer.inputTokens,
      outputTokens: answer.outputTokens,
      costUsd,
      durationMs: Math.round(durationMs),
      finishReason: answer.finishReason,
      attempts,
    });
    this.o.observer.narration(this.scrub(answer.text));
    await this.o.observer.usage(this.usage);
  }

  /**
   * Runs the answer's tool calls in order and appends their results (every call gets one, run or
   * not, so the conversation stays valid for the next send). Returns the outcome that ends the
   * step, or null to go on. With the token or cost budget spent by this answer only `finish` and
   * `ask` still run: the model would never read the other results.
   */
  private async runTools(calls: ModelToolCall[], clock: StepClock): Promise<AgentOutcome | null> {
    const spent = spentBudget(this.total, this.o.limits, this.o.prices);
    const context: ToolContext = { trees: this.trees, signal: clock.signal, deadline: clock.deadline, findings: this.collected, scrub: this.scrub };
    const results: ToolResultPart[] = [];
    let end: AgentOutcome | null = null;
    let stopped: AgentOutcome | null = null;
    for (const call of calls) {
      const control = call.name === 'finish' || call.name === 'ask';
      const skip = end ? 'the step ended before it' : (stopped ?? this.interrupted(clock)) ? 'the step was stopped' : spent && !control ? 'the budget is spent' : null;
      if (skip) {
        results.push(resultPart(call, `Not run: ${skip}.`, true));
        continue;
      }
      const started = performance.now();
      let output: string;
      let ok = false;
      let failed = true;
      let exitCode: number | null = null;
      let brief = call.name;
      try {
        const run = await inSpan(`execute_tool ${call.name}`, { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id } }, async (span) => {
          const done = await this.toolbox.run(call.name, call.input, call.invalid, context);
          span.setAttributes({ 'pipeline_service.tool.ok': done.result.ok, ...(done.result.exitCode === null ? {} : { 'pipeline_service.tool.exit_code': done.result.exitCode }) });
          if (done.result.error === true) failSpan(span, 'tool failed');
          return done;
        });
        output = this.scrub(run.result.output);
        brief = this.scrub(run.brief);
        ok = run.result.ok;
        failed = run.result.error === true;
        exitCode = run.result.exitCode;
        if (run.result.end) end = run.result.end;
      } catch {
        // Only a fired step signal gets here (the toolbox turns every other failure into a result).
        stopped = this.interrupted(clock);
        output = 'Not completed: the step was stopped.';
      }
      this.o.observer.toolCall({ tool: call.name, brief, exitCode, ok, durationMs: Math.round(performance.now() - started) });
      results.push(resultPart(call, output, failed));
    }
    this.messages.push({ role: 'tool', content: results });
    return end ?? stopped ?? this.interrupted(clock) ?? spent;
  }

  /** Cancelled, or out of time, or null. */
  private interrupted(clock: StepClock): AgentOutcome | null {
    if (clock.cancelled) return { kind: 'cancelled', reason: cancelReason(this.o.signal) };
    if (clock.timedOut) return timeSpent(clock.elapsedMs, this.o.limits);
    return null;
  }
}

function resultPart(call: ModelToolCall, text: string, failed: boolean): ToolResultPart {
  return { type: 'tool-result', toolCallId: call.id, toolName: call.name, output: { type: failed ? 'error-text' : 'text', value: text } };
}

function cancelReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  const said = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : '';
  return said && said !== 'This operation was aborted' ? said.replace(/\s+/g, ' ').trim() : 'the run was cancelled';
}
