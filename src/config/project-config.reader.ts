import { ALL_PLATFORMS, Platform, isPlatform, triggerKeyOf } from '../platforms/platform.js';
import type { ConfigReader, Location } from './config-reader.js';
import { readAgent } from './agent-config.reader.js';
import { readPolling } from './polling-config.reader.js';
import { readSecurityScan } from './security-scan-config.reader.js';
import type { AgentConfig, PrCommandsConfig, ProjectConfig, RepoConfig, SecurityScanConfig, TriggerConfig } from './service-config.js';

const PROJECT_KEYS = ['tracker', 'repos', 'pr_commands', 'agent', 'security_scan', ...ALL_PLATFORMS.map(triggerKeyOf)];
const REPO_KEYS = ['name', 'platform', 'url', 'api_url', 'path_prefix', 'auth_secret', 'branch'];
const TRIGGER_KEYS = [
  'trigger_statuses', 'pipeline_from_label', 'default_pipeline', 'done_status', 'comment_keyword',
  'pr_trigger_label', 'needs_clarification_status', 'organization_url', 'team_project', 'site_url',
  'project_key', 'secret', 'credentials', 'polling',
];
const PR_COMMAND_KEYS = ['enabled', 'require_member', 'allowed_pipelines'];

/**
 * One project; null when it cannot be routed at all (no valid tracker). `baseAgent`,
 * `baseSecurityScan`: the top-level blocks the project's own keys are laid over.
 */
export function readProject(
  r: ConfigReader, name: string, raw: unknown, baseAgent: AgentConfig, baseSecurityScan: SecurityScanConfig,
): ProjectConfig | null {
  const where: Location = { project: name, path: `projects.${name}` };
  const block = r.block(raw, where, PROJECT_KEYS);
  const trackerRaw = r.string(block.tracker, r.at(where, 'tracker'));
  if (!isPlatform(trackerRaw)) {
    r.problem(r.at(where, 'tracker'), `project ${name} needs tracker: one of ${ALL_PLATFORMS.join(', ')}; the project was not loaded`);
    return null;
  }
  const triggers: Partial<Record<Platform, TriggerConfig>> = {};
  for (const platform of ALL_PLATFORMS) {
    const key = triggerKeyOf(platform);
    if (block[key] !== undefined) triggers[platform] = readTrigger(r, { project: name, trigger: key, path: `${where.path}.${key}` }, block[key]);
  }
  return {
    name,
    tracker: trackerRaw,
    repos: readRepos(r, r.at(where, 'repos'), block.repos),
    triggers,
    pr_commands: readPrCommands(r, r.at(where, 'pr_commands'), block.pr_commands),
    agent: readAgent(r, r.at(where, 'agent'), block.agent, baseAgent),
    security_scan: readSecurityScan(r, r.at(where, 'security_scan'), block.security_scan, baseSecurityScan),
  };
}

function readRepos(r: ConfigReader, where: Location, raw: unknown): RepoConfig[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    r.problem(where, `${where.path} must be a list of repositories`);
    return [];
  }
  const repos: RepoConfig[] = [];
  raw.forEach((item, i) => {
    const at = r.at(where, `[${i}]`);
    const block = r.block(item, at, REPO_KEYS);
    const name = r.string(block.name, r.at(at, 'name'));
    const platform = r.string(block.platform, r.at(at, 'platform'));
    const url = r.string(block.url, r.at(at, 'url'));
    if (!name || !url || !isPlatform(platform)) {
      r.problem(at, `repository ${i} needs name, url and platform (one of ${ALL_PLATFORMS.join(', ')}); it was not loaded`);
      return;
    }
    if (platform === Platform.Jira) {
      r.problem(r.at(at, 'platform'), `repository ${name}: ${Platform.Jira} (Jira) hosts no repositories; use the platform of its code host; it was not loaded`);
      return;
    }
    // An unresolved reference was reported by the reader already; an absent one is reported here.
    if (block.auth_secret === undefined || block.auth_secret === null) {
      r.problem(r.at(at, 'auth_secret'), `repository ${name} has no auth_secret: the server cannot fetch its tree or publish to it, so every run of its project fails until it is set`);
    }
    repos.push({
      name,
      platform,
      url,
      api_url: r.string(block.api_url, r.at(at, 'api_url')),
      path_prefix: r.string(block.path_prefix, r.at(at, 'path_prefix')) ?? '',
      auth_secret: r.string(block.auth_secret, r.at(at, 'auth_secret'), { secret: true }),
      branch: r.string(block.branch, r.at(at, 'branch')),
    });
  });
  return repos;
}

function readTrigger(r: ConfigReader, where: Location, raw: unknown): TriggerConfig {
  const b = r.block(raw, where, TRIGGER_KEYS);
  const s = (key: string, secret = false) => r.string(b[key], r.at(where, key), { secret });
  return {
    trigger_statuses: r.stringList(b.trigger_statuses, r.at(where, 'trigger_statuses')),
    pipeline_from_label: r.stringMap(b.pipeline_from_label, r.at(where, 'pipeline_from_label')),
    default_pipeline: s('default_pipeline'),
    done_status: s('done_status'),
    comment_keyword: s('comment_keyword'),
    pr_trigger_label: s('pr_trigger_label'),
    needs_clarification_status: s('needs_clarification_status'),
    organization_url: s('organization_url'),
    team_project: s('team_project'),
    site_url: s('site_url'),
    project_key: s('project_key'),
    secret: s('secret', true),
    credentials: s('credentials', true),
    polling: readPolling(r, r.at(where, 'polling'), b.polling),
  };
}

function readPrCommands(r: ConfigReader, where: Location, raw: unknown): PrCommandsConfig {
  const b = r.block(raw, where, PR_COMMAND_KEYS);
  return {
    enabled: r.boolean(b.enabled, r.at(where, 'enabled'), false),
    require_member: r.boolean(b.require_member, r.at(where, 'require_member'), true),
    allowed_pipelines: b.allowed_pipelines === undefined ? null : r.stringList(b.allowed_pipelines, r.at(where, 'allowed_pipelines')),
  };
}

