import { isPlainObject } from '../config/config-reader.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Where each `${NAME}` is referenced in the bootstrap file as written: name → configuration keys
 * in the loader's dotted form (`projects.shop.repos[0].auth_secret`), sorted.
 */
export function secretUses(raw: unknown): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      for (const [, name] of value.matchAll(REFERENCE)) uses.set(name!, [...(uses.get(name!) ?? []), path]);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, `${path}[${i}]`));
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) walk(item, path === '' ? key : `${path}.${key}`);
    }
  };
  walk(raw, '');
  for (const paths of uses.values()) paths.sort();
  return uses;
}
