/**
 * The projects in force, rebuilt from `GET /api/config`'s keys (dotted as the loader names them:
 * `projects.shop.repos[0].url`). The API answers leaves only; the page wants each project whole.
 * Values stay as the API masked them (`${NAME}` references, `***`).
 */

export interface ConfigKey {
  key: string;
  value: unknown;
  source: string;
  references?: { name: string; from: string }[];
}

export interface ConfigDocument {
  keys: ConfigKey[];
  revision?: number | null;
  secrets?: { file: string[]; stored: string[] };
}

export const PLATFORMS = ['platform-a', 'platform-b', 'platform-c', 'platform-d'] as const;
export type Platform = (typeof PLATFORMS)[number];
export const PLATFORM_NAMES: Record<Platform, string> = {
  'platform-a': 'GitHub',
  'platform-b': 'GitLab',
  'platform-c': 'Azure DevOps',
  'platform-d': 'Jira',
};
export const BUILT_IN_PIPELINES = ['code', 'security-scan', 'pr-review'] as const;

export interface ProjectRepo {
  name: string;
  platform: string;
  url: string;
  apiUrl: string | null;
  branch: string | null;
}

export interface ProjectTrigger {
  platform: Platform;
  statuses: string[];
  labels: Record<string, string>;
  defaultPipeline: string | null;
  polling: boolean;
  /** Azure DevOps organization or Jira site and project key, where set. */
  where: string | null;
}

export interface ProjectView {
  name: string;
  tracker: string;
  repos: ProjectRepo[];
  triggers: ProjectTrigger[];
  /** Every pipeline a trigger of the project can start. */
  pipelines: string[];
  /** Where its keys come from (`file`, `store`…), strongest first. */
  sources: string[];
}

type Tree = Record<string, unknown>;

/** Splits `a.b[0].c` into `['a', 'b', 0, 'c']`. */
export function keyPath(key: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of key.split('.')) {
    const match = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!match) {
      out.push(part);
      continue;
    }
    if (match[1]) out.push(match[1]);
    for (const index of match[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(index[1]));
  }
  return out;
}

/** The document the keys describe (arrays where an index follows). */
export function treeOf(keys: readonly ConfigKey[]): Tree {
  const root: Tree = {};
  for (const { key, value } of keys) {
    const path = keyPath(key);
    let node: Record<string | number, unknown> = root;
    path.forEach((segment, i) => {
      if (i === path.length - 1) {
        node[segment] = value;
        return;
      }
      const nextIsIndex = typeof path[i + 1] === 'number';
      const existing = node[segment];
      if (typeof existing !== 'object' || existing === null) node[segment] = nextIsIndex ? [] : {};
      node = node[segment] as Record<string | number, unknown>;
    });
  }
  return root;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const isRecord = (value: unknown): value is Tree => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every configured project, by name. */
export function projectsOf(document: ConfigDocument): ProjectView[] {
  const projectKeys = document.keys.filter((k) => k.key.startsWith('projects.'));
  const projects = treeOf(projectKeys)['projects'];
  if (!isRecord(projects)) return [];
  return Object.entries(projects)
    .filter(([, block]) => isRecord(block))
    .map(([name, block]) => projectView(name, block as Tree, projectKeys.filter((k) => k.key.startsWith(`projects.${name}.`) || k.key === `projects.${name}`)))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function projectView(name: string, block: Tree, keys: ConfigKey[]): ProjectView {
  const repos = (Array.isArray(block['repos']) ? block['repos'] : []).filter(isRecord).map((repo) => ({
    name: text(repo['name']) ?? '?',
    platform: text(repo['platform']) ?? '?',
    url: text(repo['url']) ?? '',
    apiUrl: text(repo['api_url']),
    branch: text(repo['branch']),
  }));
  const triggers: ProjectTrigger[] = [];
  for (const platform of PLATFORMS) {
    const trigger = block[`platform_${platform.slice(-1)}_trigger`];
    if (!isRecord(trigger)) continue;
    const labels = isRecord(trigger['pipeline_from_label'])
      ? Object.fromEntries(Object.entries(trigger['pipeline_from_label']).filter((e): e is [string, string] => typeof e[1] === 'string'))
      : {};
    const polling = isRecord(trigger['polling']) && trigger['polling']['enabled'] === true;
    const site = text(trigger['organization_url']) ?? text(trigger['site_url']);
    const scope = text(trigger['team_project']) ?? text(trigger['project_key']);
    triggers.push({
      platform, statuses: list(trigger['trigger_statuses']), labels, defaultPipeline: text(trigger['default_pipeline']), polling,
      where: site ? (scope ? `${site} · ${scope}` : site) : null,
    });
  }
  const pipelines = new Set<string>();
  for (const t of triggers) {
    if (t.defaultPipeline) pipelines.add(t.defaultPipeline);
    for (const p of Object.values(t.labels)) pipelines.add(p);
  }
  const order = ['store', 'environment', 'file', 'default'];
  const sources = [...new Set(keys.map((k) => k.source))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return { name, tracker: text(block['tracker']) ?? '?', repos, triggers, pipelines: [...pipelines].sort(), sources };
}

/** The configured command pipelines (`pipelines.<name>.…`) and the built-ins. */
export function pipelinesOf(document: ConfigDocument): string[] {
  const configured = new Set<string>();
  for (const { key } of document.keys) {
    const match = /^pipelines\.([^.[]+)/.exec(key);
    if (match) configured.add(match[1]!);
  }
  return [...BUILT_IN_PIPELINES, ...[...configured].sort()];
}

export function platformName(platform: string): string {
  return PLATFORM_NAMES[platform as Platform] ?? platform;
}
