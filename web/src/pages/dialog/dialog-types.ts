/** The design dialogue's API shapes (contract "The design dialogue"). */
export interface DialogDraft {
  index: number;
  title: string;
  body: string;
  criteria: string[];
  labels: string[];
  filed: { ticket: string; url: string; by: string; at: string; started: boolean } | null;
}

export interface DialogMessage {
  seq: number;
  role: 'person' | 'model';
  kind: 'answer' | 'proposal' | null;
  text: string;
  at: string;
}

export interface ConversationSummary {
  id: string;
  project: string;
  title: string;
  createdAt: string;
  updatedAt: string;
}

export interface Conversation extends ConversationSummary {
  messages: DialogMessage[];
  drafts: DialogDraft[];
  usage: { modelCalls: number; inputTokens: number; outputTokens: number; costUsd: number };
}

export interface ConversationList {
  items: ConversationSummary[];
  projects: string[];
}

export interface SendAnswer {
  conversationId: string;
  reply: { kind: 'answer' | 'proposal'; text: string; tickets: (Omit<DialogDraft, 'filed'>)[] };
}

export interface FileAnswer {
  filed: { index: number; ticket: string; url: string; started: boolean; alreadyFiled: boolean }[];
  errors: { index: number; error: string }[];
}

/** The page's URL state: the open conversation. */
export interface DialogSearch {
  c?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseDialogSearch(search: Record<string, unknown>): DialogSearch {
  const c = search['c'];
  return typeof c === 'string' && UUID.test(c) ? { c } : {};
}

/** A safe link target for a filed ticket: only absolute http(s) URLs. */
export function ticketHref(url: string): string | null {
  return /^https?:\/\//i.test(url) ? url : null;
}
