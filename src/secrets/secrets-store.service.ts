import { Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { type Finding, FindingSubsystem, finding } from '../findings/finding.js';
import { FindingsService } from '../findings/findings.service.js';
import { decryptSecret } from './secret-cipher.js';
import { openSecrets, parseSecretsKey, SECRETS_KEY_VARIABLE, type SecretsKey } from './secrets-key.js';

const FINDINGS_SOURCE = 'secrets';

export interface StoredSecretRow { name: string; updatedAt: string; updatedBy: string; readable: boolean }

/**
 * The stored secrets' key and their reading: decrypts the rows StoredConfigSync loads (whenever
 * `config_revision` moved) and reports what cannot be read. A secret that cannot be decrypted (no
 * key, a wrong key) is left out, so its references count as unconfigured, and is a finding.
 */
@Injectable()
export class SecretsStore {
  readonly key: SecretsKey;

  constructor(
    private readonly db: DatabaseService,
    config: ConfigService,
    private readonly findings: FindingsService,
  ) {
    this.key = parseSecretsKey(config.env.secretsKey);
    this.report([]);
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

  /** The readable values by name; the unreadable ones become this store's finding. */
  openAll(rows: readonly { name: string; value: Buffer }[]): Record<string, string> {
    const { secrets, unreadable } = openSecrets(this.key, rows);
    this.report(unreadable);
    return secrets;
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
