import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type AccessRecords, accessRecordsOf, readAccessRecords, replacementChanges } from '../access/access-records.js';
import { AccessStoreService } from '../access/access-store.service.js';
import { type AccessBatchPlan, AccessWriter } from '../access/access-writer.service.js';
import type { Principal } from '../auth/principal.js';
import { insertChange, WHOLE_CONFIGURATION } from '../changes/change-record.js';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import { ConfigService } from '../config/config.service.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { DatabaseService } from '../database/database.service.js';
import { readStoredSettings, replaceStoredSettings } from '../settings/settings-rows.js';
import { validateSettings } from '../settings/settings-validation.js';
import { SETTINGS_WRITE_LOCK } from '../settings/settings-writer.service.js';
import { StoredConfigSync } from '../stored-config/stored-config-sync.service.js';
import type { ImportProblem } from './config-document.js';
import { readConfigDocument } from './config-document.reader.js';
import { importedSettings, type UnresolvedSecret, unresolvedSecrets } from './configuration-exchange.js';

/** Serialises imports across replicas. */
const CONFIG_IMPORT_LOCK = 0x696d706f7274; // 'import'

/** The change record's kind; it is not revertible (the feed's revert answers 409 not_revertible): import the earlier export instead. */
export const IMPORT_CHANGE_KIND = 'config.import';

export type ImportResult =
  | {
    outcome: 'imported'; changeId: number; settings: Record<string, unknown>; access: AccessRecords; warnings: ImportProblem[];
    /** The references the imported configuration leaves unconfigured here, for the operator to give next. */
    unresolved: UnresolvedSecret[];
  }
  | { outcome: 'invalid'; problems: ImportProblem[] };

/**
 * Imports a configuration document (spec: config.import + secrets.write). Everything is judged
 * before anything is written: the document's shape, the configuration as the loader reads it over
 * this installation's bootstrap file, and the access records through AccessWriter's own planner
 * and rules 9–11. Then, in one transaction, the stored settings and the access records are
 * replaced (not merged), both revisions bumped and one change record written. A `${NAME}` that
 * resolves to nothing here refuses nothing (spec: it counts as unconfigured; secrets never travel,
 * so a new installation has none of them yet): the answer names each with the keys using it.
 */
@Injectable()
export class ConfigImportService {
  private readonly logger = new Logger('ConfigImport');

  constructor(
    private readonly db: DatabaseService,
    private readonly config: ConfigService,
    private readonly access: AccessWriter,
    private readonly accessStore: AccessStoreService,
    private readonly stored: StoredConfigSync,
    @Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment,
  ) {}

  async import(body: unknown, attribution: string, principal: Principal | null): Promise<ImportResult> {
    const { parts, problems } = readConfigDocument(body);
    // References are judged against the stored secrets as they are now, not as last polled.
    await this.stored.refresh();
    const result = await this.db.dataSource.transaction(async (tx): Promise<ImportResult> => {
      const query = (sql: string, p?: unknown[]) => tx.query(sql, p);
      await query('SELECT pg_advisory_xact_lock($1)', [CONFIG_IMPORT_LOCK]);
      // The settings writer's lock too: a single save cannot land between this read and the replacement.
      await query('SELECT pg_advisory_xact_lock($1)', [SETTINGS_WRITE_LOCK]);
      await this.access.lockWithin(tx);
      const settingsBefore = await readStoredSettings(query);
      const accessBefore = await readAccessRecords(query, this.accessStore.configuredClaimNames());

      const { configuration, access } = parts;
      const settings = configuration && importedSettings(configuration, this.config.fileRaw);
      const warnings: ImportProblem[] = [];
      const unresolved = settings ? this.judgeConfiguration(settingsBefore, settings, problems, warnings) : [];
      const plan = access && await this.planAccess(tx, accessBefore, access, attribution, principal, problems);
      if (problems.length > 0 || !settings || !access || !plan) return { outcome: 'invalid', problems };

      await replaceStoredSettings(query, settings, attribution);
      await query('UPDATE config_revision SET revision = revision + 1');
      await this.access.writeWithin(tx, plan);
      const accessAfter = accessRecordsOf(plan.after, access.people, this.accessStore.configuredClaimNames());
      const changeId = await insertChange(query, {
        attribution, kind: IMPORT_CHANGE_KIND, target: WHOLE_CONFIGURATION,
        before: { settings: settingsBefore, access: accessBefore }, after: { settings, access: accessAfter },
      });
      return { outcome: 'imported', changeId, settings, access: accessAfter, warnings, unresolved };
    });
    if (result.outcome === 'imported') await this.refreshThisReplica(result.settings);
    return result;
  }

  /**
   * The configuration as the loader reads it over this installation's bootstrap file. Every
   * top-level key is a changed key (the import replaces them all), so every new finding refuses,
   * except the loader's finding for a reference that resolves to nothing: that is unconfigured,
   * not invalid, and comes back as the references left to give.
   */
  private judgeConfiguration(before: Record<string, unknown>, settings: Record<string, unknown>,
    problems: ImportProblem[], warnings: ImportProblem[]): UnresolvedSecret[] {
    const changed = [...new Set([...Object.keys(before), ...Object.keys(settings)])];
    const verdict = validateSettings(this.env, this.config.fileRaw, this.config.config.stored_secrets, before, settings, changed, { unresolved: 'report' });
    const at = (field: string | null) => (field ? `configuration.${field}` : 'configuration');
    for (const f of verdict.problems) problems.push({ path: at(f.field), error: f.reason });
    for (const f of verdict.warnings) warnings.push({ path: at(f.field), error: f.reason });
    for (const field of verdict.literalSecrets) {
      problems.push({ path: at(field), error: `holds a secret value: an imported configuration takes a \${NAME} reference there (store the value with PUT /api/secrets/NAME first)` });
    }
    return unresolvedSecrets(verdict.unresolved);
  }

  /** Plans the replacement through AccessWriter (rules 9–11, on the state each change lands on); refusals become problems at their place in the document. */
  private async planAccess(tx: EntityManager, before: AccessRecords, target: AccessRecords, attribution: string, principal: Principal | null,
    problems: ImportProblem[]): Promise<AccessBatchPlan> {
    const steps = replacementChanges(before, target);
    const plan = await this.access.planWithin(tx, steps.map((s) => s.change), attribution, principal, 'required');
    for (const { index, refusal } of plan.refusals) {
      const step = index === null ? null : steps[index]!;
      const routes = refusal.details?.routes ? ` (routes: ${(refusal.details.routes as string[]).join(', ')})` : '';
      problems.push({ path: step?.path ?? 'access', error: `${step?.because ? `${step.because}: ` : ''}${refusal.error}${routes}` });
    }
    return plan;
  }

  /** Other replicas notice both revisions move; this one applies the import before answering. */
  private async refreshThisReplica(settings: Record<string, unknown>): Promise<void> {
    await this.stored.refresh();
    this.accessStore.invalidate();
    this.logger.log(`configuration imported: ${Object.keys(settings).length} stored setting(s) replaced, access records replaced`);
  }
}
