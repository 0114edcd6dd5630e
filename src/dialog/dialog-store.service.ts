import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type AgentUsage, ZERO_USAGE } from '../agent/agent-types.js';
import { DatabaseService } from '../database/database.service.js';
import type { Conversation, ConversationSummary, DialogMessage, MessageRole, ReplyKind, StoredDraft, TicketDraft } from './dialog-types.js';

interface ConversationRow {
  id: string;
  owner: string;
  project: string;
  title: string;
  created_at: Date;
  updated_at: Date;
  model_calls: number;
  input_tokens: string;
  output_tokens: string;
  cost_usd: number;
}
interface MessageRow {
  seq: number;
  role: MessageRole;
  kind: ReplyKind | null;
  text: string;
  at: Date;
}
interface DraftRow {
  draft_index: number;
  message_seq: number;
  title: string;
  body: string;
  criteria: string[];
  labels: string[];
  filed_ticket: string | null;
  filed_url: string | null;
  filed_by: string | null;
  filed_at: Date | null;
  started: boolean;
}

/** A conversation's title: its first message's first line, cut. */
function titleOf(message: string): string {
  const line = message.trim().split('\n', 1)[0]!.replace(/\s+/g, ' ');
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

const summaryOf = (r: ConversationRow): ConversationSummary =>
  ({ id: r.id, project: r.project, title: r.title, createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString() });

export const draftOf = (r: DraftRow): StoredDraft => ({
  index: r.draft_index, messageSeq: r.message_seq, title: r.title, body: r.body, criteria: r.criteria, labels: r.labels,
  filed: r.filed_ticket === null ? null : { ticket: r.filed_ticket, url: r.filed_url ?? '', by: r.filed_by ?? '', at: (r.filed_at ?? new Date(0)).toISOString(), started: r.started },
});

/**
 * The dialogue's records in the database. Every read names the owner: a conversation of
 * someone else is not found, exactly as one that does not exist.
 */
@Injectable()
export class DialogStoreService {
  constructor(private readonly db: DatabaseService) {}

  /** A new conversation holding the person's first message; answers its id. */
  async create(owner: string, project: string, message: string): Promise<string> {
    const id = randomUUID();
    await this.db.dataSource.transaction(async (tx) => {
      await tx.query('INSERT INTO dialog_conversations (id, owner, project, title) VALUES ($1, $2, $3, $4)', [id, owner, project, titleOf(message)]);
      await tx.query(`INSERT INTO dialog_messages (conversation_id, seq, role, text) VALUES ($1, 1, 'person', $2)`, [id, message]);
    });
    return id;
  }

  /** Appends the person's message to their conversation; false when it is not theirs (or none). */
  async addPersonMessage(owner: string, id: string, message: string): Promise<boolean> {
    return this.db.dataSource.transaction(async (tx) => {
      const found: unknown[] = await tx.query('SELECT 1 FROM dialog_conversations WHERE id = $1 AND owner = $2 FOR UPDATE', [id, owner]);
      if (found.length === 0) return false;
      await tx.query(
        `INSERT INTO dialog_messages (conversation_id, seq, role, text)
         SELECT $1, COALESCE(MAX(seq), 0) + 1, 'person', $2 FROM dialog_messages WHERE conversation_id = $1`, [id, message]);
      await tx.query('UPDATE dialog_conversations SET updated_at = now() WHERE id = $1', [id]);
      return true;
    });
  }

  /** The model's reply and its drafts (numbered after the conversation's earlier ones), and the turn's usage. */
  async addReply(id: string, kind: ReplyKind, text: string, drafts: readonly TicketDraft[], usage: AgentUsage): Promise<number[]> {
    return this.db.dataSource.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM dialog_conversations WHERE id = $1 FOR UPDATE', [id]);
      const [{ seq }] = await tx.query(
        `INSERT INTO dialog_messages (conversation_id, seq, role, kind, text)
         SELECT $1, COALESCE(MAX(seq), 0) + 1, 'model', $2, $3 FROM dialog_messages WHERE conversation_id = $1 RETURNING seq`, [id, kind, text]) as { seq: number }[];
      const [{ next }] = await tx.query('SELECT COALESCE(MAX(draft_index) + 1, 0) AS next FROM dialog_drafts WHERE conversation_id = $1', [id]) as { next: number }[];
      const indices: number[] = [];
      for (const [i, d] of drafts.entries()) {
        const index = Number(next) + i;
        await tx.query(
          'INSERT INTO dialog_drafts (conversation_id, draft_index, message_seq, title, body, criteria, labels) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [id, index, seq, d.title, d.body, JSON.stringify(d.criteria), JSON.stringify(d.labels)]);
        indices.push(index);
      }
      await this.addUsage(tx, id, usage);
      return indices;
    });
  }

  /** Usage of a turn that ended without a reply (the provider failed): still counted against the budgets. */
  async noteUsage(id: string, usage: AgentUsage): Promise<void> {
    await this.db.dataSource.transaction((tx) => this.addUsage(tx, id, usage));
  }

  private async addUsage(tx: EntityManager, id: string, u: AgentUsage): Promise<void> {
    await tx.query(
      `UPDATE dialog_conversations SET updated_at = now(), model_calls = model_calls + $2, input_tokens = input_tokens + $3,
         output_tokens = output_tokens + $4, cost_usd = cost_usd + $5 WHERE id = $1`,
      [id, u.modelCalls, u.inputTokens, u.outputTokens, u.costUsd]);
  }

  /** The owner's conversations, most recently active first. */
  async list(owner: string, limit = 100): Promise<ConversationSummary[]> {
    const rows: ConversationRow[] = await this.db.dataSource.query(
      'SELECT * FROM dialog_conversations WHERE owner = $1 ORDER BY updated_at DESC, id LIMIT $2', [owner, limit]);
    return rows.map(summaryOf);
  }

  /** One conversation of the owner's, whole; null when it is not theirs (or none). */
  async get(owner: string, id: string): Promise<Conversation | null> {
    const rows: ConversationRow[] = await this.db.dataSource.query('SELECT * FROM dialog_conversations WHERE id = $1 AND owner = $2', [id, owner]);
    const row = rows[0];
    if (!row) return null;
    const messages: MessageRow[] = await this.db.dataSource.query('SELECT seq, role, kind, text, at FROM dialog_messages WHERE conversation_id = $1 ORDER BY seq', [id]);
    const drafts: DraftRow[] = await this.db.dataSource.query('SELECT * FROM dialog_drafts WHERE conversation_id = $1 ORDER BY draft_index', [id]);
    return {
      ...summaryOf(row),
      messages: messages.map((m): DialogMessage => ({ seq: m.seq, role: m.role, kind: m.kind, text: m.text, at: m.at.toISOString() })),
      drafts: drafts.map(draftOf),
      usage: { modelCalls: row.model_calls, inputTokens: Number(row.input_tokens), outputTokens: Number(row.output_tokens), costUsd: row.cost_usd },
    };
  }

  /**
   * Runs `work` with the conversation's drafts locked (one filing of a conversation at a time,
   * across replicas); `work` records each filed ticket through `markFiled` in the same transaction.
   */
  async withDraftsLocked<T>(owner: string, id: string, work: (drafts: StoredDraft[], markFiled: (index: number, filed: { ticket: string; url: string; by: string; started: boolean }) => Promise<void>) => Promise<T>): Promise<T | null> {
    return this.db.dataSource.transaction(async (tx) => {
      const found: unknown[] = await tx.query('SELECT 1 FROM dialog_conversations WHERE id = $1 AND owner = $2 FOR UPDATE', [id, owner]);
      if (found.length === 0) return null;
      const rows: DraftRow[] = await tx.query('SELECT * FROM dialog_drafts WHERE conversation_id = $1 ORDER BY draft_index', [id]);
      return work(rows.map(draftOf), async (index, filed) => {
        await tx.query(
          'UPDATE dialog_drafts SET filed_ticket = $3, filed_url = $4, filed_by = $5, filed_at = now(), started = $6 WHERE conversation_id = $1 AND draft_index = $2',
          [id, index, filed.ticket, filed.url, filed.by, filed.started]);
      });
    });
  }

  /** Usage so far (the budgets of the next turn). */
  static usageOf(conversation: Conversation | null): AgentUsage {
    return conversation?.usage ?? ZERO_USAGE;
  }
}
