import type { Finding } from '../../api/types';

/** `GET /api/catalog` (contract "Skills and GET /api/catalog"). */
export interface CatalogSkill {
  name: string;
  description: string;
  source: 'builtin' | 'configured' | 'repository';
  repository: string | null;
  project: string | null;
  pipelines: string[] | null;
}

export interface Catalog {
  skills: CatalogSkill[];
  findings: Finding[];
}

/** `GET /api/catalog/skills/:name`. */
export interface CatalogSkillDetail extends CatalogSkill {
  body: string;
  files: string[];
}

export const SOURCE_LABELS: Record<CatalogSkill['source'], string> = { builtin: 'built in', configured: 'configured', repository: 'repository' };

/** The detail page's URL state: which project's and repository's skill of that name. */
export interface SkillSearch {
  project?: string;
  repository?: string;
}

export function parseSkillSearch(search: Record<string, unknown>): SkillSearch {
  const out: SkillSearch = {};
  for (const key of ['project', 'repository'] as const) {
    const value = search[key];
    if (typeof value === 'string' && value !== '') out[key] = value.slice(0, 200);
  }
  return out;
}

/** The API path of one skill, scoped like the row it was opened from. */
export function skillPath(name: string, search: SkillSearch): string {
  const query = new URLSearchParams();
  if (search.project) query.set('project', search.project);
  if (search.repository) query.set('repository', search.repository);
  const suffix = query.toString();
  return `/api/catalog/skills/${encodeURIComponent(name)}${suffix ? `?${suffix}` : ''}`;
}

export function pipelinesText(pipelines: string[] | null): string {
  return pipelines === null ? 'all agent pipelines' : pipelines.join(', ');
}
