import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { foldRoleName } from '../auth/built-in-roles.js';
import { normalizeGroupValue } from '../auth/role-resolution.js';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { type Finding, FindingSubsystem, finding } from '../findings/finding.js';
import { FindingsService } from '../findings/findings.service.js';
import type { AccessChange } from './access-change.js';
import { readAccessSnapshot } from './access-snapshot.js';
import { AccessStoreService } from './access-store.service.js';
import { AccessWriter } from './access-writer.service.js';

const MARKER = 'auth-bootstrap-import';
const ATTRIBUTION = 'bootstrap-import';
const FINDINGS_SOURCE = 'access-bootstrap-import';

/**
 * Spec rule 13: `auth.group_roles` and `auth.roles` in the bootstrap file are imported once, on the
 * first boot that sees them; afterwards the database is authoritative and the file copy is ignored.
 * The import is an access write like any other (rule 11 names it): each role and mapping the store
 * lacks goes through AccessWriter's planner — custom roles first, so a mapping may name one — and is
 * recorded in the change feed. An entry the rules refuse (a built-in name, a permission outside the
 * catalog, an unknown role) is left out and reported as a finding; the rest is imported.
 */
@Injectable()
export class AccessBootstrapImport implements OnApplicationBootstrap {
  private readonly logger = new Logger('AccessBootstrapImport');

  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
    private readonly writer: AccessWriter,
    private readonly store: AccessStoreService,
    private readonly findings: FindingsService,
  ) {}

  onApplicationBootstrap(): void {
    this.db.onStatus((status) => {
      if (status.state === 'ready') void this.importOnce();
    });
    if (this.db.isReady) void this.importOnce();
  }

  async importOnce(): Promise<void> {
    const auth = this.config.config.auth;
    if (!auth || (Object.keys(auth.group_roles).length === 0 && Object.keys(auth.roles).length === 0)) return;
    try {
      const refused = await this.db.dataSource.transaction(async (tx) => {
        const inserted: unknown[] = await tx.query(
          'INSERT INTO access_markers (name, detail) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name',
          [MARKER, JSON.stringify({ groups: Object.keys(auth.group_roles), roles: Object.keys(auth.roles) })],
        );
        if (inserted.length === 0) return null;
        await this.writer.lockWithin(tx);
        const { document } = await readAccessSnapshot((sql, p) => tx.query(sql, p));
        // What the store already holds wins (an operator may have saved it before this boot).
        const changes: { change: AccessChange; field: string }[] = [
          ...Object.entries(auth.roles).filter(([name]) => !Object.hasOwn(document.customRoles, foldRoleName(name)))
            .map(([name, permissions]) => ({ change: { kind: 'save-role', name, permissions } as const, field: `auth.roles.${name}` })),
          ...Object.entries(auth.group_roles).filter(([group]) => !Object.hasOwn(document.groupRoles, normalizeGroupValue(group)))
            .map(([value, roles]) => ({ change: { kind: 'map-group', value, roles } as const, field: `auth.group_roles.${value}` })),
        ];
        const first = await this.writer.planWithin(tx, changes.map((c) => c.change), ATTRIBUTION, null, 'not-lost');
        const out = new Set(first.refusals.map((r) => r.index));
        const kept = changes.filter((_, i) => !out.has(i));
        const plan = out.size === 0 ? first : await this.writer.planWithin(tx, kept.map((c) => c.change), ATTRIBUTION, null, 'not-lost');
        if (plan.refusals.length > 0) throw new Error(plan.refusals.map((r) => r.refusal.error).join('; '));
        await this.writer.writeWithin(tx, plan);
        for (const { change } of kept) await this.writer.record(tx, change, ATTRIBUTION, plan.before, plan.after);
        this.logger.log(`imported ${kept.length} custom role(s) and group mapping(s) from the bootstrap file; the database is authoritative from now on`);
        return first.refusals.map(({ index, refusal }): Finding => {
          const field = index === null ? 'auth' : changes[index]!.field;
          return finding(FindingSubsystem.Auth, 'advisory', `${field} was not imported from the bootstrap file: ${refusal.error}; save it on the Access surface instead`, { field });
        });
      });
      if (refused === null) return;
      this.findings.set(FINDINGS_SOURCE, refused);
      this.store.invalidate();
    } catch (error) {
      this.logger.warn(`bootstrap import of access settings failed (will retry at next start): ${(error as Error).message}`);
    }
  }
}
