import { isPlainObject } from '../config/config-reader.js';

/**
 * Stored settings: values saved on the dashboard (or by an import) over the bootstrap file, one row
 * per dotted key (`queue.max_parallel_runs`, `projects.shop.trigger`). They are laid over the file's
 * parsed document before the loader reads it, so a stored value is validated and typed exactly like
 * the same value written in the file.
 */
export type StoredSettings = Readonly<Record<string, unknown>>;

/** Settings read once at start: changing them needs a restart (spec: "bootstrap settings"). */
export const BOOTSTRAP_SETTING_KEYS = ['auth.authority', 'auth.audience', 'auth.enforce'] as const;

/** Top-level blocks that are not settings: `secrets:` resolves against the environment only (stored secrets have their own routes). */
const NOT_SETTINGS = ['secrets'];

const SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;
const MAX_DEPTH = 12;

export type SettingKeyCheck =
  | { ok: true; path: string[] }
  | { ok: false; code: 'invalid_key' | 'bootstrap_setting' | 'not_a_setting'; error: string };

/**
 * A key is dot-separated segments of letters, digits, `_` and `-`. A map whose own keys hold dots
 * (a label such as `service:code` is fine, `a.b` is not) is saved whole at its parent key.
 */
export function checkSettingKey(key: string): SettingKeyCheck {
  const path = key.split('.');
  if (path.length > MAX_DEPTH || !path.every((s) => SEGMENT.test(s))) {
    return { ok: false, code: 'invalid_key', error: `"${key}" is not a setting key: dot-separated segments of letters, digits, "_" and "-"` };
  }
  if (NOT_SETTINGS.includes(path[0]!)) {
    return { ok: false, code: 'not_a_setting', error: `${key} is not a setting: stored secrets are saved under /api/secrets, and the file's secrets block resolves against the environment only` };
  }
  const touched = BOOTSTRAP_SETTING_KEYS.filter((b) => b === key || b.startsWith(`${key}.`) || key.startsWith(`${b}.`));
  if (touched.length > 0) {
    return { ok: false, code: 'bootstrap_setting', error: `${touched.join(', ')} ${touched.length > 1 ? 'are bootstrap settings' : 'is a bootstrap setting'}: change it in the bootstrap file or the environment and restart the server` };
  }
  // The rest of `auth` lives in the access store: a setting there would be shadowed by it.
  if (path[0] === 'auth') {
    const where = path[1]?.endsWith('_claim')
      ? 'claim names are saved on the Access surface (PUT /api/access/claims) and used from the next request'
      : 'roles and group mappings are access records (the Access surface; the file\'s copy is imported once, rule 13)';
    return { ok: false, code: 'not_a_setting', error: `${key} is not a setting: ${where}` };
  }
  return { ok: true, path };
}

/**
 * The file's document with the stored settings laid over it: a copy (the inputs are not touched),
 * shorter keys first so `projects.shop.trigger` lands inside a saved `projects`. A setting whose
 * parent holds something other than a mapping replaces it with one.
 */
export function withSettings(fileDocument: unknown, settings: StoredSettings): unknown {
  const keys = Object.keys(settings).sort((a, b) => a.split('.').length - b.split('.').length || a.localeCompare(b));
  if (keys.length === 0) return fileDocument;
  const root: Record<string, unknown> = isPlainObject(fileDocument) ? structuredClone(fileDocument) : {};
  for (const key of keys) {
    const path = key.split('.');
    let node = root;
    for (const segment of path.slice(0, -1)) {
      const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (!isPlainObject(next)) node[segment] = {};
      node = node[segment] as Record<string, unknown>;
    }
    node[path.at(-1)!] = structuredClone(settings[key]);
  }
  return root;
}

/** The stored key that decides the value at `path` (dotted), if any: the longest key equal to it or above it. */
export function settingCovering(path: string, settings: StoredSettings): string | null {
  let best: string | null = null;
  for (const key of Object.keys(settings)) {
    if ((key === path || path.startsWith(`${key}.`) || path.startsWith(`${key}[`)) && (best === null || key.length > best.length)) best = key;
  }
  return best;
}
