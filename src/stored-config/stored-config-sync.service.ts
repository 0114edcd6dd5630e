import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { SecretsStore } from '../secrets/secrets-store.service.js';
import type { StoredSettings } from '../settings/settings-document.js';
import { readSettingRows, settingsOf } from '../settings/settings-rows.js';

/** How often each replica reads `config_revision` (one primary-key row) to notice another replica's write. */
const POLL_MS = 1_000;

/**
 * Keeps this replica's configuration in step with what is stored in the database: the stored
 * secrets and the stored settings. Both are loaded when the database is ready and again whenever
 * `config_revision` moved (a write here or on any replica, an import), then handed to ConfigService
 * in one reload. Re-resolves only on a real change: a reload re-reads the file and tells every
 * listener. One part that cannot be read keeps its last value; the other still applies.
 */
@Injectable()
export class StoredConfigSync implements OnModuleDestroy {
  private readonly logger = new Logger('StoredConfigSync');
  private seenRevision: string | null = null;
  private appliedSecrets = '';
  private appliedSettings = '';
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private warned: string | null = null;

  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
    private readonly secrets: SecretsStore,
  ) {
    db.onStatus((status) => {
      if (status.state === 'ready') void this.refresh();
    });
    if (db.isReady) void this.refresh();
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** The `config_revision` this replica last loaded (null before the database answered). */
  get revision(): string | null {
    return this.seenRevision;
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Loads now; resolves once a load that started after this call has applied (a load already under
   * way may have read before the caller's write, so one more follows it).
   */
  refresh(): Promise<void> {
    if (!this.running) {
      this.running = this.load().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = null;
      return this.refresh();
    });
    return this.queued;
  }

  private async poll(): Promise<void> {
    if (!this.db.isReady || this.running) return;
    try {
      const revision = await this.readRevision();
      if (revision !== this.seenRevision) await this.refresh();
    } catch {
      // The database went away: keep what is resolved; the next poll tries again.
    }
  }

  private async readRevision(): Promise<string | null> {
    const [row] = await this.db.dataSource.query('SELECT revision::text AS revision FROM config_revision');
    return row?.revision ?? null;
  }

  private async load(): Promise<void> {
    if (!this.db.isReady) return;
    let revision: string | null;
    try {
      // The revision first: a write landing between the reads is then seen again by the next poll.
      revision = await this.readRevision();
    } catch (error) {
      this.logger.warn(`config_revision could not be read; keeping the stored configuration in force: ${(error as Error).message}`);
      return;
    }
    const query = (sql: string, p?: unknown[]) => this.db.dataSource.query(sql, p);
    const [secretRows, settingRows] = await Promise.all([
      query('SELECT name, value FROM secrets ORDER BY name').catch((error: Error) => this.keep('stored secrets', error)),
      readSettingRows(query).catch((error: Error) => this.keep('stored settings', error)),
    ]);
    // Only a complete read settles the revision: otherwise the next poll tries again.
    if (secretRows && settingRows) {
      this.seenRevision = revision;
      this.warned = null;
    }
    const next: { secrets?: Record<string, string>; settings?: StoredSettings } = {};
    if (secretRows) {
      const stored = this.secrets.openAll(secretRows as { name: string; value: Buffer }[]);
      const fingerprint = JSON.stringify(Object.entries(stored));
      if (fingerprint !== this.appliedSecrets) {
        this.appliedSecrets = fingerprint;
        next.secrets = stored;
      }
    }
    if (settingRows) {
      const fingerprint = JSON.stringify(settingRows.map((r) => [r.key, r.value]));
      if (fingerprint !== this.appliedSettings) {
        this.appliedSettings = fingerprint;
        next.settings = settingsOf(settingRows);
      }
    }
    if (next.secrets || next.settings) this.config.setStored(next);
  }

  private keep(what: string, error: Error): null {
    const warning = `${what} could not be read; keeping the last ones: ${error.message}`;
    // Retried every poll until it reads: said once, not every second.
    if (warning !== this.warned) this.logger.warn(warning);
    this.warned = warning;
    return null;
  }
}
