import type { AgentObserver, AgentUsage, ModelCallRecord, ToolCallRecord } from '../../agent/agent-types.js';
import { scrubSecrets } from '../../common/secret-scrubber.js';
import type { RunEventSink } from '../pipeline.js';
import { RunEventKind } from '../run-event-kind.js';

/** Narration longer than this is cut in the event (the model's whole answer is not the point there). */
const NARRATION_CHARS = 2000;

export function formatModelCall(call: ModelCallRecord): string {
  const retries = call.attempts > 1 ? `, ${call.attempts} attempts` : '';
  return `${call.model}: ${call.inputTokens} input + ${call.outputTokens} output tokens, $${call.costUsd.toFixed(4)}, ${(call.durationMs / 1000).toFixed(1)} s, ${call.finishReason}${retries}`;
}

/** Control characters and line breaks in a brief (a path, a pattern the model chose) cannot forge event or log lines. */
function flat(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
}

export function formatToolCall(call: ToolCallRecord): string {
  const exit = call.exitCode === null ? '' : ` exit ${call.exitCode},`;
  return `${flat(call.brief)} →${exit} ${call.ok ? 'ok' : 'error'} (${(call.durationMs / 1000).toFixed(2)} s)`;
}

/**
 * The loop's observer for a run: every model call and tool call becomes a run event, the usage
 * goes to the run record. The loop scrubs what it reports already; scrubbing again here keeps a
 * secret out of the events even if a tool forgets.
 */
export function agentEventsObserver(events: RunEventSink, secrets: readonly string[], noteUsage: (usage: AgentUsage) => Promise<void>): AgentObserver {
  const clean = (text: string) => scrubSecrets(text, secrets);
  return {
    modelCall: (call) => events.emit(RunEventKind.ModelCall, null, clean(formatModelCall(call))),
    toolCall: (call) => events.emit(RunEventKind.ToolCall, null, clean(formatToolCall(call))),
    narration: (text) => {
      const trimmed = text.trim();
      if (trimmed) events.emit(RunEventKind.Agent, null, clean(trimmed.length > NARRATION_CHARS ? `${trimmed.slice(0, NARRATION_CHARS)}…` : trimmed));
    },
    // A usage write that fails must not end the run: the next one carries the totals.
    usage: (total) => noteUsage(total).catch(() => undefined),
  };
}
