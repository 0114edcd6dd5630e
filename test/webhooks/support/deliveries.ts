import { githubExample, loadFixture } from '../../fixtures/payload-fixtures.js';
import { SECRETS, basicAuth, githubSignature } from './webhook-harness.js';

/**
 * The projects the webhook tests route to. They are configured around the platforms' documented
 * example payloads (repository URLs, team project, Jira key, label names and comment texts of the
 * examples), so the payloads need patching only to route them (a distinct ticket id per test, or
 * a repository URL / Jira key naming another project).
 */
export const HELLO_WORLD = 'https://github.com/Codertocat/Hello-World';
export const NO_PIPELINE_REPO = 'https://github.com/acme/no-pipeline';
export const UNKNOWN_REPO = 'https://github.com/acme/nobody-declares-this';

export const TEST_PROJECTS: Record<string, unknown> = {
  'gh-main': {
    tracker: 'platform-a',
    repos: [{ name: 'hello-world', platform: 'platform-a', url: HELLO_WORLD }],
    platform_a_trigger: {
      pipeline_from_label: { bug: 'code' },
      trigger_statuses: ['ready-for-agent'],
      default_pipeline: 'code',
      // The octokit issue_comment example says "You are totally right! …": the word after the
      // keyword names the command pipeline `right`, which no label maps → PipelineNotLabelTriggered.
      comment_keyword: 'You are totally',
    },
  },
  'gh-nopipe': {
    tracker: 'platform-a',
    repos: [{ name: 'no-pipeline', platform: 'platform-a', url: NO_PIPELINE_REPO }],
    platform_a_trigger: { pipeline_from_label: { bug: 'ghost' } },
  },
  'gl-main': {
    tracker: 'platform-b',
    repos: [
      { name: 'gitlab-test', platform: 'platform-b', url: 'http://example.com/gitlabhq/gitlab-test' },
      { name: 'gitlab-org-test', platform: 'platform-b', url: 'http://example.com/gitlab-org/gitlab-test' },
    ],
    platform_b_trigger: { pipeline_from_label: { Platform: 'code' }, default_pipeline: 'code', comment_keyword: 'Hello world' },
  },
  'ado-main': {
    tracker: 'platform-c',
    platform_c_trigger: {
      organization_url: 'https://dev.azure.com/fabrikam-fiber-inc',
      team_project: 'FabrikamCloud',
      trigger_statuses: ['Approved'],
      default_pipeline: 'code',
      comment_keyword: 'great new idea',
    },
  },
  'jira-main': {
    tracker: 'platform-d',
    platform_d_trigger: {
      site_url: 'https://jira.atlassian.com',
      project_key: 'JRA',
      secret: SECRETS.jiraProject,
      trigger_statuses: ['Ready for Agent'],
      default_pipeline: 'code',
      comment_keyword: 'AtlasCamp',
    },
  },
  'jira-open': {
    tracker: 'platform-d',
    platform_d_trigger: { site_url: 'https://jira.atlassian.com', project_key: 'OPEN', trigger_statuses: ['Ready for Agent'], default_pipeline: 'code' },
  },
};

export const TEST_PIPELINES = { right: { commands: ['true'], timeout_seconds: 60 } };

/** A delivery as it goes over the wire. */
export interface Wire {
  url: string;
  headers: Record<string, string>;
  payload: string;
}

type Json = Record<string, unknown>;
const rec = (value: unknown): Json => value as Json;

// --- Platform A (GitHub, @octokit/webhooks-examples) ---------------------------------------

/** `issues` `labeled` (label `bug`) for issue `number`, optionally from another repository. */
export function githubLabeled(number: number, opts: { repoUrl?: string; label?: string } = {}): Json {
  const body = githubExample('issues', 'labeled');
  rec(body['issue'])['number'] = number;
  if (opts.repoUrl !== undefined) rec(body['repository'])['html_url'] = opts.repoUrl;
  if (opts.label !== undefined) rec(body['label'])['name'] = opts.label;
  return body;
}

export function githubCommented(number: number): Json {
  const body = githubExample('issue_comment', 'created');
  rec(body['issue'])['number'] = number;
  return body;
}

export interface GitHubSendOptions {
  route?: '/webhook' | '/webhook/platform-a';
  /** Which event header spelling. */
  eventHeader?: 'X-GitHub-Event' | 'X-PlatformA-Event';
  delivery?: string;
  /** undefined → signed with the configured secret; null → no signature header; a string → that header value. */
  signature?: string | null;
}

export function githubWire(event: string, body: Json, opts: GitHubSendOptions = {}): Wire {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [opts.eventHeader ?? 'X-GitHub-Event']: event,
  };
  if (opts.delivery !== undefined) headers['X-GitHub-Delivery'] = opts.delivery;
  const signature = opts.signature === undefined ? githubSignature(SECRETS.platformA, payload) : opts.signature;
  if (signature !== null) headers['X-Hub-Signature-256'] = signature;
  return { url: opts.route ?? '/webhook/platform-a', headers, payload };
}

