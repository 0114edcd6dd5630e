import { isPlainObject, type UnresolvedField } from '../config/config-reader.js';
import type { ReferenceSource } from '../config/secret-references.js';
import { secretUses } from '../secrets/secret-uses.js';
import { checkSettingKey, type StoredSettings, withSettings } from '../settings/settings-document.js';

/**
 * Top-level blocks the `configuration` of an export leaves out. `auth`: its authority, audience
 * and enforce are bootstrap settings an import cannot change, its claim names travel in
 * `access.claim_names`, and its group_roles / roles were imported into the store once (rule 13).
 * `secrets`: it holds values; the document's `secrets` lists the names only.
 */
export const NOT_EXCHANGED: readonly string[] = ['auth', 'secrets'];

/** Where a `${NAME}` resolves on an installation (`referenceSources`). */
export type SecretSource = ReferenceSource;

/** One name of the document's `secrets`: a reference, never a value. */
export interface SecretReference {
  name: string;
  source: SecretSource;
  /** Configuration keys referencing it (dotted, as the loader names them). */
  used_by: string[];
}

/**
 * What the source installation runs on: the bootstrap file with the stored settings over it,
 * `${NAME}` references as written, less the blocks that are not exchanged and blocks that are
 * null (absent), with mapping keys sorted so equal configurations export identically.
 */
export function exportedConfiguration(fileDocument: unknown, settings: StoredSettings): Record<string, unknown> {
  const effective = withSettings(fileDocument, settings);
  if (!isPlainObject(effective)) return {};
  const carried = Object.entries(effective).filter(([key, value]) => !NOT_EXCHANGED.includes(key) && value !== null && value !== undefined);
  return canonical(Object.fromEntries(carried)) as Record<string, unknown>;
}

/**
 * The stored settings an import writes (they replace all stored settings): each block of the
 * configuration at its own top-level key, and null over every block the target's bootstrap file
 * has and the configuration does not, so the file cannot add what the source did not run with.
 */
export function importedSettings(configuration: Readonly<Record<string, unknown>>, fileDocument: unknown): Record<string, unknown> {
  const settings: Record<string, unknown> = { ...configuration };
  for (const key of Object.keys(isPlainObject(fileDocument) ? fileDocument : {})) {
    if (!NOT_EXCHANGED.includes(key) && !Object.hasOwn(settings, key) && checkSettingKey(key).ok) settings[key] = null;
  }
  return settings;
}

/** Every name the configuration references, plus `alsoListed` (the stored secrets), sorted; values never. */
export function secretReferences(configuration: unknown, alsoListed: readonly string[], sourceOf: (name: string) => SecretSource): SecretReference[] {
  const uses = secretUses(configuration);
  const names = [...new Set([...uses.keys(), ...alsoListed])].sort();
  return names.map((name) => ({ name, source: sourceOf(name), used_by: uses.get(name) ?? [] }));
}

/** A `${NAME}` an imported configuration references that resolves to nothing on this installation, with the keys using it. */
export interface UnresolvedSecret {
  name: string;
  used_by: string[];
}

/** The loader's unresolved fields, name by name (sorted, each with its keys sorted): what the operator gives the installation next. */
export function unresolvedSecrets(fields: readonly Pick<UnresolvedField, 'path' | 'names'>[]): UnresolvedSecret[] {
  const uses = new Map<string, Set<string>>();
  for (const { path, names } of fields) for (const name of names) uses.set(name, (uses.get(name) ?? new Set()).add(path));
  return [...uses.keys()].sort().map((name) => ({ name, used_by: [...uses.get(name)!].sort() }));
}

/** A copy with every mapping's keys in order (lists keep theirs). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
}
