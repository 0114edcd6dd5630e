import { Injectable } from '@nestjs/common';
import type { AccessRefusal as Refusal } from '../access/access-change.js';
import { insertChange, MASKED, newerChangesOn } from '../changes/change-record.js';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { StoredConfigSync } from '../stored-config/stored-config-sync.service.js';
import { encryptSecret } from './secret-cipher.js';
import { secretUses } from './secret-uses.js';
import { SECRETS_KEY_VARIABLE } from './secrets-key.js';
import { SecretsStore } from './secrets-store.service.js';

/** Serialises secret writes across replicas, so a revert's "no newer change" check holds when it lands. */
const SECRETS_WRITE_LOCK = 0x73656372657473; // 'secrets'

export type SecretWriteResult = { outcome: 'saved'; changeId: number } | { outcome: 'refused'; refusal: Refusal };

export const secretTarget = (name: string) => `secret:${name}`;

/**
 * Every write of a stored secret: in one transaction, under one lock, write the sealed value,
 * bump `config_revision` (every replica re-resolves within a second) and record the change with
 * the previous value kept sealed for a revert. The feed's before/after never hold a value.
 */
@Injectable()
export class SecretsWriter {
  constructor(
    private readonly db: DatabaseService,
    private readonly store: SecretsStore,
    private readonly sync: StoredConfigSync,
    private readonly config: ConfigService,
  ) {}

  /**
   * Configuration keys that reference `${name}` and would lose their value without it. The
   * `secrets:` map itself resolves against the environment only, and a name it defines shadows
   * the stored secret: neither counts.
   */
  usesOf(name: string): string[] {
    if (Object.hasOwn(this.config.config.secrets, name)) return [];
    return (secretUses(this.config.raw).get(name) ?? []).filter((path) => !path.startsWith('secrets.'));
  }

  save(name: string, value: string, attribution: string, revertOf: number | null = null): Promise<SecretWriteResult> {
    return this.write(name, value, attribution, revertOf);
  }

  /** Refused (409, naming the uses) while a configuration key references it: deleting would unconfigure it silently. */
  remove(name: string, attribution: string, revertOf: number | null = null): Promise<SecretWriteResult> {
    return this.write(name, null, attribution, revertOf);
  }

  private async write(name: string, value: string | null, attribution: string, revertOf: number | null): Promise<SecretWriteResult> {
    const key = this.store.key;
    if (value !== null && key.state !== 'ok') {
      return refused('conflict', 'no_secrets_key', `secrets cannot be saved: ${SECRETS_KEY_VARIABLE} is ${key.state === 'missing' ? 'not set' : 'invalid'} (32 bytes, base64)`);
    }
    const result = await this.db.dataSource.transaction(async (tx): Promise<SecretWriteResult> => {
      const query = (sql: string, p?: unknown[]) => tx.query(sql, p);
      await query('SELECT pg_advisory_xact_lock($1)', [SECRETS_WRITE_LOCK]);
      if (revertOf !== null) {
        const newer = await newerChangesOn(query, revertOf, [secretTarget(name)]);
        if (newer.length > 0) return refused('conflict', 'newer_change', `secret ${name} was changed again after change ${revertOf}; revert the newer change(s) first`, { newerChanges: newer });
      }
      const [existing]: { value: Buffer }[] = await query('SELECT value FROM secrets WHERE name = $1', [name]);
      if (value === null) {
        if (!existing) return refused('not-found', 'not_found', `no stored secret ${name}`);
        const uses = this.usesOf(name);
        if (uses.length > 0) return refused('conflict', 'in_use', `secret ${name} is referenced by ${uses.join(', ')}; change those keys first`, { uses });
        await query('DELETE FROM secrets WHERE name = $1', [name]);
      } else {
        const sealed = encryptSecret((key as { key: Buffer }).key, name, value);
        await query(
          `INSERT INTO secrets (name, value, updated_by) VALUES ($1, $2, $3)
           ON CONFLICT (name) DO UPDATE SET value = $2, updated_by = $3, updated_at = now()`,
          [name, sealed, attribution],
        );
      }
      await query('UPDATE config_revision SET revision = revision + 1');
      const changeId = await insertChange(query, {
        attribution, kind: value === null ? 'secret.delete' : 'secret.put', target: secretTarget(name),
        before: existing ? { name, value: MASKED } : null, after: value === null ? null : { name, value: MASKED },
        beforeSecret: existing?.value ?? null, revertOf,
      });
      return { outcome: 'saved', changeId };
    });
    if (result.outcome === 'saved') await this.sync.refresh();
    return result;
  }
}

function refused(reason: Refusal['reason'], code: string, error: string, details?: Record<string, unknown>): SecretWriteResult {
  return { outcome: 'refused', refusal: { reason, code, error, ...(details ? { details } : {}) } };
}
