import type { Query } from '../changes/change-record.js';
import type { StoredSettings } from '../settings/settings-document.js';

/** Every stored setting (`config_settings`), by key. */
export async function readStoredSettings(query: Query): Promise<Record<string, unknown>> {
  const rows = await query('SELECT key, value FROM config_settings ORDER BY key');
  return Object.fromEntries(rows.map((r) => [r.key as string, r.value]));
}

/**
 * Replaces every stored setting with `settings` inside the caller's transaction (an import:
 * settings saved one by one go through the settings writer). A null value is stored as JSON
 * null, which the loader reads as the block being absent.
 */
export async function replaceStoredSettings(query: Query, settings: StoredSettings, attribution: string): Promise<void> {
  await query('DELETE FROM config_settings');
  for (const [key, value] of Object.entries(settings)) {
    await query('INSERT INTO config_settings (key, value, updated_by) VALUES ($1, $2::jsonb, $3)', [key, JSON.stringify(value), attribution]);
  }
}
