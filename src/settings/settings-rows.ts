import type { Query } from '../changes/change-record.js';
import type { StoredSettings } from './settings-document.js';

export interface StoredSettingRow {
  key: string;
  value: unknown;
  updatedAt: string;
  updatedBy: string;
}

/** Every row of `config_settings` by key, or the one at `key`. */
export async function readSettingRows(query: Query, key: string | null = null): Promise<StoredSettingRow[]> {
  const rows: { key: string; value: unknown; updated_at: Date; updated_by: string }[] = key === null
    ? await query('SELECT key, value, updated_at, updated_by FROM config_settings ORDER BY key')
    : await query('SELECT key, value, updated_at, updated_by FROM config_settings WHERE key = $1', [key]);
  return rows.map((r) => ({ key: r.key, value: r.value, updatedAt: new Date(r.updated_at).toISOString(), updatedBy: r.updated_by }));
}

/** The rows as the loader takes them: key → value. */
export function settingsOf(rows: readonly { key: string; value: unknown }[]): StoredSettings {
  const settings: Record<string, unknown> = Object.create(null);
  for (const row of rows) settings[row.key] = row.value;
  return settings;
}
