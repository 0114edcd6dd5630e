import type { Platform } from './config-projects';

/**
 * "Add project" without writing YAML: what the form holds, what it refuses, which connections it
 * probes, and the writes that save it (secrets first, then one stored setting per block), so a
 * saved project is attributed, revertable and exported like any change. Pure: the page runs it.
 */

export type CodeHost = Exclude<Platform, 'platform-d'>;

export interface AddProjectForm {
  name: string;
  tracker: Platform;
  /** Where the repositories live: the tracker's platform, except for Jira (which hosts no code). */
  codeHost: CodeHost;
  /** One repository web URL per line. */
  repositories: string;
  /** The code host's API when it is not the public one (GitHub Enterprise, a self-hosted GitLab). */
  apiUrl: string;
  /** The code host's token (Azure DevOps: the PAT, also the tracker's credential). */
  token: string;
  organizationUrl: string;
  teamProject: string;
  siteUrl: string;
  projectKey: string;
  /** Jira: `user:api-token` (Cloud) or a personal access token (Data Center). */
  jiraCredentials: string;
  /** Labels (GitHub, GitLab) or statuses (Azure DevOps, Jira) that start the default pipeline, comma-separated. */
  trigger: string;
  defaultPipeline: string;
  /** Read the tracker every minute instead of (not beside) registering a webhook. */
  polling: boolean;
}

export type FormField = keyof AddProjectForm;
export type FormErrors = Partial<Record<FormField, string>>;

export function emptyForm(): AddProjectForm {
  return {
    name: '', tracker: 'platform-a', codeHost: 'platform-a', repositories: '', apiUrl: '', token: '',
    organizationUrl: '', teamProject: '', siteUrl: '', projectKey: '', jiraCredentials: '',
    trigger: DEFAULT_TRIGGER.label, defaultPipeline: 'code', polling: false,
  };
}

/** What starts a run by default: a label on GitHub and GitLab, a status on Azure DevOps and Jira. */
export const DEFAULT_TRIGGER = { label: 'agent', status: 'Ready for Agent' } as const;

/**
 * The form after choosing another tracker: the trigger follows (a label or a status) while it is
 * still the default, and the Jira credentials go (their field goes with Jira).
 */
export function withTracker(form: AddProjectForm, tracker: Platform): AddProjectForm {
  const labels = (p: Platform) => p === 'platform-a' || p === 'platform-b';
  const untouched = form.trigger === (labels(form.tracker) ? DEFAULT_TRIGGER.label : DEFAULT_TRIGGER.status);
  const trigger = untouched ? (labels(tracker) ? DEFAULT_TRIGGER.label : DEFAULT_TRIGGER.status) : form.trigger;
  return { ...form, tracker, trigger, jiraCredentials: tracker === 'platform-d' ? form.jiraCredentials : '' };
}

/** The code host in effect: a GitHub, GitLab or Azure DevOps project keeps its code on its tracker. */
export function codeHostOf(form: AddProjectForm): CodeHost {
  return form.tracker === 'platform-d' ? form.codeHost : form.tracker;
}

/** Setting keys are segments of letters, digits, `_` and `-` (the settings route's rule). */
const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;
const JIRA_KEY = /^[A-Z][A-Z0-9_]{0,19}$/;

export function repositoryUrls(form: AddProjectForm): string[] {
  return form.repositories.split(/[\n,]+/).map((s) => s.trim()).filter(Boolean);
}

export function triggerValues(form: AddProjectForm): string[] {
  return [...new Set(form.trigger.split(',').map((s) => s.trim()).filter(Boolean))];
}

