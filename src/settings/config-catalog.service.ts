import { Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { StoredConfigSync } from '../stored-config/stored-config-sync.service.js';
import { isAtOrUnder, mapLeaves, valueAt } from './config-tree.js';
import { type ConfigLeaf, type ConfigSource, effectiveConfig, secretMask, strongestSource } from './effective-config.js';
import { BOOTSTRAP_SETTING_KEYS } from './settings-document.js';
import { readSettingRows, type StoredSettingRow } from './settings-rows.js';

export interface SettingView {
  key: string;
  /** The value in force at the key (a block: everything under it), masked. */
  value: unknown;
  /** The strongest source under the key (store > environment > file > default); `keys` has each one's. */
  source: ConfigSource;
  keys: ConfigLeaf[];
  /** The stored setting at exactly this key, if any (a deeper stored key shows in `keys` as `store`). */
  stored: StoredSettingRow | null;
  bootstrap: boolean;
}

/**
 * The configuration catalog (GET /api/config and /api/config/settings): what is in force on this
 * replica and where each value comes from, and the stored settings. Every value shown passes
 * secretMask; stored secrets and the `secrets:` block are named, never shown.
 */
@Injectable()
export class ConfigCatalog {
  constructor(
    private readonly config: ConfigService,
    private readonly sync: StoredConfigSync,
    private readonly db: DatabaseService,
  ) {}

  overview() {
    const view = this.view();
    return {
      file: this.config.file,
      /** The config_revision this replica has applied (null before the database answered). */
      revision: this.sync.revision,
      bootstrap: this.config.bootstrapSettings.map((b) => view.leaves.find((l) => l.key === b.key)!),
      secrets: view.secretNames,
      keys: view.leaves,
    };
  }

  async storedSettings(): Promise<StoredSettingRow[]> {
    const rows = await readSettingRows((sql, p) => this.db.dataSource.query(sql, p));
    return rows.map((row) => this.masked(row));
  }

  /** null: nothing is in force at the key (neither the file, a stored setting, nor a default). */
  async setting(key: string): Promise<SettingView | null> {
    const view = this.view();
    const at = valueAt(view.tree, key);
    if (!at.found) return null;
    const keys = view.leaves.filter((l) => isAtOrUnder(l.key, key));
    const [row] = await readSettingRows((sql, p) => this.db.dataSource.query(sql, p), key);
    return {
      key, value: at.value, source: strongestSource(keys), keys, stored: row ? this.masked(row) : null,
      bootstrap: BOOTSTRAP_SETTING_KEYS.some((b) => isAtOrUnder(b, key) || isAtOrUnder(key, b)),
    };
  }

  private view() {
    const c = this.config;
    return effectiveConfig({ document: c.raw, settings: c.storedSettings, env: c.env, config: c.config, secretFields: c.secretFields, bootstrap: c.bootstrapSettings });
  }

  private masked(row: StoredSettingRow): StoredSettingRow {
    const mask = secretMask(this.config.secretFields, this.config.config, this.config.env);
    return { ...row, value: mapLeaves(row.value, mask, row.key) };
  }
}
