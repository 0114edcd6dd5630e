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

/** Every stored setting, by key, as the loader takes them. */
export async function readStoredSettings(query: Query): Promise<StoredSettings> {
  return settingsOf(await readSettingRows(query));
}

/**
 * Replaces every stored setting with `settings` inside the caller's transaction, which holds
 * SETTINGS_WRITE_LOCK (an import; a single save goes through SettingsWriter). A null value is
 * stored as JSON null, which the loader reads as the block being absent.
 */
export async function replaceStoredSettings(query: Query, settings: StoredSettings, attribution: string): Promise<void> {
  await query('DELETE FROM config_settings');
  for (const [key, value] of Object.entries(settings)) {
    await query('INSERT INTO config_settings (key, value, updated_by) VALUES ($1, $2::jsonb, $3)', [key, JSON.stringify(value), attribution]);
  }
}
