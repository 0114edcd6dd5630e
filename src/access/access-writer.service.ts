import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type AdminRoute, checkAdminRoute, NO_ADMIN_ROUTE_MESSAGE, type Observation } from '../auth/access-rules.js';
import { BuiltInRole } from '../auth/built-in-roles.js';
import type { Principal } from '../auth/principal.js';
import { RoleSourceKind } from '../auth/role-resolution.js';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import { ConfigService } from '../config/config.service.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { DatabaseService } from '../database/database.service.js';
import { type AccessChange, type AccessRefusal, type AccessState, planAccessChange, type Statement } from './access-change.js';
import { effectiveClaimNames, readAccessSnapshot } from './access-snapshot.js';
import { AccessStoreService } from './access-store.service.js';
import { readObservations } from './observations.reader.js';
import { accessSlice, accessTarget } from '../changes/access-change-record.js';
import { insertChange, newerChangesOn, WHOLE_CONFIGURATION } from '../changes/change-record.js';

/** Serialises access writes across replicas, so rules 10 and 11 judge the state the write lands on. */
const ACCESS_WRITE_LOCK = 0x616363657373; // 'access'

export type AccessWriteResult =
  | { outcome: 'saved'; before: AccessState; after: AccessState; changeId: number }
  | { outcome: 'refused'; refusal: AccessRefusal };

/** Whether rule 11 refuses only a batch that takes the last route away (a save), or any batch that ends with none (an import replaces the whole document). */
export type AdminRouteRule = 'not-lost' | 'required';

/** Several changes planned as one write: each on the state the one before it left. */
export interface AccessBatchPlan {
  before: AccessState;
  after: AccessState;
  /** `index` is the refused change's place in the batch; null: the outcome as a whole (rule 11). */
  refusals: { index: number | null; refusal: AccessRefusal }[];
  statements: Statement[];
}

/**
 * The one place every write of the access document goes through (grants, people, group
 * mappings, custom roles, claim names). In one transaction, under one lock: read the current
 * state, plan the change (rules 9 and 10), check that a route to admin remains (rule 11), write,
 * and bump the revision every replica reads per request (so the write applies to the next
 * request everywhere), and record the change (config_changes) in the same transaction. A write
 * spanning more than the access tables (an import) plans and writes inside its own transaction
 * through `planWithin` / `writeWithin`, under the same rules.
 */
@Injectable()
export class AccessWriter {
  private readonly logger = new Logger('AccessWriter');

  constructor(
    private readonly db: DatabaseService,
    private readonly store: AccessStoreService,
    private readonly config: ConfigService,
    @Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment,
  ) {}

  /**
   * `attribution` is `attributionOf(principal)`; the principal itself only counts as a route to admin it proves.
   * `revertOf`: this write reverts that change record, refused when a newer change touched the same target.
   */
  async apply(change: AccessChange, attribution: string, principal: Principal | null, revertOf: number | null = null): Promise<AccessWriteResult> {
    const result = await this.db.dataSource.transaction(async (tx): Promise<AccessWriteResult> => {
      const plan = await this.planWithin(tx, [change], attribution, principal, 'not-lost');
      if (revertOf !== null) {
        const newer = await newerChangesOn((sql, p) => tx.query(sql, p), revertOf, [accessTarget(change), WHOLE_CONFIGURATION]);
        if (newer.length > 0) {
          return { outcome: 'refused', refusal: { reason: 'conflict', code: 'newer_change', error: `${accessTarget(change)} was changed again after change ${revertOf}; revert the newer change(s) first`, details: { newerChanges: newer } } };
        }
      }
      const [refused] = plan.refusals;
      if (refused) return { outcome: 'refused', refusal: refused.refusal };
      await this.writeWithin(tx, plan);
      const changeId = await this.record(tx, change, attribution, plan.before, plan.after, revertOf);
      return { outcome: 'saved', before: plan.before, after: plan.after, changeId };
    });
    if (result.outcome === 'saved') this.store.invalidate();
    return result;
  }

