/**
 * URL state of the admin pages, validated as the router reads it (kept out of the pages' lazy
 * chunks because the router needs it up front; it is small).
 */
export const ACCESS_PANES = ['people', 'groups', 'roles', 'claims'] as const;
export type AccessPane = (typeof ACCESS_PANES)[number];

export function isAccessPane(value: string): value is AccessPane {
  return (ACCESS_PANES as readonly string[]).includes(value);
}

export interface AccessSearch { q?: string; offset?: number }
export interface PagedSearch { offset?: number }

function offsetOf(value: unknown): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export function parseAccessSearch(search: Record<string, unknown>): AccessSearch {
  const out: AccessSearch = {};
  const q = search['q'];
  if (typeof q === 'string' && q.trim() !== '') out.q = q.trim().slice(0, 200);
  const offset = offsetOf(search['offset']);
  if (offset !== undefined) out.offset = offset;
  return out;
}

export function parsePagedSearch(search: Record<string, unknown>): PagedSearch {
  const offset = offsetOf(search['offset']);
  return offset === undefined ? {} : { offset };
}
