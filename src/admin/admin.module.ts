import { Module } from '@nestjs/common';
import { AccessReader } from '../access/access-reader.service.js';
import { AccessWriter } from '../access/access-writer.service.js';
import { ConfigChangesService } from '../changes/config-changes.service.js';
import { SecretsStore } from '../secrets/secrets-store.service.js';
import { SecretsWriter } from '../secrets/secrets-writer.service.js';
import { AccessController } from './access.controller.js';
import { ArchiveModule } from './archive/archive.module.js';
import { ConfigChangesController } from './config-changes.controller.js';
import { SecretsController } from './secrets.controller.js';

/**
 * The admin plane: the Access surface, stored secrets, the change feed and the archive
 * (AccessStoreService comes from the global AuthModule). SecretsStore also keeps every replica's
 * configuration resolved against the stored secrets, whether or not anyone calls these routes.
 */
@Module({
  imports: [ArchiveModule],
  controllers: [AccessController, SecretsController, ConfigChangesController],
  providers: [AccessReader, AccessWriter, SecretsStore, SecretsWriter, ConfigChangesService],
})
export class AdminModule {}
