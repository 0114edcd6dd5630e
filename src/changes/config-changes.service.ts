import { Injectable } from '@nestjs/common';
import type { AccessRefusal as Refusal } from '../access/access-change.js';
import { AccessWriter } from '../access/access-writer.service.js';
import type { Principal } from '../auth/principal.js';
import { DatabaseService } from '../database/database.service.js';
import { SecretsStore } from '../secrets/secrets-store.service.js';
import { SecretsWriter } from '../secrets/secrets-writer.service.js';
import { SettingsWriter } from '../settings/settings-writer.service.js';
import { inverseAccessChange } from './access-change-record.js';
import { readChange, readChanges } from './change-record.js';

export type RevertResult = { outcome: 'reverted'; changeId: number } | { outcome: 'refused'; refusal: Refusal };

/**
 * The change feed and revert. A revert is a save like any other, through the same writer (access
 * rules 9–12, a secret's in-use rule, a setting's validation), recorded as its own change with `revertOf`; it is refused
 * when a newer change touched the same target, so it never undoes what it does not show.
 */
@Injectable()
export class ConfigChangesService {
  constructor(
    private readonly db: DatabaseService,
    private readonly access: AccessWriter,
    private readonly secrets: SecretsWriter,
    private readonly store: SecretsStore,
    private readonly settings: SettingsWriter,
  ) {}

  list(limit: number, offset: number) {
    return readChanges((sql, p) => this.db.dataSource.query(sql, p), limit, offset);
  }

  async revert(id: number, attribution: string, principal: Principal | null): Promise<RevertResult> {
    const record = await readChange((sql, p) => this.db.dataSource.query(sql, p), id);
    if (!record) return refused('not-found', 'not_found', `no change ${id}`);
    if (record.kind.startsWith('secret.')) {
      const name = record.target.slice('secret:'.length);
      if (record.beforeSecret === null) return outcome(await this.secrets.remove(name, attribution, id));
      const value = this.store.open(name, record.beforeSecret);
      if (value === null) return refused('conflict', 'unreadable', `the previous value of secret ${name} cannot be decrypted with the current SERVICE_SECRETS_KEY`);
      return outcome(await this.secrets.save(name, value, attribution, id));
    }
    if (record.kind.startsWith('setting.')) {
      const key = record.target.slice('setting:'.length);
      const before = record.before as { value: unknown } | null;
      return outcome(before === null ? await this.settings.remove(key, attribution, id) : await this.settings.save(key, before.value, attribution, id));
    }
    const inverse = inverseAccessChange(record.kind, record.target, record.before);
    if (!inverse) return refused('conflict', 'not_revertible', `change ${id} (${record.kind}) cannot be reverted`);
    return outcome(await this.access.apply(inverse, attribution, principal, id));
  }
}

/** A writer's answer to a revert (a revert always writes and records, so its change id is never null). */
function outcome(r: { outcome: 'saved'; changeId: number | null } | { outcome: 'refused'; refusal: Refusal }): RevertResult {
  return r.outcome === 'saved' ? { outcome: 'reverted', changeId: r.changeId! } : r;
}

function refused(reason: Refusal['reason'], code: string, error: string): RevertResult {
  return { outcome: 'refused', refusal: { reason, code, error } };
}
