import { openAIError } from './openai-chat.js';
import {
  asArray, contentText, type ErrorAnswer, isRecord, message, nowSeconds, type ParsedRequest, parseArguments, pieces, randomHex, randomId,
  type ResolvedTurn, sseFrame, str, type ViewMessage, type WireFormat,
} from './wire.js';

type OutputItem =
  | { id: string; type: 'message'; status: string; role: 'assistant'; content: { type: 'output_text'; text: string; annotations: []; logprobs: [] }[] }
  | { id: string; type: 'function_call'; status: string; arguments: string; call_id: string; name: string };

/**
 * OpenAI Responses (`POST …/responses`), what @ai-sdk/openai and @ai-sdk/azure speak: `input`
 * items (`role` messages, `function_call` with `call_id`, `function_call_output` with `call_id`,
 * `item_reference` to an item of an earlier stored response); answers `output` items `message`
 * (`output_text` parts) and `function_call` (`arguments` a JSON string) with `usage.input_tokens`
 * / `output_tokens`; streams the real event types (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.function_call_arguments.delta/done`,
 * `response.output_item.done`, `response.completed` carrying usage, and the content-part events).
 *
 * Like the real API it keeps the items it answered unless the request said `store: false`, so an
 * `item_reference` resolves (the AI SDK sends earlier assistant text that way); an unknown one is a 400.
 */
export class OpenAIResponsesFormat implements WireFormat {
  readonly name = 'openai-responses' as const;
  private readonly stored = new Map<string, OutputItem>();

  newToolCallId(): string {
    return `call_${randomId(24)}`;
  }

