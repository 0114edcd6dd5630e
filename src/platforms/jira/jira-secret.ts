import type { ServiceConfig } from '../../config/service-config.js';
import { Platform } from '../platform.js';

/**
 * The secret a Jira delivery must be signed with, decided from the raw body before anything is
 * parsed or judged: the secret of the project named by the issue's project key or by its key's
 * prefix (`BILL-3`), whichever carries one, so that a delivery cannot slip past a project's
 * secret by naming another project in one of the two, nor by being a kind of event that the
 * parser would ignore. Projects without a secret of their own fall back to
 * `webhooks.platform_d_secret` (PLATFORM_D_WEBHOOK_SECRET).
 */
export function jiraSecretFor(config: Pick<ServiceConfig, 'projects' | 'webhooks'>, body: unknown): string | null {
  const projects = Object.values(config.projects);
  for (const key of namedProjectKeys(body)) {
    const project = projects.find((p) => p.triggers[Platform.Jira]?.project_key?.trim().toLowerCase() === key);
    const secret = project?.triggers[Platform.Jira]?.secret;
    if (secret) return secret;
  }
  return config.webhooks.platform_d_secret;
}

/** Lower-cased project keys the body names: `issue.fields.project.key` and the prefix of `issue.key`. */
function namedProjectKeys(body: unknown): string[] {
  const issue = field(body, 'issue');
  const keys = [field(field(field(issue, 'fields'), 'project'), 'key'), prefixOf(field(issue, 'key'))];
  return keys.filter((k): k is string => typeof k === 'string' && k.trim() !== '').map((k) => k.trim().toLowerCase());
}

function prefixOf(key: unknown): string | null {
  if (typeof key !== 'string') return null;
  const dash = key.lastIndexOf('-');
  return dash > 0 ? key.slice(0, dash) : null;
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, name)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}
