/** A change record's before/after, as the rows of a table: what was added, removed or changed. */
export interface DiffRow { path: string; before: string | null; after: string | null; kind: 'added' | 'removed' | 'changed' }

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Leaves by dotted path (arrays indexed `[i]`); an empty object or array is a leaf of its own. */
export function flatten(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (Array.isArray(value) && value.length > 0 && value.some((v) => isPlainObject(v) || Array.isArray(v))) {
    value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  } else {
    // Arrays of plain values read best whole (roles, permissions): one leaf.
    out.set(prefix, value);
  }
  return out;
}

export function show(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * Every leaf that differs. `null` before is "did not exist", `null` after is "removed" (the feed's
 * meaning); a whole-target null shows as one row at the target itself ("(whole)").
 */
export function changeDiff(before: unknown, after: unknown): DiffRow[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const record = (v: unknown) => v === null || isPlainObject(v);
  if (!record(before) || !record(after) || (before === null && after === null)) {
    const b = before === null ? null : show(before);
    const a = after === null ? null : show(after);
    return [{ path: '(whole)', before: b, after: a, kind: b === null ? 'added' : a === null ? 'removed' : 'changed' }];
  }
  // A record that did not exist (or no longer does) has no leaves: each leaf of the other is added or removed.
  const b = before === null ? new Map<string, unknown>() : flatten(before);
  const a = after === null ? new Map<string, unknown>() : flatten(after);
  const paths = [...new Set([...b.keys(), ...a.keys()])].sort();
  const rows: DiffRow[] = [];
  for (const path of paths) {
    const hasB = b.has(path);
    const hasA = a.has(path);
    const vb = hasB ? show(b.get(path)) : null;
    const va = hasA ? show(a.get(path)) : null;
    if (hasB && hasA && vb === va) continue;
    rows.push({ path: path || '(whole)', before: vb, after: va, kind: !hasB ? 'added' : !hasA ? 'removed' : 'changed' });
  }
  return rows;
}

/** The feed's kinds in words. */
export function changeKindLabel(kind: string): string {
  const words: Record<string, string> = {
    'secret.put': 'secret saved', 'secret.delete': 'secret removed', 'setting.put': 'setting saved', 'setting.delete': 'setting removed',
    'access.grant-person': 'roles granted', 'access.remove-person': 'person removed', 'access.map-group': 'group mapped',
    'access.save-role': 'role saved', 'access.remove-role': 'role removed', 'access.save-claims': 'claim names saved',
    'config.import': 'configuration imported', 'archive.restore': 'archive restored',
  };
  return words[kind] ?? kind;
}

/** An import and a restore cannot be reverted (409 not_revertible): the page offers no button. */
export function isRevertible(kind: string): boolean {
  return kind !== 'config.import' && kind !== 'archive.restore';
}
