import type { ConfigOverview, ConfigReference } from './admin-types';

export interface SecretReference { name: string; from: ConfigReference['from']; usedBy: string[] }

/**
 * Every `${NAME}` the configuration in force references, with where it resolves and the keys
 * using it (the secrets block's own keys left out: they define names, they do not use them).
 */
export function secretReferences(config: ConfigOverview): SecretReference[] {
  const byName = new Map<string, SecretReference>();
  for (const leaf of config.keys) {
    if (leaf.key.startsWith('secrets.')) continue;
    for (const ref of leaf.references ?? []) {
      const entry = byName.get(ref.name) ?? { name: ref.name, from: ref.from, usedBy: [] };
      if (!entry.usedBy.includes(leaf.key)) entry.usedBy.push(leaf.key);
      byName.set(ref.name, entry);
    }
  }
  // Unresolved first: those are the ones to set.
  return [...byName.values()].sort((a, b) => Number(b.from === 'unresolved') - Number(a.from === 'unresolved') || a.name.localeCompare(b.name));
}
