import type { AgentObserver, AgentUsage, ModelCallRecord, ToolCallRecord } from '../../../src/agent/agent-types.js';

/** An observer that keeps everything it is told. */
export function recordingObserver() {
  const modelCalls: ModelCallRecord[] = [];
  const toolCalls: ToolCallRecord[] = [];
  const narration: string[] = [];
  const usage: AgentUsage[] = [];
  const observer: AgentObserver = {
    modelCall: (call) => void modelCalls.push(call),
    toolCall: (call) => void toolCalls.push(call),
    narration: (text) => void narration.push(text),
    usage: async (total) => void usage.push(total),
  };
  return { observer, modelCalls, toolCalls, narration, usage, everything: () => JSON.stringify({ modelCalls, toolCalls, narration, usage }) };
}
