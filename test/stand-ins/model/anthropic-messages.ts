import {
  asArray, contentText, type ErrorAnswer, isRecord, message, type ParsedRequest, randomId, type ResolvedTurn, sseFrame, str,
  type ViewMessage, type WireFormat, pieces,
} from './wire.js';

/**
 * Anthropic Messages (`POST …/messages`), what @ai-sdk/anthropic speaks: top-level `system`,
 * `messages` whose content blocks are `text`, `tool_use` (`id`, `name`, `input` an object) and
 * `tool_result` (`tool_use_id`); answers content blocks with `stop_reason` (`tool_use` /
 * `end_turn`) and `usage.input_tokens` / `output_tokens`; streams `message_start` (input usage),
 * `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta`) /
 * `content_block_stop`, `message_delta` (stop reason, output usage) and `message_stop`.
 */
export class AnthropicMessagesFormat implements WireFormat {
  readonly name = 'anthropic-messages' as const;

  newToolCallId(): string {
    return `toolu_01${randomId(22)}`;
  }

  parse(json: Record<string, unknown>): ParsedRequest {
    const messages: ViewMessage[] = [];
    const system = contentText(json.system);
    if (system) messages.push(message('system', system));
    const raw = asArray(json.messages).filter(isRecord);
    for (const m of raw) {
      if (typeof m.content === 'string') {
        messages.push(message(m.role === 'assistant' ? 'assistant' : 'user', m.content));
        continue;
      }
      const blocks = asArray(m.content).filter(isRecord);
      if (m.role === 'assistant') {
        const text = blocks.filter((b) => b.type === 'text').map((b) => str(b.text) ?? '').join('\n');
        const toolCalls = blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: str(b.id) ?? '', name: str(b.name) ?? '', input: b.input }));
        messages.push(message('assistant', text, { toolCalls }));
        continue;
      }
      for (const b of blocks.filter((block) => block.type === 'tool_result')) messages.push(message('tool', contentText(b.content), { toolCallId: str(b.tool_use_id) }));
      const text = blocks.filter((b) => b.type === 'text').map((b) => str(b.text) ?? '').join('\n');
      if (text) messages.push(message('user', text));
    }
    const tools = asArray(json.tools).filter(isRecord).map((t) => str(t.name)).filter((n): n is string => n !== null);
    return { model: str(json.model), stream: json.stream === true, tools, messages, historyError: historyError(raw) };
  }

  error(status: number, msg: string): ErrorAnswer {
    const type = ({ 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 429: 'rate_limit_error', 529: 'overloaded_error' } as Record<number, string>)[status]
      ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    return { status, body: { type: 'error', error: { type, message: msg }, request_id: `req_${randomId(24)}` } };
  }

  answer(turn: ResolvedTurn, json: Record<string, unknown>): unknown {
    const content: Record<string, unknown>[] = [];
    if (turn.text || turn.toolCalls.length === 0) content.push({ type: 'text', text: turn.text });
    for (const call of turn.toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
    return {
      id: `msg_01${randomId(22)}`,
      type: 'message',
      role: 'assistant',
      model: str(json.model) ?? 'stand-in',
      content,
      stop_reason: turn.toolCalls.length > 0 ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: turn.usage.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: turn.usage.outputTokens, service_tier: 'standard' },
    };
  }

  events(turn: ResolvedTurn, json: Record<string, unknown>): string[] {
    const event = (type: string, fields: Record<string, unknown> = {}): string => sseFrame({ type, ...fields }, type);
    const frames = [event('message_start', {
      message: {
        id: `msg_01${randomId(22)}`, type: 'message', role: 'assistant', model: str(json.model) ?? 'stand-in', content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: turn.usage.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: 'standard' },
      },
    })];
    let index = 0;
    if (turn.text || turn.toolCalls.length === 0) {
      frames.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      frames.push(event('ping'));
      for (const text of pieces(turn.text)) frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
      frames.push(event('content_block_stop', { index }));
      index++;
    }
    for (const call of turn.toolCalls) {
      frames.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }));
      frames.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
      for (const partial of pieces(JSON.stringify(call.input), 10)) frames.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } }));
      frames.push(event('content_block_stop', { index }));
      index++;
    }
    frames.push(event('message_delta', { delta: { stop_reason: turn.toolCalls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: turn.usage.outputTokens } }));
    frames.push(event('message_stop'));
    return frames;
  }
}

/**
 * The real API's checks: the `tool_use` ids of an assistant message must all be answered by
 * `tool_result` blocks in the next (user) message, and a `tool_result` must answer a `tool_use` of
 * the message right before it.
 */
function historyError(messages: Record<string, unknown>[]): string | null {
  const blocksOf = (m: Record<string, unknown> | undefined): Record<string, unknown>[] => asArray(m?.content).filter(isRecord);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'user') {
      const previousIds = m === messages[0] ? [] : blocksOf(messages[i - 1]).filter((b) => b.type === 'tool_use').map((b) => b.id);
      const results = blocksOf(m);
      for (let j = 0; j < results.length; j++) {
        const block = results[j]!;
        if (block.type === 'tool_result' && !previousIds.includes(block.tool_use_id)) {
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
      continue;
    }
    const ids = blocksOf(m).filter((b) => b.type === 'tool_use').map((b) => str(b.id) ?? '');
    if (ids.length === 0) continue;
    const next = messages[i + 1];
    const answered = new Set(next?.role === 'user' ? blocksOf(next).filter((b) => b.type === 'tool_result').map((b) => str(b.tool_use_id) ?? '') : []);
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
  }
  return null;
}
