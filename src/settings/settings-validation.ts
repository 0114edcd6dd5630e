import type { ServiceEnvironment } from '../config/environment.js';
import { buildConfig } from '../config/load-service-config.js';
import type { Finding } from '../findings/finding.js';
import { type StoredSettings, withSettings } from './settings-document.js';

export interface SettingsVerdict {
  /** What refuses the candidate: every new finding at or under a changed key, and any new blocking finding elsewhere. */
  problems: Finding[];
  /** New advisory findings outside the changed keys: reported with the save, not refusing it. */
  warnings: Finding[];
}

const under = (field: string | null, key: string) =>
  field !== null && (field === key || field.startsWith(`${key}.`) || field.startsWith(`${key}[`));
const identity = (f: Finding) => `${f.severity}\u0000${f.field ?? ''}\u0000${f.reason}`;

/**
 * Validates candidate stored settings exactly as the loader would read them: the file's document
 * with `candidate` laid over it goes through `buildConfig`, and its findings are compared with
 * those of the settings in force, so only what the save changes can refuse it (an old problem
 * elsewhere in the file does not). An unknown key under a changed key refuses too: a typo saved
 * would otherwise be silently ignored.
 */
export function validateSettings(
  env: ServiceEnvironment,
  fileDocument: unknown,
  storedSecrets: Readonly<Record<string, string>>,
  current: StoredSettings,
  candidate: StoredSettings,
  changedKeys: readonly string[],
): SettingsVerdict {
  const before: Finding[] = [];
  buildConfig(withSettings(fileDocument, current), env, before, storedSecrets);
  const after: Finding[] = [];
  buildConfig(withSettings(fileDocument, candidate), env, after, storedSecrets);
  const known = new Set(before.map(identity));
  const fresh = after.filter((f) => !known.has(identity(f)));
  const problems = fresh.filter((f) => f.severity === 'blocking' || changedKeys.some((k) => under(f.field, k)));
  const warnings = fresh.filter((f) => !problems.includes(f));
  return { problems, warnings };
}
