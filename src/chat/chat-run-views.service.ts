import { Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { RunQuestionsService } from '../conversations/hand-back/run-questions.service.js';
import { DatabaseService } from '../database/database.service.js';
import { RunState } from '../database/entities/run.entity.js';
import type { Run } from '../runs/resource/run-resource.js';
import { RunReaderService } from '../runs/resource/run-reader.service.js';
import { type ChatContent, DashboardLinks, runStatusContent } from './run-status-text.js';

/**
 * A run as a chat message shows it: the Run, plus its place among the runs waiting for capacity
 * (when queued and not yet admitted) and the whole question (when parked).
 */
@Injectable()
export class ChatRunViews {
  constructor(
    private readonly reader: RunReaderService,
    private readonly questions: RunQuestionsService,
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
  ) {}

  get links(): DashboardLinks {
    return new DashboardLinks(this.config.config.chat.dashboard_url);
  }

  async content(runOrId: Run | string, note: string | null = null): Promise<{ run: Run; content: ChatContent } | null> {
    const run = typeof runOrId === 'string' ? await this.reader.get(runOrId) : runOrId;
    if (!run) return null;
    const [position, question] = await Promise.all([this.position(run), this.question(run)]);
    return { run, content: runStatusContent(run, this.links, { position, question, note }) };
  }

  /** 1 = the next to be admitted; null when the run is not waiting for capacity. */
  private async position(run: Run): Promise<number | null> {
    if (run.state !== RunState.Queued || this.config.config.capacity === null) return null;
    const rows: { waiting: boolean; ahead: string }[] = await this.db.dataSource.query(
      `SELECT r.admitted_at IS NULL AS waiting,
              (SELECT count(*) FROM runs o WHERE o.state = 'queued' AND o.admitted_at IS NULL AND o.created_at < r.created_at) AS ahead
       FROM runs r WHERE r.id = $1`, [run.id]);
    const row = rows[0];
    return row?.waiting ? Number(row.ahead) + 1 : null;
  }

  private async question(run: Run): Promise<string | null> {
    if (run.state !== RunState.Parked) return null;
    return (await this.questions.find(run.id).catch(() => null))?.question ?? null;
  }
}