// --- Platform B (GitLab documented examples) -------------------------------------------------

/** `Issue Hook` whose labels change from `API` to `Platform` (the example), for issue `iid`. */
export function gitlabIssueHook(iid: number, addedLabel?: string): Json {
  const body = loadFixture('gitlab', 'issue-hook');
  rec(body['object_attributes'])['iid'] = iid;
  if (addedLabel !== undefined) {
    const labels = rec(rec(body['changes'])['labels']);
    (labels['current'] as Json[])[0]!['title'] = addedLabel;
  }
  return body;
}

export function gitlabNoteHook(iid: number): Json {
  const body = loadFixture('gitlab', 'note-hook-issue');
  rec(body['issue'])['iid'] = iid;
  return body;
}

export interface GitLabSendOptions {
  route?: '/webhook' | '/webhook/platform-b';
  spelling?: 'gitlab' | 'platformb';
  /** undefined → the configured token; null → none. */
  token?: string | null;
  idempotencyKey?: string;
}

export function gitlabWire(event: string, body: Json, opts: GitLabSendOptions = {}): Wire {
  const gitlab = (opts.spelling ?? 'gitlab') === 'gitlab';
  const headers: Record<string, string> = { 'content-type': 'application/json', [gitlab ? 'X-Gitlab-Event' : 'X-PlatformB-Event']: event };
  const token = opts.token === undefined ? SECRETS.platformB : opts.token;
  if (token !== null) headers[gitlab ? 'X-Gitlab-Token' : 'X-PlatformB-Token'] = token;
  if (opts.idempotencyKey !== undefined) headers['Idempotency-Key'] = opts.idempotencyKey;
  return { url: opts.route ?? '/webhook/platform-b', headers, payload: JSON.stringify(body) };
}

// --- Platform C (Azure DevOps documented service-hook examples) ------------------------------

/** `workitem.updated`: State New → Approved, for work item `id`, under notification `notificationId`. */
export function adoUpdated(id: number, notificationId?: string): Json {
  const body = loadFixture('azure-devops', 'workitem-updated');
  rec(body['resource'])['workItemId'] = id;
  if (notificationId !== undefined) body['id'] = notificationId;
  return body;
}

export function adoCommented(id: number, notificationId?: string): Json {
  const body = loadFixture('azure-devops', 'workitem-commented');
  rec(body['resource'])['id'] = id;
  if (notificationId !== undefined) body['id'] = notificationId;
  return body;
}

export interface AdoSendOptions {
  route?: '/webhook' | '/webhook/platform-c';
  /** undefined → valid Basic credentials; null → no Authorization header. */
  authorization?: string | null;
  headers?: Record<string, string>;
}

export function adoWire(body: Json, opts: AdoSendOptions = {}): Wire {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  const authorization = opts.authorization === undefined ? basicAuth('service-hook', SECRETS.platformC) : opts.authorization;
  if (authorization !== null) headers['Authorization'] = authorization;
  return { url: opts.route ?? '/webhook/platform-c', headers, payload: JSON.stringify(body) };
}

// --- Platform D (Jira documented example) -----------------------------------------------------

/**
 * The documented `jira:issue_updated` example for issue `key`. With `status`, a changelog item in
 * Jira's own shape moves the issue to that status (the example only changes summary and type).
 */
export function jiraUpdated(key: string, status?: string): Json {
  const body = loadFixture('jira', 'issue-updated');
  rec(body['issue'])['key'] = key;
  if (status !== undefined) {
    const items = rec(body['changelog'])['items'] as Json[];
    items.push({ field: 'status', fieldtype: 'jira', from: '1', fromString: 'Open', to: '10001', toString: status });
  }
  return body;
}

/** `comment_created` built from the example's own issue and comment ("Just in time for AtlasCamp!"). */
export function jiraCommented(key: string): Json {
  const example = loadFixture('jira', 'issue-updated');
  rec(example['issue'])['key'] = key;
  return { timestamp: example['timestamp'], webhookEvent: 'comment_created', issue: example['issue'], comment: example['comment'] };
}

export interface JiraSendOptions {
  /** undefined → signed with the jira-main project secret; null → unsigned; a string → that header value. */
  signature?: string | null;
  identifier?: string;
}

export function jiraWire(body: Json, opts: JiraSendOptions = {}): Wire {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const signature = opts.signature === undefined ? githubSignature(SECRETS.jiraProject, payload) : opts.signature;
  if (signature !== null) headers['X-Hub-Signature'] = signature;
  if (opts.identifier !== undefined) headers['X-Atlassian-Webhook-Identifier'] = opts.identifier;
  return { url: '/webhook/platform-d', headers, payload };
}
