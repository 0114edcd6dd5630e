import type { AgentUsage } from '../agent/agent-types.js';

/** A ticket draft as the model proposed it (`propose_ticket`). */
export interface TicketDraft {
  title: string;
  body: string;
  criteria: string[];
  labels: string[];
}

export const ReplyKind = { Answer: 'answer', Proposal: 'proposal' } as const;
export type ReplyKind = (typeof ReplyKind)[keyof typeof ReplyKind];

/** The model's reply to one message (contract "The design dialogue"). */
export interface DialogReply {
  kind: ReplyKind;
  text: string;
  /** The drafts of this turn, with their conversation-wide indices. */
  tickets: (TicketDraft & { index: number })[];
}

export const MessageRole = { Person: 'person', Model: 'model' } as const;
export type MessageRole = (typeof MessageRole)[keyof typeof MessageRole];

export interface DialogMessage {
  seq: number;
  role: MessageRole;
  /** null for the person's messages. */
  kind: ReplyKind | null;
  text: string;
  at: string;
}

/** A draft as the conversation keeps it: where it was proposed, and its ticket once filed. */
export interface StoredDraft extends TicketDraft {
  index: number;
  messageSeq: number;
  filed: { ticket: string; url: string; by: string; at: string; started: boolean } | null;
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
  drafts: StoredDraft[];
  usage: AgentUsage;
}
