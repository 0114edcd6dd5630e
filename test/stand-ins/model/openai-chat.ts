import {
  asArray, contentText, type ErrorAnswer, isRecord, message, nowSeconds, type ParsedRequest, parseArguments, pieces, randomId,
  type ResolvedTurn, sseFrame, str, type ViewMessage, type WireFormat,
} from './wire.js';

/**
 * OpenAI Chat Completions (`POST …/chat/completions`), what @ai-sdk/openai-compatible speaks:
 * `messages` with `role: 'tool'` results carrying `tool_call_id`; answers `choices[0].message`
 * with `tool_calls` (`function.arguments` a JSON string) and `usage.prompt_tokens` /
 * `completion_tokens`; streams `chat.completion.chunk`s with `tool_calls` deltas by `index`, a
 * usage chunk with empty `choices` when `stream_options.include_usage` is set, then `data: [DONE]`.
 */
export class OpenAIChatFormat implements WireFormat {
  readonly name = 'openai-chat' as const;

  newToolCallId(): string {
    return `call_${randomId(24)}`;
  }

  parse(json: Record<string, unknown>): ParsedRequest {
    const messages: ViewMessage[] = [];
    const raw = asArray(json.messages).filter(isRecord);
    for (const m of raw) {
      const role = str(m.role);
      if (role === 'system' || role === 'developer') messages.push(message('system', contentText(m.content)));
      else if (role === 'user') messages.push(message('user', contentText(m.content)));
      else if (role === 'assistant') {
        const toolCalls = asArray(m.tool_calls).filter(isRecord).map((call) => {
          const fn = isRecord(call.function) ? call.function : {};
          return { id: str(call.id) ?? '', name: str(fn.name) ?? '', input: parseArguments(fn.arguments) };
        });
        messages.push(message('assistant', contentText(m.content), { toolCalls }));
      } else if (role === 'tool') messages.push(message('tool', contentText(m.content), { toolCallId: str(m.tool_call_id) }));
    }
    const tools = asArray(json.tools).filter(isRecord).map((t) => (isRecord(t.function) ? str(t.function.name) : null)).filter((n): n is string => n !== null);
    return { model: str(json.model), stream: json.stream === true, tools, messages, historyError: historyError(raw) };
  }

  error(status: number, msg: string, options: { azure?: boolean; code?: string | null } = {}): ErrorAnswer {
    return openAIError(status, msg, options);
  }

  answer(turn: ResolvedTurn, json: Record<string, unknown>): unknown {
    const toolCalls = turn.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));
    return {
      id: `chatcmpl-${randomId(29)}`,
      object: 'chat.completion',
      created: nowSeconds(),
      model: str(json.model) ?? 'stand-in',
      system_fingerprint: null,
      choices: [{
        index: 0,
        message: { role: 'assistant', content: turn.text === '' && toolCalls.length > 0 ? null : turn.text, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      }],
      usage: usageOf(turn),
    };
  }

  events(turn: ResolvedTurn, json: Record<string, unknown>): string[] {
    const includeUsage = isRecord(json.stream_options) && json.stream_options.include_usage === true;
    const base = { id: `chatcmpl-${randomId(29)}`, object: 'chat.completion.chunk', created: nowSeconds(), model: str(json.model) ?? 'stand-in', system_fingerprint: null };
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
      sseFrame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...(includeUsage ? { usage: null } : {}) });
    const frames = [chunk({ role: 'assistant', content: '', refusal: null })];
    if (turn.text) for (const piece of pieces(turn.text)) frames.push(chunk({ content: piece }));
    turn.toolCalls.forEach((call, index) => {
      frames.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const piece of pieces(JSON.stringify(call.input), 10)) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    frames.push(chunk({}, turn.toolCalls.length > 0 ? 'tool_calls' : 'stop'));
    if (includeUsage) frames.push(sseFrame({ ...base, choices: [], usage: usageOf(turn) }));
    frames.push(sseFrame('[DONE]'));
    return frames;
  }
}

function usageOf(turn: ResolvedTurn): Record<string, unknown> {
  const { inputTokens, outputTokens } = turn.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/**
 * The real API's checks: an assistant message with `tool_calls` must be followed by `tool`
 * messages answering each id; a `tool` message must answer a call of the assistant message before
 * its run of tool messages.
 */
function historyError(messages: Record<string, unknown>[]): string | null {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && messages[j]!.role === 'tool') j--;
      const owner = j >= 0 ? messages[j]! : null;
      const ids = owner?.role === 'assistant' ? asArray(owner.tool_calls).filter(isRecord).map((c) => c.id) : [];
      if (!ids.includes(m.tool_call_id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
    }
    if (m.role !== 'assistant') continue;
    const ids = asArray(m.tool_calls).filter(isRecord).map((c) => str(c.id) ?? '');
    if (ids.length === 0) continue;
    const answered = new Set<string>();
    for (let k = i + 1; k < messages.length && messages[k]!.role === 'tool'; k++) answered.add(str(messages[k]!.tool_call_id) ?? '');
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`;
    }
  }
  return null;
}

/**
 * OpenAI's error body `{error: {message, type, param, code}}`; Azure's 401 is `{error: {code: '401', message}}`.
 */
export function openAIError(status: number, msg: string, options: { azure?: boolean; code?: string | null } = {}): ErrorAnswer {
  if (options.azure && status === 401) return { status, body: { error: { code: '401', message: msg } } };
  const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const code = options.code !== undefined ? options.code : status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : null;
  return { status, body: { error: { message: msg, type, param: null, code } } };
}
