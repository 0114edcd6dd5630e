import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { type Finding, FindingSubsystem, finding } from '../findings/finding.js';
import { FindingsService } from '../findings/findings.service.js';
import { decryptSecret } from './secret-cipher.js';
import { parseSecretsKey, SECRETS_KEY_VARIABLE, type SecretsKey } from './secrets-key.js';

const FINDINGS_SOURCE = 'secrets';
/** How often each replica reads `config_revision` (one primary-key row) to notice another replica's write. */
const POLL_MS = 1_000;

export interface StoredSecretRow { name: string; updatedAt: string; updatedBy: string; readable: boolean }

/**
 * Keeps the configuration resolved against the stored secrets on this replica: loads them when the
 * database is ready, and again whenever `config_revision` moved (a write here or on any replica),
 * then hands the decrypted values to ConfigService, which re-resolves every `${NAME}`. A secret that
 * cannot be decrypted (no key, a wrong key) is left out, so its references count as unconfigured,
 * and is a finding.
 */
@Injectable()
export class SecretsStore implements OnModuleDestroy {
  private readonly logger = new Logger('SecretsStore');
  readonly key: SecretsKey;
  private revision: string | null = null;
  private applied = '';
  private timer: NodeJS.Timeout | null = null;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
    private readonly findings: FindingsService,
  ) {
    this.key = parseSecretsKey(config.env.secretsKey);
    this.report([]);
    db.onStatus((status) => {
      if (status.state === 'ready') void this.refresh();
    });
    if (db.isReady) void this.refresh();
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reloads now (after a write here): the next read of the configuration sees it. */
  refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** Every stored secret's metadata, never its value. */
  async rows(): Promise<StoredSecretRow[]> {
    const rows: { name: string; value: Buffer; updated_at: Date; updated_by: string }[] =
      await this.db.dataSource.query('SELECT name, value, updated_at, updated_by FROM secrets ORDER BY name');
    return rows.map((r) => ({ name: r.name, updatedAt: r.updated_at.toISOString(), updatedBy: r.updated_by, readable: this.open(r.name, r.value) !== null }));
  }

  open(name: string, sealed: Buffer): string | null {
    return this.key.state === 'ok' ? decryptSecret(this.key.key, name, sealed) : null;
  }

  private async poll(): Promise<void> {
    if (!this.db.isReady || this.loading) return;
    try {
      const [row] = await this.db.dataSource.query('SELECT revision::text AS revision FROM config_revision');
      if (row && row.revision !== this.revision) await this.refresh();
    } catch {
      // The database went away: keep what is resolved; the next poll tries again.
    }
  }

  private async load(): Promise<void> {
    if (!this.db.isReady) return;
    try {
      const [[rev], rows] = await Promise.all([
        this.db.dataSource.query('SELECT revision::text AS revision FROM config_revision'),
        this.db.dataSource.query('SELECT name, value FROM secrets ORDER BY name') as Promise<{ name: string; value: Buffer }[]>,
      ]);
      const stored: Record<string, string> = Object.create(null);
      const unreadable: string[] = [];
      for (const row of rows) {
        const value = this.open(row.name, row.value);
        if (value === null) unreadable.push(row.name);
        else stored[row.name] = value;
      }
      this.revision = rev?.revision ?? null;
      this.report(unreadable);
      // Re-resolve only on a real change: a reload re-reads the file and tells every listener.
      const fingerprint = JSON.stringify(Object.entries(stored));
      if (fingerprint !== this.applied) {
        this.applied = fingerprint;
        this.config.setStoredSecrets(stored);
      }
    } catch (error) {
      this.logger.warn(`stored secrets could not be read; keeping the last ones: ${(error as Error).message}`);
    }
  }

  private report(unreadable: string[]): void {
    const out: Finding[] = [];
    const field = { field: SECRETS_KEY_VARIABLE };
    if (this.key.state === 'invalid') out.push(finding(FindingSubsystem.Configuration, 'blocking', `${this.key.reason}; stored secrets can be neither read nor saved`, field));
    if (unreadable.length > 0) {
      const why = this.key.state === 'ok' ? `cannot be decrypted with ${SECRETS_KEY_VARIABLE} (was the key changed?)` : `cannot be read: ${SECRETS_KEY_VARIABLE} is ${this.key.state === 'missing' ? 'not set' : 'invalid'}`;
      out.push(finding(FindingSubsystem.Configuration, 'blocking', `${unreadable.length} stored secret(s) ${why}: ${unreadable.join(', ')}; references to them count as unconfigured`, field));
    }
    this.findings.set(FINDINGS_SOURCE, out);
  }
}