  /**
   * Plans `changes` in order inside the caller's transaction, under the access lock (held until
   * that transaction ends, so the state judged is the state written on). A refused change leaves
   * the state as it was and planning goes on, so every refusal is listed; rule 11 is judged once,
   * on the outcome, and only when no change was refused (a partial outcome would blame it wrongly).
   * Writes nothing.
   */
  async planWithin(tx: EntityManager, changes: readonly AccessChange[], attribution: string, principal: Principal | null, adminRoute: AdminRouteRule): Promise<AccessBatchPlan> {
    const query = (sql: string, p?: unknown[]) => tx.query(sql, p);
    await this.lockWithin(tx);
    const { document, claimNames } = await readAccessSnapshot(query);
    const before: AccessState = { document, claimNames };
    const days = this.config.config.observation_retention_days;
    const observations = await readObservations(query, days);
    const now = new Date();
    const batch: AccessBatchPlan = { before, after: before, refusals: [], statements: [] };
    changes.forEach((change, index) => {
      const plan = planAccessChange({ change, before: batch.after, observations, observationWindowDays: days, now, attribution });
      if (!plan.ok) {
        batch.refusals.push({ index, refusal: plan.refusal });
        return;
      }
      batch.after = plan.after;
      batch.statements.push(...plan.statements);
    });
    if (batch.refusals.length === 0) {
      const lost = this.lostAdminRoute(before, batch.after, observations, principal, adminRoute);
      if (lost) batch.refusals.push({ index: null, refusal: lost });
    }
    return batch;
  }

  /** Takes the access write lock until `tx` ends: for a caller that reads the state its changes derive from first (taking it again is harmless). */
  async lockWithin(tx: EntityManager): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [ACCESS_WRITE_LOCK]);
  }

  /** Writes a plan that has no refusals, and bumps the revision every replica reads per request. */
  async writeWithin(tx: EntityManager, plan: AccessBatchPlan): Promise<void> {
    if (plan.refusals.length > 0) throw new Error('an access plan with refusals is never written');
    for (const [sql, parameters] of plan.statements) await tx.query(sql, parameters);
    await tx.query('UPDATE access_revision SET revision = revision + 1');
  }

  /**
   * Rule 11: refused when this write takes away the last route to admin. A role claim counts as a
   * route while someone was seen arriving with `admin` in it (or the writer holds admin through
   * it right now), and only while the write keeps the same role claim. A write on a state that
   * already had no route is not refused for it: it did not remove the route (rule 9's "only what
   * a save changes"), and refusing would block the very write that repairs it; under `required`
   * (an import, which writes the whole document) it is.
   */
  private lostAdminRoute(before: AccessState, after: AccessState, observations: readonly Observation[], principal: Principal | null, rule: AdminRouteRule): AccessRefusal | null {
    const configured = this.store.configuredClaimNames();
    const namesBefore = effectiveClaimNames(configured, before.claimNames);
    const namesAfter = effectiveClaimNames(configured, after.claimNames);
    const claimCarriesAdmin = observations.some((o) => o.roleClaimValues.some((r) => r.trim().toLowerCase() === BuiltInRole.Admin))
      || (principal?.roleSources.some((s) => s.role === BuiltInRole.Admin && s.via === RoleSourceKind.RoleClaim) ?? false);
    const adminGrant = this.env.adminGrant;
    const was = checkAdminRoute({ access: before.document, claimNames: namesBefore, roleClaimInUse: claimCarriesAdmin, adminGrant });
    const now = checkAdminRoute({
      access: after.document, claimNames: namesAfter, adminGrant,
      roleClaimInUse: claimCarriesAdmin && namesAfter.role_claim === namesBefore.role_claim,
    });
    if (now.ok || (!was.ok && rule === 'not-lost')) return null;
    return {
      reason: 'conflict', code: now.code, error: NO_ADMIN_ROUTE_MESSAGE,
      details: { routes: now.routes satisfies readonly AdminRoute[], routesBefore: was.routes },
    };
  }

  /** The change record, in this transaction: who, what, and the target's slice before and after (the feed and revert read it). */
  async record(tx: EntityManager, change: AccessChange, attribution: string, before: AccessState, after: AccessState, revertOf: number | null = null): Promise<number> {
    this.logger.log(`access change ${change.kind} by ${attribution}`);
    return insertChange((sql, p) => tx.query(sql, p), {
      attribution, kind: `access.${change.kind}`, target: accessTarget(change),
      before: accessSlice(change, before), after: accessSlice(change, after), revertOf,
    });
  }
}
