import { type LanguageModel, type ModelMessage, type ToolSet, streamText } from 'ai';
import { abortError, raceAbort } from './abort.js';

/** A tool call the model made; `invalid` says why its input could not be read (then nothing runs). */
export interface ModelToolCall {
  id: string;
  name: string;
  input: unknown;
  invalid: string | null;
}

/** One model answer, read to the end. */
export interface ModelAnswer {
  text: string;
  toolCalls: ModelToolCall[];
  /** The assistant message(s) to append to the conversation, as the SDK built them (reasoning and provider metadata kept). */
  messages: ModelMessage[];
  inputTokens: number;
  outputTokens: number;
  finishReason: string;
}

export interface ModelCallRequest {
  model: LanguageModel;
  instructions: string;
  messages: ModelMessage[];
  tools: ToolSet;
  signal: AbortSignal;
}

/**
 * One model call and nothing more: the tools carry no `execute`, so the SDK stops after the
 * model's answer and we run the tools ourselves (budgets, events and cancel stay ours). The SDK's
 * retry is off; a provider error comes out of the stream as an `error` part and is thrown here
 * as it is (an APICallError keeps its status and headers for our retry). The whole call is
 * raced against `signal`, so a cancel returns at once even if the provider ignores the abort.
 */
export function callModel(request: ModelCallRequest): Promise<ModelAnswer> {
  return raceAbort(read(request), request.signal);
}

async function read({ model, instructions, messages, tools, signal }: ModelCallRequest): Promise<ModelAnswer> {
  const result = streamText({
    model,
    instructions,
    messages,
    tools,
    toolChoice: 'auto',
    maxRetries: 0,
    abortSignal: signal,
    // Errors are read from the stream below; the default handler would print them to the console.
    onError: () => undefined,
  });
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  let inputTokens = 0;
  let outputTokens = 0;
  let finishReason = 'unknown';
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        text += part.text;
        break;
      case 'tool-call':
        toolCalls.push({
          id: part.toolCallId,
          name: part.toolName,
          input: part.input,
          invalid: 'invalid' in part && part.invalid ? invalidReason(part.error) : null,
        });
        break;
      case 'finish-step':
        inputTokens += part.usage.inputTokens ?? 0;
        outputTokens += part.usage.outputTokens ?? 0;
        finishReason = part.finishReason;
        break;
      case 'error':
        throw part.error;
      case 'abort':
        throw abortError(signal);
      default:
        break;
    }
  }
  const response = await result.response;
  return {
    text,
    toolCalls,
    messages: response.messages.filter((message) => message.role === 'assistant'),
    inputTokens,
    outputTokens,
    finishReason,
  };
}

function invalidReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 500) || 'the input could not be read';
}
