import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AskKind } from '../../agent/agent-types.js';
import { DatabaseService } from '../../database/database.service.js';
import { updatedRows } from '../../database/updated-rows.js';
import type { TicketKey } from '../../tickets/ticket-key.js';
import type { AnswerSource, HandBack } from '../run-conversation.js';

/** One row of `run_questions`: a run's hand-back and what became of it. */
export interface RunQuestion extends HandBack {
  platform: string;
  project: string;
  ticket: string;
  answeredAt: string | null;
  /** The run the answer (or the retry) started, once it was claimed. */
  resumedRunId: string | null;
}

interface Row {
  run_id: string;
  platform: string;
  project: string;
  ticket: string;
  kind: AskKind;
  question: string;
  asked_at: Date;
  answer: string | null;
  answered_by: string | null;
  answer_source: AnswerSource | null;
  answered_at: Date | null;
  resumed_run_id: string | null;
}

const COLUMNS = 'run_id, platform, project, ticket, kind, question, asked_at, answer, answered_by, answer_source, answered_at, resumed_run_id';

/**
 * The `run_questions` table (migration 0013): the question a parked run asked, and the one answer
 * that closed it. An answer or a retry closes a question once (`answered_at IS NULL` is the
 * condition of the write), so the first wins and the rest are refused.
 */
@Injectable()
export class RunQuestionsService {
  constructor(private readonly db: DatabaseService) {}

  /** Inside the Park transition; a repeat for the same run keeps the first. */
  async record(tx: EntityManager, key: TicketKey, runId: string, handBack: { kind: AskKind; question: string }): Promise<boolean> {
    await tx.query(
      `INSERT INTO run_questions (run_id, platform, project, ticket, kind, question) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (run_id) DO NOTHING`,
      [runId, key.platform, key.project, key.ticket, handBack.kind, handBack.question]);
    return true;
  }

  async find(runId: string): Promise<RunQuestion | null> {
    const rows: Row[] = await this.db.dataSource.query(`SELECT ${COLUMNS} FROM run_questions WHERE run_id = $1`, [runId]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** Inside the Answer transition: false when the question was closed already (the first answer won). */
  async recordAnswer(tx: EntityManager, runId: string, answer: string, by: string, source: AnswerSource): Promise<boolean> {
    const rows = updatedRows(await tx.query(
      `UPDATE run_questions SET answer = $2, answered_by = $3, answer_source = $4, answered_at = now()
       WHERE run_id = $1 AND answered_at IS NULL RETURNING run_id`,
      [runId, answer, by, source]));
    return rows.length > 0;
  }

  /** A retry ended the parked run: its question is closed without an answer. */
  async closeByRetry(runId: string, by: string): Promise<void> {
    await this.db.dataSource.query(
      `UPDATE run_questions SET answered_by = $2, answer_source = 'retry', answered_at = now() WHERE run_id = $1 AND answered_at IS NULL`,
      [runId, by]);
  }

  async noteResumed(runId: string, resumedRunId: string): Promise<void> {
    await this.db.dataSource.query('UPDATE run_questions SET resumed_run_id = $2 WHERE run_id = $1', [runId, resumedRunId]);
  }

  /** Every hand-back of the ticket, oldest first. */
  async historyOf(key: TicketKey): Promise<RunQuestion[]> {
    const rows: Row[] = await this.db.dataSource.query(
      `SELECT ${COLUMNS} FROM run_questions WHERE platform = $1 AND project = $2 AND ticket = $3 ORDER BY asked_at, run_id`,
      [key.platform, key.project, key.ticket]);
    return rows.map(fromRow);
  }
}

function fromRow(row: Row): RunQuestion {
  return {
    runId: row.run_id,
    platform: row.platform,
    project: row.project,
    ticket: row.ticket,
    kind: row.kind,
    question: row.question,
    askedAt: row.asked_at.toISOString(),
    answer: row.answer,
    answeredBy: row.answered_by,
    answerSource: row.answer_source,
    answeredAt: row.answered_at?.toISOString() ?? null,
    resumedRunId: row.resumed_run_id,
  };
}

/** The shared HandBack view of a row (what the model and other callers see). */
export function toHandBack(q: RunQuestion): HandBack {
  return { runId: q.runId, kind: q.kind, question: q.question, askedAt: q.askedAt, answer: q.answer, answeredBy: q.answeredBy, answerSource: q.answerSource };
}
