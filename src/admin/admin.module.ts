import { Module } from '@nestjs/common';
import { AccessReader } from '../access/access-reader.service.js';
import { AccessWriter } from '../access/access-writer.service.js';
import { ConfigChangesService } from '../changes/config-changes.service.js';
import { SecretsStore } from '../secrets/secrets-store.service.js';
import { SecretsWriter } from '../secrets/secrets-writer.service.js';
import { StoredConfigSync } from '../stored-config/stored-config-sync.service.js';
import { AccessController } from './access.controller.js';
import { ConfigChangesController } from './config-changes.controller.js';
import { SecretsController } from './secrets.controller.js';

/**
 * The admin plane: the Access surface, stored secrets and the change feed (AccessStoreService
 * comes from the global AuthModule). StoredConfigSync also keeps every replica's configuration
 * in step with the stored secrets and settings, whether or not anyone calls these routes.
 */
@Module({
  controllers: [AccessController, SecretsController, ConfigChangesController],
  providers: [AccessReader, AccessWriter, SecretsStore, StoredConfigSync, SecretsWriter, ConfigChangesService],
})
export class AdminModule {}
