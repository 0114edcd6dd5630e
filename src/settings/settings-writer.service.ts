import { isDeepStrictEqual } from 'node:util';
import { Injectable } from '@nestjs/common';
import type { AccessRefusal as Refusal } from '../access/access-change.js';
import { insertChange, newerChangesOn, type Query, WHOLE_CONFIGURATION } from '../changes/change-record.js';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import type { Finding } from '../findings/finding.js';
import { StoredConfigSync } from '../stored-config/stored-config-sync.service.js';
import { checkSettingKey, type StoredSettings } from './settings-document.js';
import { settingsOf } from './settings-rows.js';
import { validateSettings } from './settings-validation.js';

/**
 * Serialises settings writes across replicas, so each save is validated against the settings
 * really stored and a revert's "no newer change" check holds when it lands. An import that
 * replaces `config_settings` takes it too.
 */
export const SETTINGS_WRITE_LOCK = 0x7365_7474_696e; // 'settin'

export const settingTarget = (key: string) => `setting:${key}`;

export type SettingWriteResult =
  | {
    /** The change record; null when the value was already stored at the key (nothing written, nothing recorded). */
    outcome: 'saved'; changeId: number | null;
    /** New advisory findings elsewhere that the save brings (it was not refused for them). */
    warnings: Finding[];
    /** Stored keys below this one: they still win over what was saved here. */
    overriddenBy: string[];
  }
  | { outcome: 'refused'; refusal: Refusal };

/**
 * Every write of a stored setting (dashboard save, delete, revert): the key checked, the candidate
 * read by the loader itself (settings-validation.ts), then in one transaction under one lock the row
 * written or deleted, `config_revision` bumped (every replica re-reads within a second) and the
 * change recorded with the value before and after. This replica applies it before answering.
 */
@Injectable()
export class SettingsWriter {
  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
    private readonly sync: StoredConfigSync,
  ) {}

  save(key: string, value: unknown, attribution: string, revertOf: number | null = null): Promise<SettingWriteResult> {
    return this.write(key, { value }, attribution, revertOf);
  }

  /** Back to the file's value (or the default). */
  remove(key: string, attribution: string, revertOf: number | null = null): Promise<SettingWriteResult> {
    return this.write(key, null, attribution, revertOf);
  }

  private async write(key: string, next: { value: unknown } | null, attribution: string, revertOf: number | null): Promise<SettingWriteResult> {
    const checked = checkSettingKey(key);
    if (!checked.ok) return refused(checked.code === 'bootstrap_setting' ? 'conflict' : 'invalid', checked.code, checked.error);
    const result = await this.db.dataSource.transaction(async (tx): Promise<SettingWriteResult> => {
      const query: Query = (sql, p) => tx.query(sql, p);
      await query('SELECT pg_advisory_xact_lock($1)', [SETTINGS_WRITE_LOCK]);
      if (revertOf !== null) {
        const newer = await newerChangesOn(query, revertOf, [settingTarget(key), WHOLE_CONFIGURATION]);
        if (newer.length > 0) return refused('conflict', 'newer_change', `setting ${key} was changed again after change ${revertOf}; revert the newer change(s) first`, { newerChanges: newer });
      }
      const current = settingsOf(await query('SELECT key, value FROM config_settings'));
      const existed = Object.hasOwn(current, key);
      if (next === null && !existed) return refused('not-found', 'not_found', `no stored setting ${key}: its value comes from the bootstrap file or the defaults`);
      const candidate = withChange(current, key, next);
      const verdict = validateSettings(this.config.env, this.config.fileRaw, this.config.config.stored_secrets, current, candidate, [key]);
      if (verdict.literalSecrets.length > 0) {
        return refused('invalid', 'literal_secret',
          `${verdict.literalSecrets.join(', ')} ${verdict.literalSecrets.length > 1 ? 'hold secrets' : 'holds a secret'}: a setting takes a \${NAME} reference there, not a value. `
          + 'Store the value under PUT /api/secrets/NAME and save "${NAME}" here', { fields: verdict.literalSecrets });
      }
      if (verdict.problems.length > 0) {
        return refused('invalid', 'invalid_setting', `setting ${key} is refused: ${verdict.problems.map((f) => `${f.field ?? 'configuration'}: ${f.reason}`).join('; ')}`,
          { findings: verdict.problems.map(({ field, severity, reason }) => ({ field, severity, reason })) });
      }
      const overriddenBy = Object.keys(candidate).filter((k) => k.startsWith(`${key}.`)).sort();
      // Saving what is already stored changes nothing: no write, no revision, no record (a revert always records).
      if (revertOf === null && next !== null && existed && isDeepStrictEqual(current[key], next.value)) {
        return { outcome: 'saved', changeId: null, warnings: [], overriddenBy };
      }
      if (next === null) await query('DELETE FROM config_settings WHERE key = $1', [key]);
      else {
        await query(
          `INSERT INTO config_settings (key, value, updated_by) VALUES ($1, $2::jsonb, $3)
           ON CONFLICT (key) DO UPDATE SET value = $2::jsonb, updated_by = $3, updated_at = now()`,
          [key, JSON.stringify(next.value), attribution],
        );
      }
      await query('UPDATE config_revision SET revision = revision + 1');
      const changeId = await insertChange(query, {
        attribution, kind: next === null ? 'setting.delete' : 'setting.put', target: settingTarget(key),
        before: existed ? { key, value: current[key] } : null, after: next === null ? null : { key, value: next.value }, revertOf,
      });
      return { outcome: 'saved', changeId, warnings: verdict.warnings, overriddenBy };
    });
    if (result.outcome === 'saved') await this.sync.refresh();
    return result;
  }
}

function withChange(current: StoredSettings, key: string, next: { value: unknown } | null): StoredSettings {
  const candidate: Record<string, unknown> = Object.assign(Object.create(null), current);
  if (next === null) delete candidate[key];
  else candidate[key] = next.value;
  return candidate;
}

function refused(reason: Refusal['reason'], code: string, error: string, details?: Record<string, unknown>): SettingWriteResult {
  return { outcome: 'refused', refusal: { reason, code, error, ...(details ? { details } : {}) } };
}
