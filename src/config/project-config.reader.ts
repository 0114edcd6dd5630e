import { ALL_PLATFORMS, type Platform, isPlatform, triggerKeyOf } from '../platforms/platform.js';
import { platformOf } from '../platforms/platform-registry.js';
import type { ConfigReader, Location } from './config-reader.js';
import { CRITERIA, PR_COMMANDS, PROJECT, REPO, TRIGGER } from './config-shape.js';
import { readAgent } from './agent-config.reader.js';
import { readPolling } from './polling-config.reader.js';
import { readSecurityScan } from './security-scan-config.reader.js';
import type { AgentConfig, PrCommandsConfig, ProjectConfig, RepoConfig, SecurityScanConfig, TriggerConfig } from './service-config.js';

/**
 * One project; null when it cannot be routed at all (no valid tracker). `baseAgent`,
 * `baseSecurityScan`: the top-level blocks the project's own keys are laid over.
 */
export function readProject(
  r: ConfigReader, name: string, raw: unknown, baseAgent: AgentConfig, baseSecurityScan: SecurityScanConfig,
): ProjectConfig | null {
  const where: Location = { project: name, path: `projects.${name}` };
  const block = r.block(raw, where, PROJECT);
  const trackerRaw = r.field(PROJECT, block, where, 'tracker');
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
    criteria: { enforce: r.field(CRITERIA, r.block(block.criteria, r.at(where, 'criteria'), CRITERIA), r.at(where, 'criteria'), 'enforce') },
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
    const block = r.block(item, at, REPO);
    const name = r.field(REPO, block, at, 'name');
    const platform = r.field(REPO, block, at, 'platform');
    const url = r.field(REPO, block, at, 'url');
    if (!name || !url || !isPlatform(platform)) {
      r.problem(at, `repository ${i} needs name, url and platform (one of ${ALL_PLATFORMS.join(', ')}); it was not loaded`);
      return;
    }
    if (!REPO.keys.platform.values.includes(platform)) {
      r.problem(r.at(at, 'platform'), `repository ${name}: ${platform} (${platformOf(platform)?.product ?? platform}) hosts no repositories; use the platform of its code host; it was not loaded`);
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
      api_url: r.field(REPO, block, at, 'api_url'),
      path_prefix: r.field(REPO, block, at, 'path_prefix') ?? '',
      auth_secret: r.field(REPO, block, at, 'auth_secret'),
      branch: r.field(REPO, block, at, 'branch'),
    });
  });
  return repos;
}

function readTrigger(r: ConfigReader, where: Location, raw: unknown): TriggerConfig {
  const b = r.block(raw, where, TRIGGER);
  const s = (key: Exclude<keyof typeof TRIGGER.keys, 'trigger_statuses' | 'pipeline_from_label' | 'polling'>) => r.field(TRIGGER, b, where, key);
  return {
    trigger_statuses: r.field(TRIGGER, b, where, 'trigger_statuses'),
    pipeline_from_label: r.field(TRIGGER, b, where, 'pipeline_from_label'),
    default_pipeline: s('default_pipeline'),
    done_status: s('done_status'),
    comment_keyword: s('comment_keyword'),
    pr_trigger_label: s('pr_trigger_label'),
    needs_clarification_status: s('needs_clarification_status'),
    organization_url: s('organization_url'),
    team_project: s('team_project'),
    site_url: s('site_url'),
    project_key: s('project_key'),
    ticket_type: s('ticket_type'),
    secret: s('secret'),
    credentials: s('credentials'),
    polling: readPolling(r, r.at(where, 'polling'), b.polling),
  };
}

function readPrCommands(r: ConfigReader, where: Location, raw: unknown): PrCommandsConfig {
  const b = r.block(raw, where, PR_COMMANDS);
  return {
    enabled: r.field(PR_COMMANDS, b, where, 'enabled'),
    require_member: r.field(PR_COMMANDS, b, where, 'require_member'),
    allowed_pipelines: b.allowed_pipelines === undefined ? null : r.field(PR_COMMANDS, b, where, 'allowed_pipelines'),
  };
}

