import { MockLanguageModelV4 } from 'ai/test';

// The provider-spec types, taken from the mock so the test needs no import of @ai-sdk/provider.
type LanguageModelV4CallOptions = Parameters<MockLanguageModelV4['doStream']>[0];
type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type LanguageModelV4StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** One scripted model answer. */
export type Turn =
  | { text?: string; tools?: { name: string; input: unknown }[]; usage?: { input: number; output: number } }
  | { rawTool: { name: string; input: string } }
  | { error: unknown }
  /** Never answers until the call's abort signal fires (`ignoreAbort`: not even then). */
  | { hang: true; ignoreAbort?: boolean };

/**
 * The AI SDK's mock language model answering from a script, one turn per call (the last turn
 * repeats when the script runs out). Every call's options (the prompt, the tools) are recorded.
 */
export function scriptedModel(turns: Turn[] | ((call: number, options: LanguageModelV4CallOptions) => Turn)) {
  let call = 0;
  const model = new MockLanguageModelV4({
    provider: 'mock',
    modelId: 'scripted',
    doStream: async (options) => {
      const n = call++;
      const turn = typeof turns === 'function' ? turns(n, options) : turns[Math.min(n, turns.length - 1)]!;
      if ('error' in turn) throw turn.error;
      if ('hang' in turn) {
        return new Promise((_, reject) => {
          if (!turn.ignoreAbort) options.abortSignal?.addEventListener('abort', () => reject(options.abortSignal?.reason));
        });
      }
      return { stream: streamOf(partsOf(turn, n)) };
    },
  });
  return { model, calls: () => model.doStreamCalls, promptText: (i: number) => JSON.stringify(model.doStreamCalls[i]?.prompt) };
}

function partsOf(turn: Exclude<Turn, { error: unknown } | { hang: true }>, n: number): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  let usage = { input: 10, output: 5 };
  let toolCalls = 0;
  if ('rawTool' in turn) {
    parts.push({ type: 'tool-call', toolCallId: `call-${n}-0`, toolName: turn.rawTool.name, input: turn.rawTool.input });
    toolCalls = 1;
  } else {
    if (turn.usage) usage = turn.usage;
    if (turn.text) {
      parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: turn.text }, { type: 'text-end', id: 't' });
    }
    for (const [i, t] of (turn.tools ?? []).entries()) {
      parts.push({ type: 'tool-call', toolCallId: `call-${n}-${i}`, toolName: t.name, input: JSON.stringify(t.input) });
      toolCalls += 1;
    }
  }
  parts.push({
    type: 'finish',
    finishReason: { unified: toolCalls > 0 ? 'tool-calls' : 'stop', raw: undefined },
    usage: {
      inputTokens: { total: usage.input, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: usage.output, text: undefined, reasoning: undefined },
    },
  });
  return parts;
}

function streamOf(parts: LanguageModelV4StreamPart[]): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}
