import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import type { Principal } from '../auth/principal.js';

interface PendingObservation {
  subject: string;
  nameClaim: string;
  nameValue: string | null;
  roleValues: string[];
  groupValues: string[];
  lastSeen: Date;
}

const FLUSH_EVERY_MS = 5_000;
const PRUNE_EVERY_MS = 6 * 3600_000;

/**
 * Notes each validated caller (spec "Observation"): coalesced in memory per subject and written
 * off the request path; a storage failure never refuses a caller, it only delays the record.
 * Records older than `observation_retention_days` are pruned.
 */
@Injectable()
export class ObservationRecorder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Observations');
  private pending = new Map<string, PendingObservation>();
  private timers: NodeJS.Timeout[] = [];
  /** Flushes run one after another, so the shutdown flush also waits for a timer flush under way. */
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
  ) {}

  note(p: Principal): void {
    this.pending.set(p.subject, {
      subject: p.subject, nameClaim: p.nameClaim, nameValue: p.nameClaimValue,
      roleValues: p.roleClaimValues, groupValues: p.groupClaimValues, lastSeen: new Date(),
    });
  }

  onApplicationBootstrap(): void {
    this.timers.push(setInterval(() => void this.flush(), FLUSH_EVERY_MS), setInterval(() => void this.prune(), PRUNE_EVERY_MS));
    for (const t of this.timers) t.unref();
  }

  /** Writes what was noted since the last flush; keeps it for the next one when the database is away. */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.write());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0 || !this.db.isReady) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.db.dataSource.query(
        `INSERT INTO access_observations (subject, name_claim, name_value, role_values, group_values, last_seen)
         SELECT subject, name_claim, name_value, role_values::text[], group_values::text[], last_seen
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
           AS o(subject, name_claim, name_value, role_values, group_values, last_seen)
         ON CONFLICT (subject) DO UPDATE SET name_claim = EXCLUDED.name_claim, name_value = EXCLUDED.name_value,
           role_values = EXCLUDED.role_values, group_values = EXCLUDED.group_values, last_seen = EXCLUDED.last_seen`,
        [
          batch.map((o) => o.subject), batch.map((o) => o.nameClaim), batch.map((o) => o.nameValue),
          batch.map((o) => `{${o.roleValues.map(pgArrayItem).join(',')}}`),
          batch.map((o) => `{${o.groupValues.map(pgArrayItem).join(',')}}`),
          batch.map((o) => o.lastSeen),
        ],
      );
    } catch (error) {
      for (const o of batch) if (!this.pending.has(o.subject)) this.pending.set(o.subject, o);
      this.logger.warn(`observations not stored yet (will retry): ${(error as Error).message}`);
    }
  }

  async prune(): Promise<void> {
    if (!this.db.isReady) return;
    const days = this.config.config.observation_retention_days;
    await this.db.dataSource
      .query(`DELETE FROM access_observations WHERE last_seen < now() - make_interval(days => $1)`, [days])
      .catch((error: Error) => this.logger.warn(`observation pruning failed: ${error.message}`));
  }

  /** Before any module's onApplicationShutdown: the database is still open for the last flush. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.flush();
  }
}

/** One element of a PostgreSQL array literal, quoted and escaped. */
function pgArrayItem(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