  parse(json: Record<string, unknown>): ParsedRequest {
    const messages: ViewMessage[] = [];
    const instructions = str(json.instructions);
    if (instructions) messages.push(message('system', instructions));
    const calls = new Set<string>();
    const outputs: string[] = [];
    let historyError: string | null = null;
    let lastWasAssistant = false;
    for (const raw of asArray(json.input)) {
      let item = isRecord(raw) ? raw : {};
      if (item.type === 'item_reference') {
        const found = this.stored.get(str(item.id) ?? '');
        if (!found) {
          historyError ??= `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
          continue;
        }
        item = found as unknown as Record<string, unknown>;
      }
      if (item.type === 'function_call') {
        const call = { id: str(item.call_id) ?? '', name: str(item.name) ?? '', input: parseArguments(item.arguments) };
        calls.add(call.id);
        const last = messages.at(-1);
        if (lastWasAssistant && last?.role === 'assistant') last.toolCalls.push(call);
        else messages.push(message('assistant', '', { toolCalls: [call] }));
        lastWasAssistant = true;
        continue;
      }
      if (item.type === 'function_call_output') {
        const callId = str(item.call_id) ?? '';
        outputs.push(callId);
        messages.push(message('tool', contentText(item.output), { toolCallId: callId }));
        lastWasAssistant = false;
        continue;
      }
      const role = str(item.role);
      if (item.type !== undefined && item.type !== 'message') {
        lastWasAssistant = false; // reasoning and hosted-tool items carry no conversation text
        continue;
      }
      if (role === 'assistant') {
        const last = messages.at(-1);
        const text = contentText(item.content);
        if (lastWasAssistant && last?.role === 'assistant') last.text = [last.text, text].filter(Boolean).join('\n');
        else messages.push(message('assistant', text));
        lastWasAssistant = true;
        continue;
      }
      lastWasAssistant = false;
      if (role === 'system' || role === 'developer') messages.push(message('system', contentText(item.content)));
      else if (role === 'user') messages.push(message('user', contentText(item.content)));
    }
    for (const callId of outputs) if (!calls.has(callId)) historyError ??= `No tool call found for function call output with call_id ${callId}.`;
    const answered = new Set(outputs);
    for (const callId of calls) if (!answered.has(callId)) historyError ??= `No tool output found for function call ${callId}.`;
    const tools = asArray(json.tools).filter(isRecord).map((t) => str(t.name)).filter((n): n is string => n !== null);
    return { model: str(json.model), stream: json.stream === true, tools, messages, historyError };
  }

  error(status: number, msg: string, options: { azure?: boolean; code?: string | null } = {}): ErrorAnswer {
    return openAIError(status, msg, options);
  }

  answer(turn: ResolvedTurn, json: Record<string, unknown>): unknown {
    return this.response(json, this.outputItems(turn, json), turn, 'completed');
  }

  events(turn: ResolvedTurn, json: Record<string, unknown>): string[] {
    let sequence = 0;
    const event = (type: string, fields: Record<string, unknown>): string => sseFrame({ type, sequence_number: sequence++, ...fields }, type);
    const items = this.outputItems(turn, json);
    const completed = this.response(json, items, turn, 'completed');
    const inProgress = { ...completed, status: 'in_progress', output: [], usage: null };
    const frames = [event('response.created', { response: inProgress }), event('response.in_progress', { response: inProgress })];
    items.forEach((item, outputIndex) => {
      if (item.type === 'message') {
        const text = item.content[0]?.text ?? '';
        const part = { type: 'output_text', annotations: [], logprobs: [], text: '' };
        frames.push(event('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } }));
        frames.push(event('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: 0, part }));
        for (const delta of pieces(text)) frames.push(event('response.output_text.delta', { item_id: item.id, output_index: outputIndex, content_index: 0, delta, logprobs: [] }));
        frames.push(event('response.output_text.done', { item_id: item.id, output_index: outputIndex, content_index: 0, text, logprobs: [] }));
        frames.push(event('response.content_part.done', { item_id: item.id, output_index: outputIndex, content_index: 0, part: { ...part, text } }));
      } else {
        frames.push(event('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } }));
        for (const delta of pieces(item.arguments, 10)) frames.push(event('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta }));
        frames.push(event('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, arguments: item.arguments }));
      }
      frames.push(event('response.output_item.done', { output_index: outputIndex, item }));
    });
    frames.push(event('response.completed', { response: completed }));
    return frames;
  }

  /** The answer's output items; kept for `item_reference` unless the request said `store: false`. */
  private outputItems(turn: ResolvedTurn, json: Record<string, unknown>): OutputItem[] {
    const items: OutputItem[] = [];
    if (turn.text || turn.toolCalls.length === 0) {
      items.push({ id: `msg_${randomHex(48)}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: turn.text, annotations: [], logprobs: [] }] });
    }
    for (const call of turn.toolCalls) {
      items.push({ id: `fc_${randomHex(48)}`, type: 'function_call', status: 'completed', arguments: JSON.stringify(call.input), call_id: call.id, name: call.name });
    }
    if (json.store !== false) for (const item of items) this.stored.set(item.id, item);
    return items;
  }

  private response(json: Record<string, unknown>, output: OutputItem[], turn: ResolvedTurn, status: string): Record<string, unknown> {
    const { inputTokens, outputTokens } = turn.usage;
    return {
      id: `resp_${randomHex(48)}`,
      object: 'response',
      created_at: nowSeconds(),
      status,
      background: false,
      error: null,
      incomplete_details: null,
      instructions: json.instructions ?? null,
      max_output_tokens: json.max_output_tokens ?? null,
      model: str(json.model) ?? 'stand-in',
      output,
      parallel_tool_calls: true,
      previous_response_id: json.previous_response_id ?? null,
      store: json.store !== false,
      temperature: 1,
      text: { format: { type: 'text' } },
      tool_choice: json.tool_choice ?? 'auto',
      tools: json.tools ?? [],
      top_p: 1,
      truncation: 'disabled',
      usage: {
        input_tokens: inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: inputTokens + outputTokens,
      },
      user: null,
      metadata: {},
    };
  }
}
