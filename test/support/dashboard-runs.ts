import { createHmac, randomUUID } from 'node:crypto';
import { githubExample } from '../fixtures/payload-fixtures.js';
import type { GitRemotes } from './git-remotes.js';

/**
 * Runs for the browser tests, started the way production starts them: a signed GitHub `issues`
 * `labeled` delivery into a configured project whose label names a command pipeline, which the
 * server claims, queues and runs in an in-process sandbox (repository cloned from a real local
 * git remote).
 */
export const WEBHOOK_SECRET = 'browser-tests-webhook-secret';
export const TRIGGER_LABEL = 'ready-for-agent';

/** A `service.yml` with project `shop` (its label starts the long-running `slow` pipeline). */
export function runsConfig(remotes: GitRemotes): Record<string, unknown> {
  return {
    pipelines: {
      slow: { commands: ['sleep 600'], timeout_seconds: 900 },
      quick: { commands: ['echo done'], timeout_seconds: 60 },
    },
    sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi' },
    projects: {
      shop: {
        tracker: 'platform-a',
        repos: [remotes.entry('shop-web')],
        platform_a_trigger: { trigger_statuses: [TRIGGER_LABEL], pipeline_from_label: { [TRIGGER_LABEL]: 'slow', quick: 'quick' } },
      },
    },
  };
}

/** The server environment the config needs (the webhook secret). */
export const RUNS_ENV = { PLATFORM_A_WEBHOOK_SECRET: WEBHOOK_SECRET };

/** Delivers "issue `number` of the shop repository got label `label`"; resolves with the server's answer. */
export function labelIssue(baseUrl: string, remotes: GitRemotes, number: number, label = TRIGGER_LABEL): Promise<{ status: number; text: string }> {
  return labelIssueOf(baseUrl, String(remotes.entry('shop-web')['url']), number, label);
}

/** Delivers "issue `number` of the repository at `repositoryUrl` got label `label`", signed with WEBHOOK_SECRET. */
export function labelIssueOf(baseUrl: string, repositoryUrl: string, number: number, label = TRIGGER_LABEL): Promise<{ status: number; text: string }> {
  return deliverLabel(baseUrl, { repositoryUrl, number, label, secret: WEBHOOK_SECRET });
}

/** A signed GitHub `issues` `labeled` delivery for the repository at `repositoryUrl` (its `html_url`), signed with `secret`. */
export async function deliverLabel(
  baseUrl: string,
  delivery: { repositoryUrl: string; number: number; label: string; secret: string },
): Promise<{ status: number; text: string }> {
  const body = githubExample('issues', 'labeled');
  (body['issue'] as Record<string, unknown>)['number'] = delivery.number;
  (body['repository'] as Record<string, unknown>)['html_url'] = delivery.repositoryUrl;
  (body['label'] as Record<string, unknown>)['name'] = delivery.label;
  const payload = JSON.stringify(body);
  const res = await fetch(`${baseUrl}/webhook/platform-a`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issues',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', delivery.secret).update(payload).digest('hex')}`,
    },
    body: payload,
  });
  return { status: res.status, text: await res.text() };
}
