import type { ServiceConfig } from '../../config/service-config.js';
import { at, text } from '../payload-reader.js';
import { Platform } from '../platform.js';

/**
 * The secret a Jira delivery must be signed with, decided from the raw body before anything is
 * parsed or judged: the secret of the project named by the project key or by its key's
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
  const keys = [text(at(body, 'issue', 'fields', 'project', 'key')), prefixOf(text(at(body, 'issue', 'key')))];
  return keys.filter((k): k is string => k !== null).map((k) => k.trim().toLowerCase());
}

/** `BILL-3` → `BILL`; null without a dash after the first character (not yet checked as an issue key). */
function prefixOf(key: string | null): string | null {
  const dash = key?.lastIndexOf('-') ?? -1;
  return key !== null && dash > 0 ? text(key.slice(0, dash)) : null;
}
