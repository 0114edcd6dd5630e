import { isPlainObject } from '../config/config-reader.js';

/** One value of a parsed document at its dotted path, in the loader's form (`projects.shop.repos[0].url`). */
export interface TreeLeaf {
  path: string;
  value: unknown;
}

const join = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`;

/** A list of plain values (`trigger_statuses`, `commands`) is one leaf; a list holding mappings (`repos`) is walked by index. */
const isLeaf = (value: unknown) =>
  !(isPlainObject(value) && Object.keys(value).length > 0) && !(Array.isArray(value) && value.some((v) => isPlainObject(v) || Array.isArray(v)));

/** The tree with every leaf replaced by `fn(path, leaf)`. */
export function mapLeaves(tree: unknown, fn: (path: string, value: unknown) => unknown, path = ''): unknown {
  if (isLeaf(tree)) return fn(path, tree);
  if (Array.isArray(tree)) return tree.map((item, i) => mapLeaves(item, fn, join(path, i)));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(tree as Record<string, unknown>)) out[key] = mapLeaves(value, fn, join(path, key));
  return out;
}

export function leavesOf(tree: unknown): TreeLeaf[] {
  const leaves: TreeLeaf[] = [];
  mapLeaves(tree, (path, value) => leaves.push({ path, value }));
  return leaves;
}

/** `top` over `base`, key by key; an absent or null key of `top` leaves `base`'s (the loader reads `queue:` with nothing under it as absent). */
export function overlay(base: unknown, top: unknown): unknown {
  if (top === undefined || top === null) return base;
  if (!isPlainObject(base) || !isPlainObject(top)) return top;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(top)) out[key] = overlay(base[key], value);
  return out;
}

/** The value at a dotted setting key (segments only, no `[i]`), if anything is there. */
export function valueAt(tree: unknown, key: string): { found: boolean; value?: unknown } {
  let node = tree;
  for (const segment of key.split('.')) {
    if (!isPlainObject(node) || !Object.hasOwn(node, segment)) return { found: false };
    node = node[segment];
  }
  return { found: true, value: node };
}

/** `path` is `key` or lies below it. */
export const isAtOrUnder = (path: string, key: string) => path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);
