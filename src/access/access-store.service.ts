import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import type { AccessDocument, ClaimNames } from '../auth/role-resolution.js';
import { DEFAULT_AUTH_CLAIMS } from '../config/service-config.js';
import { type AccessSnapshot, effectiveClaimNames, NO_STORED_CLAIM_NAMES, readAccessRevision, readAccessSnapshot } from './access-snapshot.js';
import { RevisionCheck } from './revision-check.js';

const EMPTY: AccessSnapshot = { document: { groupRoles: {}, personGrants: [], customRoles: {} }, claimNames: NO_STORED_CLAIM_NAMES, revision: '' };
/** Background refresh, for changes made outside the access writer (which bumps the revision). */
const REFRESH_MS = 5_000;

/**
 * The access document (group mappings, person grants, custom roles) and the saved claim names, in
 * the database. Served from memory; each request reads only the revision (one primary-key row,
 * one read in flight at a time, see RevisionCheck) and reloads when a write on any replica bumped
 * it, so a saved grant applies to the next request everywhere. While the database is unavailable
 * the last document (initially empty) is served: role claims and SERVICE_ADMIN_GRANT still resolve.
 */
@Injectable()
export class AccessStoreService {
  private readonly logger = new Logger('AccessStore');
  private cached: AccessSnapshot = EMPTY;
  private loadedAt = 0;
  private loading: Promise<AccessSnapshot> | null = null;
  private readonly revisions = new RevisionCheck(() => readAccessRevision((sql, p) => this.db.dataSource.query(sql, p)));
  /** Bumped by `invalidate()`: a load started before a write neither serves nor caches its stale read. */
  private generation = 0;

  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
  ) {
    db.onStatus((status) => {
      if (status.state === 'ready') void this.refresh();
    });
  }

  /** The current document; loads it on first use, then refreshes it in the background. */
  async document(): Promise<AccessDocument> {
    return (await this.snapshot()).document;
  }

  /** The document and saved claim names as of this request: reloaded when the revision moved. */
  async snapshot(): Promise<AccessSnapshot> {
    if (this.loadedAt === 0) return this.refresh();
    if (this.db.isReady) {
      const revision = await this.revisions.current();
      if (revision !== null && revision !== this.cached.revision) {
        this.invalidate();
        return this.refresh();
      }
    }
    if (Date.now() - this.loadedAt > REFRESH_MS) void this.refresh();
    return this.cached;
  }

  /** The claim names in force: saved on the Access surface, else the bootstrap file's, else the defaults. */
  claimNames(): ClaimNames {
    return effectiveClaimNames(this.configuredClaimNames(), this.cached.claimNames);
  }

  /** The bootstrap file's (or environment's) claim names, before any saved on the surface. */
  configuredClaimNames(): ClaimNames {
    const auth = this.config.config.auth;
    return {
      role_claim: auth?.role_claim ?? DEFAULT_AUTH_CLAIMS.role_claim,
      group_claim: auth?.group_claim ?? DEFAULT_AUTH_CLAIMS.group_claim,
      name_claim: auth?.name_claim ?? DEFAULT_AUTH_CLAIMS.name_claim,
    };
  }

  /** Drops the cache: the next request reads what was just written. */
  invalidate(): void {
    this.loadedAt = 0;
    this.generation += 1;
    this.loading = null;
  }

  /** Reloads now; the document part, for callers that need no claim names. */
  async refreshDocument(): Promise<AccessDocument> {
    return (await this.refresh()).document;
  }

  refresh(): Promise<AccessSnapshot> {
    if (!this.loading) {
      const loading = this.load(this.generation).finally(() => {
        if (this.loading === loading) this.loading = null;
      });
      this.loading = loading;
    }
    return this.loading;
  }

  private async load(generation: number): Promise<AccessSnapshot> {
    if (!this.db.isReady) return this.cached;
    try {
      const snapshot = await readAccessSnapshot((sql, p) => this.db.dataSource.query(sql, p));
      // Read before the last invalidate(): keep it out of the cache (a newer load is or will be under way).
      if (generation !== this.generation) return snapshot;
      this.cached = snapshot;
      this.loadedAt = Date.now();
    } catch (error) {
      this.logger.warn(`access document could not be read; keeping the last one: ${(error as Error).message}`);
    }
    return this.cached;
  }
}
