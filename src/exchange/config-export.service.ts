import { Inject, Injectable } from '@nestjs/common';
import { readAccessRecords } from '../access/access-records.js';
import { AccessStoreService } from '../access/access-store.service.js';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import { ConfigService } from '../config/config.service.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { DatabaseService } from '../database/database.service.js';
import { CONFIG_DOCUMENT_FORMAT, CONFIG_DOCUMENT_VERSION, type ConfigDocument } from './config-document.js';
import { exportedConfiguration, secretReferences } from './configuration-exchange.js';
import { referenceSources } from '../config/secret-references.js';
import { mapLeaves } from '../settings/config-tree.js';
import { secretMask } from '../settings/effective-config.js';
import { readStoredSettings } from '../settings/settings-rows.js';

/**
 * Builds the configuration document (spec: config.export + secrets.read). The stored settings,
 * the access records and the stored secrets' names are read from the database in one snapshot
 * (not from this replica's caches, which may trail a write on another replica by a second).
 * Observations and every secret value stay out.
 */
@Injectable()
export class ConfigExportService {
  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
    private readonly accessStore: AccessStoreService,
    @Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment,
  ) {}

  async export(attribution: string, now = new Date()): Promise<ConfigDocument> {
    const configured = this.accessStore.configuredClaimNames();
    const { settings, access, storedNames } = await this.db.dataSource.transaction('REPEATABLE READ', async (tx) => {
      const query = (sql: string, p?: unknown[]) => tx.query(sql, p);
      const rows: { name: string }[] = await query('SELECT name FROM secrets ORDER BY name');
      return { settings: await readStoredSettings(query), access: await readAccessRecords(query, configured), storedNames: rows.map((r) => r.name) };
    });
    // A literal value at a secret field (written in the file) leaves as `***`, never as itself: an
    // import refuses it as a literal secret until it is replaced by a `${NAME}` reference.
    const mask = secretMask(this.config.secretFields, this.config.config, this.env);
    const configuration = mapLeaves(exportedConfiguration(this.config.fileRaw, settings), mask) as Record<string, unknown>;
    const { secrets, stored_secrets } = this.config.config;
    return {
      format: CONFIG_DOCUMENT_FORMAT,
      version: CONFIG_DOCUMENT_VERSION,
      exported_at: now.toISOString(),
      exported_by: attribution,
      configuration,
      access,
      secrets: secretReferences(configuration, storedNames, referenceSources(secrets, stored_secrets, this.env.variables)),
    };
  }
}