function httpUrl(value: string): URL | null {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** A repository's name: the last segment of its URL, without `.git` (Azure DevOps: after `_git/`). */
export function repositoryName(url: string): string {
  const parsed = httpUrl(url);
  const segments = (parsed?.pathname ?? url).split('/').filter(Boolean);
  return (segments.at(-1) ?? 'repo').replace(/\.git$/, '');
}

export interface ValidationContext {
  existingProjects: readonly string[];
  pipelines: readonly string[];
}

/** Every problem, by field; empty when the form can be probed and saved. */
export function validateForm(form: AddProjectForm, context: ValidationContext): FormErrors {
  const errors: FormErrors = {};
  const name = form.name.trim();
  if (!name) errors.name = 'Give the project a name.';
  else if (!PROJECT_NAME.test(name)) errors.name = 'Use letters, digits, "-" and "_" only, starting with a letter or digit (at most 63).';
  else if (context.existingProjects.some((p) => p.toLowerCase() === name.toLowerCase())) errors.name = `A project named ${name} exists already.`;

  const urls = repositoryUrls(form);
  const host = codeHostOf(form);
  if (urls.length === 0) errors.repositories = 'Give at least one repository URL: runs work on repositories.';
  else {
    const bad = urls.find((u) => {
      const url = httpUrl(u);
      if (!url) return true;
      const depth = url.pathname.split('/').filter(Boolean).length;
      return host === 'platform-c' ? !url.pathname.includes('/_git/') : depth < 2;
    });
    if (bad) {
      errors.repositories = host === 'platform-c'
        ? `Not an Azure DevOps repository URL (https://dev.azure.com/org/project/_git/repo): ${bad}`
        : `Not a repository URL (https://host/owner/repo): ${bad}`;
    } else {
      const names = urls.map(repositoryName);
      const twice = names.find((n, i) => names.indexOf(n) !== i);
      if (twice) errors.repositories = `Two repositories would both be named ${twice}; keep one.`;
    }
  }
  if (form.apiUrl.trim() && !httpUrl(form.apiUrl)) errors.apiUrl = 'Leave empty for the public service, or give an http(s) URL.';
  if (!form.token.trim()) errors.token = 'The token is needed: the server clones, pushes and opens pull requests with it.';

  if (form.tracker === 'platform-c') {
    if (!httpUrl(form.organizationUrl)) errors.organizationUrl = 'Give the organization URL, e.g. https://dev.azure.com/acme.';
    if (!form.teamProject.trim()) errors.teamProject = 'Give the team project the work items live in.';
  }
  if (form.tracker === 'platform-d') {
    if (!httpUrl(form.siteUrl)) errors.siteUrl = 'Give the Jira site URL, e.g. https://acme.atlassian.net.';
    if (!JIRA_KEY.test(form.projectKey.trim())) errors.projectKey = 'Give the Jira project key in capitals, e.g. SHOP.';
    if (!form.jiraCredentials.trim()) errors.jiraCredentials = 'Give user:api-token (Cloud) or a personal access token (Data Center).';
  }
  if (triggerValues(form).length === 0) {
    errors.trigger = form.tracker === 'platform-a' || form.tracker === 'platform-b' ? 'Name at least one label that starts a run.' : 'Name at least one status that starts a run.';
  }
  if (!context.pipelines.includes(form.defaultPipeline)) errors.defaultPipeline = 'Choose a pipeline.';
  return errors;
}

/** A connection to probe before saving (`POST /api/diagnostics/probe-candidate`). */
export interface Candidate {
  /** Which field a failure is shown next to. */
  field: FormField;
  label: string;
  body: { kind: 'tracker' | 'repository'; platform: Platform; url: string; api_url?: string; token: string };
}

/**
 * Every connection the project will use: each repository on its host, and the tracker where it is
 * not a repository (Azure DevOps, Jira); a GitHub or GitLab tracker is its first repository's issues.
 */
export function candidatesOf(form: AddProjectForm): Candidate[] {
  const host = codeHostOf(form);
  const apiUrl = form.apiUrl.trim();
  const out: Candidate[] = repositoryUrls(form).map((url) => ({
    field: 'repositories', label: `Repository ${repositoryName(url)}`,
    body: { kind: 'repository', platform: host, url, ...(apiUrl ? { api_url: apiUrl } : {}), token: form.token.trim() },
  }));
  if (form.tracker === 'platform-c') {
    out.unshift({ field: 'organizationUrl', label: 'Tracker (Azure DevOps)', body: { kind: 'tracker', platform: 'platform-c', url: form.organizationUrl.trim(), token: form.token.trim() } });
  }
  if (form.tracker === 'platform-d') {
    out.unshift({ field: 'jiraCredentials', label: 'Tracker (Jira)', body: { kind: 'tracker', platform: 'platform-d', url: form.siteUrl.trim(), token: form.jiraCredentials.trim() } });
  }
  return out;
}

/** The same inputs probe the same: a changed field needs a new probe. */
export function candidateKey(candidate: Candidate): string {
  return JSON.stringify(candidate.body);
}

/** `shop-web` → `SHOP_WEB`: a secret name is spelled like an environment variable. */
export function secretStem(project: string): string {
  const stem = project.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return /^[A-Z_]/.test(stem) ? stem : `P_${stem}`;
}

/** `base`, or `base_2`, `base_3`… when a stored secret already has that name (it may be in use elsewhere). */
export function freeSecretName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

export interface SavePlanContext {
  /** Names of the stored secrets (and the file's `secrets:` block): never overwritten. */
  takenSecretNames: readonly string[];
  /** The platform's webhook secret is configured already (diagnostics `secretConfigured`). */
  webhookSecretConfigured: boolean;
  /** A fresh random value, used when a webhook secret has to be made. */
  newWebhookSecret: string;
}

export interface SecretWrite {
  name: string;
  value: string;
  /** What it is, for the page ("the GitHub token"). */
  what: string;
}

export interface SettingWrite {
  key: string;
  value: unknown;
}

export interface WebhookAdvice {
  platform: Platform;
  /** Path on the server (`/webhook/platform-a`); the page puts its origin in front. */
  path: string;
  /** The secret to register: made now (shown once, never again), or null when one was configured already. */
  secret: string | null;
  secretName: string | null;
}

export interface SavePlan {
  secrets: SecretWrite[];
  settings: SettingWrite[];
  /** null: the tracker is polled, nothing to register. */
  webhook: WebhookAdvice | null;
}

const TRIGGER_KEY: Record<Platform, string> = {
  'platform-a': 'platform_a_trigger', 'platform-b': 'platform_b_trigger', 'platform-c': 'platform_c_trigger', 'platform-d': 'platform_d_trigger',
};
const WEBHOOK_KEY: Record<Platform, string> = {
  'platform-a': 'webhooks.platform_a_secret', 'platform-b': 'webhooks.platform_b_secret', 'platform-c': 'webhooks.platform_c_secret', 'platform-d': 'webhooks.platform_d_secret',
};

/**
 * The writes that save the project: each token as a stored secret, then the project block at
 * `projects.<name>` referring to them as `${NAME}` (a setting never holds a secret's value), and
 * — unless polling — a webhook secret where the platform has none yet (Jira: per project).
 */
export function savePlan(form: AddProjectForm, context: SavePlanContext): SavePlan {
  const name = form.name.trim();
  const stem = secretStem(name);
  const taken = new Set(context.takenSecretNames);
  const secrets: SecretWrite[] = [];
  const store = (base: string, value: string, what: string) => {
    const secretName = freeSecretName(base, taken);
    taken.add(secretName);
    secrets.push({ name: secretName, value, what });
    return `\${${secretName}}`;
  };
  const host = codeHostOf(form);
  const tokenRef = store(`${stem}_${host === 'platform-c' ? 'PAT' : 'TOKEN'}`, form.token.trim(), `the ${PLATFORM_LABEL[host]} token`);
  const apiUrl = form.apiUrl.trim();
  const repos = repositoryUrls(form).map((url) => ({
    name: repositoryName(url), platform: host, url, ...(apiUrl ? { api_url: apiUrl } : {}), auth_secret: tokenRef,
  }));

  const trigger: Record<string, unknown> = { trigger_statuses: triggerValues(form), default_pipeline: form.defaultPipeline };
  if (form.tracker === 'platform-c') Object.assign(trigger, { organization_url: form.organizationUrl.trim(), team_project: form.teamProject.trim(), credentials: tokenRef });
  if (form.tracker === 'platform-d') {
    const credentials = store(`${stem}_JIRA_CREDENTIALS`, form.jiraCredentials.trim(), 'the Jira credentials');
    Object.assign(trigger, { site_url: form.siteUrl.trim(), project_key: form.projectKey.trim(), credentials });
  }
  if (form.polling) trigger['polling'] = { enabled: true, interval_seconds: 60 };

  const settings: SettingWrite[] = [];
  let webhook: WebhookAdvice | null = null;
  if (!form.polling) {
    const path = `/webhook/${form.tracker}`;
    if (form.tracker === 'platform-d') {
      // Jira signs per project: the project's own secret, whatever the platform-wide one is.
      const before = secrets.length;
      trigger['secret'] = store(`${stem}_JIRA_WEBHOOK_SECRET`, context.newWebhookSecret, 'the Jira webhook secret');
      webhook = { platform: form.tracker, path, secret: context.newWebhookSecret, secretName: secrets[before]!.name };
    } else if (!context.webhookSecretConfigured) {
      const before = secrets.length;
      const ref = store(`WEBHOOK_SECRET_${form.tracker.toUpperCase().replace('-', '_')}`, context.newWebhookSecret, `the ${PLATFORM_LABEL[form.tracker]} webhook secret`);
      settings.push({ key: WEBHOOK_KEY[form.tracker], value: ref });
      webhook = { platform: form.tracker, path, secret: context.newWebhookSecret, secretName: secrets[before]!.name };
    } else {
      webhook = { platform: form.tracker, path, secret: null, secretName: null };
    }
  }
  settings.unshift({ key: `projects.${name}`, value: { tracker: form.tracker, repos, [TRIGGER_KEY[form.tracker]]: trigger } });
  return { secrets, settings, webhook };
}

const PLATFORM_LABEL: Record<Platform, string> = { 'platform-a': 'GitHub', 'platform-b': 'GitLab', 'platform-c': 'Azure DevOps', 'platform-d': 'Jira' };

/** 32 random bytes as hex: a webhook secret nobody chose. */
export function randomSecret(random: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer> = (b) => crypto.getRandomValues(b)): string {
  return [...random(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('');
}
