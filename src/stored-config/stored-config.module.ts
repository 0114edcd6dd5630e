import { Global, Module } from '@nestjs/common';
import { SecretsStore } from '../secrets/secrets-store.service.js';
import { StoredConfigSync } from './stored-config-sync.service.js';

/**
 * The configuration's stored parts (secrets and settings) kept current from the database. Part of
 * the core, so `pipeline-service doctor` judges the same configuration the server runs on.
 */
@Global()
@Module({ providers: [SecretsStore, StoredConfigSync], exports: [SecretsStore, StoredConfigSync] })
export class StoredConfigModule {}
