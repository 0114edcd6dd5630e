import type { SecretField, UnresolvedField } from '../config/config-reader.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { buildConfig } from '../config/load-service-config.js';
import { isReferenceOnly } from '../config/secret-references.js';
import type { Finding } from '../findings/finding.js';
import { type StoredSettings, withSettings } from './settings-document.js';

export interface SettingsVerdict {
  /** What refuses the candidate: every new finding at, under or above a changed key, and any new blocking finding elsewhere. */
  problems: Finding[];
  /** New advisory findings elsewhere: reported with the save, not refusing it. */
  warnings: Finding[];
  /**
   * Fields at or under a changed key that the loader reads as a secret and that would hold a value
   * rather than `${NAME}` references: a setting is shown and recorded in the change feed, a secret
   * belongs under /api/secrets.
   */
  literalSecrets: string[];
  /**
   * Values at or under a changed key whose `${NAME}` references resolve to nothing on this
   * installation, every one the candidate holds (new or not), each with the names and the loader's
   * finding. Spec: such a reference counts as unconfigured, a finding and not a bad value; whether
   * a new one refuses the write is the caller's choice (`unresolved` below).
   */
  unresolved: UnresolvedField[];
}

export interface SettingsValidationOptions {
  /**
   * `refuse` (a single save, the default): a new unresolved reference is judged like any other
   * new finding, so a setting is saved after the secret it names. `report`: the loader's finding
   * for it is neither a problem nor a warning, only listed in `unresolved`; an import takes this,
   * since secrets never travel and a new installation has none of them yet.
   */
  unresolved?: 'refuse' | 'report';
}

const under = (field: string, key: string) => field === key || field.startsWith(`${key}.`) || field.startsWith(`${key}[`);
const identity = (f: Finding) => `${f.severity}\u0000${f.field ?? ''}\u0000${f.reason}`;

/**
 * Validates candidate stored settings exactly as the loader would read them: the file's document
 * with `candidate` laid over it goes through `buildConfig`, and its findings are compared with
 * those of the settings in force, so only what the save changes can refuse it (an old problem
 * elsewhere in the file does not). An unknown key under a changed key refuses too: a typo saved
 * would otherwise be silently ignored; so does a finding above it (the loader names the nearest
 * place it knows, e.g. `nonsense` for a saved `nonsense.key`).
 */
export function validateSettings(
  env: ServiceEnvironment,
  fileDocument: unknown,
  storedSecrets: Readonly<Record<string, string>>,
  current: StoredSettings,
  candidate: StoredSettings,
  changedKeys: readonly string[],
  options: SettingsValidationOptions = {},
): SettingsVerdict {
  const before: Finding[] = [];
  buildConfig(withSettings(fileDocument, current), env, before, storedSecrets);
  const after: Finding[] = [];
  const secretFields: SecretField[] = [];
  const unresolvedFields: UnresolvedField[] = [];
  buildConfig(withSettings(fileDocument, candidate), env, after, storedSecrets, secretFields, unresolvedFields);
  const known = new Set(before.map(identity));
  const unresolved = unresolvedFields.filter((u) => changedKeys.some((k) => under(u.path, k)));
  const unconfigured = new Set(options.unresolved === 'report' ? unresolved.map((u) => u.finding) : []);
  const fresh = after.filter((f) => !known.has(identity(f)) && !unconfigured.has(f));
  const related = (field: string | null) => field !== null && changedKeys.some((k) => under(field, k) || under(k, field));
  const problems = fresh.filter((f) => f.severity === 'blocking' || related(f.field));
  const warnings = fresh.filter((f) => !problems.includes(f));
  const literalSecrets = secretFields
    .filter((f) => changedKeys.some((k) => under(f.path, k)))
    .filter((f) => (typeof f.written === 'string' ? f.written.trim() !== '' && !isReferenceOnly(f.written) : typeof f.written === 'number' || typeof f.written === 'boolean'))
    .map((f) => f.path);
  return { problems, warnings, literalSecrets, unresolved };
}
