import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { foldRoleName } from '../auth/built-in-roles.js';
import { type AccessDocument, normalizeGroupValue } from '../auth/role-resolution.js';

const EMPTY: AccessDocument = { groupRoles: {}, personGrants: [], customRoles: {} };
/** A saved change applies to the next request here (cache dropped on write); other replicas see it within this. */
const REFRESH_MS = 5_000;
const BOOTSTRAP_IMPORT_MARKER = 'auth-bootstrap-import';

/**
 * The access document (group mappings, person grants, custom roles) in the database. Reads are
 * served from memory and refreshed in the background, so the guard never waits on a query.
 * While the database is unavailable the document is empty: role claims and SERVICE_ADMIN_GRANT
 * still resolve.
 */
@Injectable()
export class AccessStoreService {
  private readonly logger = new Logger('AccessStore');
  private cached: AccessDocument = EMPTY;
  private loadedAt = 0;
  private loading: Promise<AccessDocument> | null = null;
  /** Bumped by `invalidate()`: a load started before a write neither serves nor caches its stale read. */
  private generation = 0;

  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
  ) {
    db.onStatus((status) => {
      if (status.state === 'ready') void this.importBootstrapOnce().then(() => this.refresh());
    });
  }

  /** The current document; loads it on first use, then refreshes it in the background. */
  async document(): Promise<AccessDocument> {
    if (this.loadedAt === 0) return this.refresh();
    if (Date.now() - this.loadedAt > REFRESH_MS) void this.refresh();
    return this.cached;
  }

  /** Drops the cache: the next request reads what was just written. */
  invalidate(): void {
    this.loadedAt = 0;
    this.generation += 1;
    this.loading = null;
  }

  refresh(): Promise<AccessDocument> {
    if (!this.loading) {
      const loading = this.load(this.generation).finally(() => {
        if (this.loading === loading) this.loading = null;
      });
      this.loading = loading;
    }
    return this.loading;
  }

  private async load(generation: number): Promise<AccessDocument> {
    if (!this.db.isReady) return this.cached;
    try {
      const source = this.db.dataSource;
      const [groups, grants, roles] = await Promise.all([
        source.query('SELECT group_value, roles FROM access_group_roles') as Promise<{ group_value: string; roles: string[] }[]>,
        source.query('SELECT claim, value, role FROM access_person_grants') as Promise<{ claim: string; value: string; role: string }[]>,
        source.query('SELECT name, permissions FROM access_custom_roles') as Promise<{ name: string; permissions: string[] }[]>,
      ]);
      const document: AccessDocument = {
        groupRoles: Object.fromEntries(groups.map((g) => [g.group_value, g.roles])),
        personGrants: grants,
        customRoles: Object.fromEntries(roles.map((r) => [r.name, r.permissions])),
      };
      // Read before the last invalidate(): keep it out of the cache (a newer load is or will be under way).
      if (generation !== this.generation) return document;
      this.cached = document;
      this.loadedAt = Date.now();
    } catch (error) {
      this.logger.warn(`access document could not be read; keeping the last one: ${(error as Error).message}`);
    }
    return this.cached;
  }

  /**
   * Spec rule 13: `auth.group_roles` and `auth.roles` in the bootstrap file are imported once, on
   * the first boot that sees them; afterwards the database is authoritative and they are ignored.
   */
  async importBootstrapOnce(): Promise<void> {
    const auth = this.config.config.auth;
    if (!auth || (Object.keys(auth.group_roles).length === 0 && Object.keys(auth.roles).length === 0)) return;
    try {
      await this.db.dataSource.transaction(async (tx) => {
        const inserted: unknown[] = await tx.query(
          `INSERT INTO access_markers (name, detail) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name`,
          [BOOTSTRAP_IMPORT_MARKER, JSON.stringify({ groups: Object.keys(auth.group_roles), roles: Object.keys(auth.roles) })],
        );
        if (inserted.length === 0) return;
        for (const [group, roles] of Object.entries(auth.group_roles)) {
          await tx.query(
            `INSERT INTO access_group_roles (group_value, roles, updated_by) VALUES ($1, $2, 'bootstrap-import') ON CONFLICT DO NOTHING`,
            [normalizeGroupValue(group), roles.map(foldRoleName)],
          );
        }
        for (const [name, permissions] of Object.entries(auth.roles)) {
          await tx.query(
            `INSERT INTO access_custom_roles (name, permissions, updated_by) VALUES ($1, $2, 'bootstrap-import') ON CONFLICT DO NOTHING`,
            [foldRoleName(name), permissions],
          );
        }
        this.logger.log(`imported ${Object.keys(auth.group_roles).length} group mapping(s) and ${Object.keys(auth.roles).length} custom role(s) from the bootstrap file; the database is authoritative from now on`);
      });
      this.invalidate();
    } catch (error) {
      this.logger.warn(`bootstrap import of access settings failed (will retry at next start): ${(error as Error).message}`);
    }
  }
}
