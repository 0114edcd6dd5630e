import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigModule } from '../../../src/config/config.module.js';
import type { ServiceEnvironment } from '../../../src/config/environment.js';
import type { RepoConfig } from '../../../src/config/service-config.js';
import type { Platform } from '../../../src/platforms/platform.js';
import { StoreConnectionService } from '../../../src/store/store-connection.service.js';
import { StoreModule } from '../../../src/store/store.module.js';
import type { WriteAccessQuery } from '../../../src/write-access/write-access.js';
import { WriteAccessModule } from '../../../src/write-access/write-access.module.js';
import type { WriteAccessOptions } from '../../../src/write-access/write-access.options.js';
import { WriteAccessService } from '../../../src/write-access/write-access.service.js';
import { eventually } from '../../support/eventually.js';

/** Short HTTP timings: a refused or silent host answers within a second or two. */
export const FAST_HTTP: WriteAccessOptions['http'] = { timeoutMs: 1_000, maxAttempts: 2, baseBackoffMs: 10, maxRetryWaitMs: 100 };

/** service.yml projects: `shop` checks membership (the default), `open` does not. */
export const PROJECTS = {
  shop: { tracker: 'platform-a', pr_commands: { enabled: true } },
  open: { tracker: 'platform-b', pr_commands: { enabled: true, require_member: false } },
};

/**
 * The real WriteAccessModule on the real configuration and store (one replica). Two of them on
 * one environment share the store like two replicas of the server.
 */
export class WriteAccessApp {
  private constructor(readonly app: INestApplicationContext) {}

  static async boot(env: ServiceEnvironment, options: Partial<WriteAccessOptions> = {}): Promise<WriteAccessApp> {
    @Module({ imports: [ConfigModule.forEnvironment(env), StoreModule, WriteAccessModule.withOptions({ http: FAST_HTTP, ...options })] })
    class WriteAccessTestModule {}
    const app = await NestFactory.createApplicationContext(WriteAccessTestModule, { logger: ['error'] });
    const store = app.get(StoreConnectionService);
    if (store.isConfigured) await eventually(async () => ((await store.check()) ? true : undefined), 10_000, 'the store');
    return new WriteAccessApp(app);
  }

  get service(): WriteAccessService {
    return this.app.get(WriteAccessService);
  }

  close(): Promise<void> {
    return this.app.close();
  }
}

/** A repository as the configuration holds it once secrets are resolved. */
export function repoConfig(platform: Platform, overrides: Partial<RepoConfig> & Pick<RepoConfig, 'url'>): RepoConfig {
  return { name: 'repo', platform, api_url: null, path_prefix: '', auth_secret: null, branch: null, ...overrides };
}

/** A query for `author` on `repo` of project `shop` (or `project`). */
export function queryOf(
  repo: RepoConfig | null,
  author: { login?: string | null; id?: string | null },
  extra: { platform?: Platform; project?: string; authorAssociation?: string | null } = {},
): WriteAccessQuery {
  return {
    platform: extra.platform ?? (repo?.platform as Platform),
    project: extra.project ?? 'shop',
    repo,
    author: { login: author.login ?? null, id: author.id ?? null, displayName: null },
    authorAssociation: extra.authorAssociation ?? null,
  };
}
