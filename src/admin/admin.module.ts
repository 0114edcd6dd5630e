import { Module } from '@nestjs/common';
import { AccessBootstrapImport } from '../access/access-bootstrap-import.service.js';
import { AccessReader } from '../access/access-reader.service.js';
import { AccessWriter } from '../access/access-writer.service.js';
import { ConfigChangesService } from '../changes/config-changes.service.js';
import { ConfigExportService } from '../exchange/config-export.service.js';
import { ConfigImportService } from '../exchange/config-import.service.js';
import { SecretsWriter } from '../secrets/secrets-writer.service.js';
import { ConfigCatalog } from '../settings/config-catalog.service.js';
import { SettingsWriter } from '../settings/settings-writer.service.js';
import { AccessController } from './access.controller.js';
import { ArchiveModule } from './archive/archive.module.js';
import { ConfigChangesController } from './config-changes.controller.js';
import { ConfigExchangeController } from './config-exchange.controller.js';
import { ConfigSettingsController } from './config-settings.controller.js';
import { ConfigController } from './config.controller.js';
import { ConfigSchemaController } from './config-schema.controller.js';
import { SecretsController } from './secrets.controller.js';

/**
 * The admin plane: the Access surface, stored secrets, the configuration catalog and stored
 * settings, the change feed, configuration export and import, and the archive (AccessStoreService comes from
 * the global AuthModule; SecretsStore and StoredConfigSync from the core's StoredConfigModule).
 */
@Module({
  imports: [ArchiveModule],
  controllers: [AccessController, SecretsController, ConfigChangesController, ConfigController, ConfigSchemaController, ConfigSettingsController, ConfigExchangeController],
  providers: [
    AccessReader, AccessWriter, AccessBootstrapImport, SecretsWriter, SettingsWriter, ConfigCatalog, ConfigChangesService,
    ConfigExportService, ConfigImportService,
  ],
})
export class AdminModule {}
