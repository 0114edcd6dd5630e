/**
 * What a chat message asks for. The rules below read the common phrasings; free text no rule
 * recognises is `unknown` (the model may then choose among these same kinds, never more).
 */
export type TicketRef =
  /** `BILL-12`: a tracker key whose prefix names a project's key. */
  | { kind: 'key'; key: string }
  /** `shop#42`, `42 in shop`: a ticket of a named project (`project` null: `#42` alone). */
  | { kind: 'number'; project: string | null; ticket: string };

export type ChatIntent =
  | { kind: 'start'; pipeline: string | null; ref: TicketRef }
  | { kind: 'state'; ref: TicketRef | null }
  | { kind: 'cancel'; ref: TicketRef | null }
  | { kind: 'follow'; ref: TicketRef }
  | { kind: 'design'; text: string }
  | { kind: 'help' }
  | { kind: 'unknown'; text: string };

/** The intents a model may choose among for free text (it can never widen them). */
export const MODEL_CHOOSABLE_INTENTS = ['start', 'state', 'cancel', 'follow', 'design', 'help', 'none'] as const;

const KEY = /^([A-Za-z][A-Za-z0-9_]*-\d+)$/;
const HASH = /^([A-Za-z0-9._-]+)?#(\d+)$/;
const WORD = '[A-Za-z0-9._-]+';

/** `BILL-12`, `shop#42`, `#42`, `42 in shop`, `shop 42`, or null. */
export function parseTicketRef(text: string): TicketRef | null {
  const t = text.trim().replace(/[.!?]+$/, '');
  const key = KEY.exec(t);
  if (key) return { kind: 'key', key: key[1]!.toUpperCase() };
  const hash = HASH.exec(t);
  if (hash) return { kind: 'number', project: hash[1] ?? null, ticket: hash[2]! };
  const inProject = new RegExp(`^#?(\\d+)\\s+(?:in|of|on)\\s+(${WORD})$`, 'i').exec(t);
  if (inProject) return { kind: 'number', project: inProject[2]!, ticket: inProject[1]! };
  const projectNumber = new RegExp(`^(${WORD})\\s+#?(\\d+)$`).exec(t);
  if (projectNumber && !/^\d+$/.test(projectNumber[1]!)) return { kind: 'number', project: projectNumber[1]!, ticket: projectNumber[2]! };
  return null;
}

/** Leading bot mentions (`<@U123>`, `@pipeline-bot`) and surrounding space removed. */
export function stripMentions(text: string): string {
  return text.replace(/^(\s*(<@[A-Z0-9]+(\|[^>]*)?>|<at>[^<]*<\/at>|@[\w.-]+)[,:]?\s*)+/i, '').trim();
}

/**
 * The rules. `pipelines`: the names a message may start (built-in and the operator's); a first
 * word naming one starts it (`code 42 in shop`, the slash command's form).
 */
export function parseIntent(raw: string, pipelines: ReadonlySet<string>): ChatIntent {
  const text = stripMentions(raw);
  const lower = text.toLowerCase();
  if (lower === '' || /^(help|\?|what can you do\??)$/.test(lower)) return { kind: 'help' };

  const design = /^(?:spec|design|let'?s design|let us design)\b[:\s]*([\s\S]*)$/i.exec(text);
  if (design) return { kind: 'design', text: design[1]!.trim() };

  const fix = /^(?:please\s+)?fix\s+(.+)$/i.exec(text);
  if (fix) {
    const ref = parseTicketRef(fix[1]!);
    if (ref) return { kind: 'start', pipeline: null, ref };
  }
  const run = new RegExp(`^(?:please\\s+)?(?:run|start)\\s+(${WORD})\\s+(?:on|for)\\s+(.+)$`, 'i').exec(text);
  if (run) {
    const ref = parseTicketRef(run[2]!);
    if (ref) return { kind: 'start', pipeline: run[1]!.toLowerCase(), ref };
  }
  const first = new RegExp(`^(${WORD})\\s+(.+)$`).exec(text);
  if (first && pipelines.has(first[1]!.toLowerCase())) {
    const ref = parseTicketRef(first[2]!);
    if (ref) return { kind: 'start', pipeline: first[1]!.toLowerCase(), ref };
  }

  const state = /^(?:status|state|how is|what about|show)(?:\s+of)?\s*(.*)$/i.exec(text);
  if (state) {
    const rest = state[1]!.trim();
    if (rest === '' || /^(?:the\s+)?(?:recent\s+)?runs?$/i.test(rest)) return { kind: 'state', ref: null };
    const ref = parseTicketRef(rest);
    if (ref) return { kind: 'state', ref };
  }
  if (/^(?:recent\s+)?runs$/i.test(text)) return { kind: 'state', ref: null };

  const cancel = /^(?:cancel|stop|abort)\b\s*(.*)$/i.exec(text);
  if (cancel) {
    const rest = cancel[1]!.trim().replace(/^(?:the\s+)?run(?:\s+(?:of|on))?\s*/i, '');
    if (rest === '') return { kind: 'cancel', ref: null };
    const ref = parseTicketRef(rest);
    if (ref) return { kind: 'cancel', ref };
  }
  const follow = /^(?:follow|watch)\s+(.+)$/i.exec(text);
  if (follow) {
    const ref = parseTicketRef(follow[1]!);
    if (ref) return { kind: 'follow', ref };
  }
  return { kind: 'unknown', text };
}
