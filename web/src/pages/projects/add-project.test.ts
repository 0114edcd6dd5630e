import { describe, expect, it } from 'vitest';
import { type AddProjectForm, candidatesOf, emptyForm, withTracker, freeSecretName, randomSecret, repositoryName, savePlan, secretStem, validateForm } from './add-project';

const CONTEXT = { existingProjects: ['shop'], pipelines: ['code', 'security-scan', 'pr-review', 'lint'] };
const PLAN = { takenSecretNames: [], webhookSecretConfigured: false, newWebhookSecret: 'fresh-hook-secret' };

function github(over: Partial<AddProjectForm> = {}): AddProjectForm {
  return { ...emptyForm(), name: 'web', repositories: 'https://github.com/acme/web\nhttps://github.com/acme/api.git', token: 'ghp_x', trigger: 'agent, Agent', ...over };
}

describe('add project: validation', () => {
  it('accepts a complete GitHub project', () => {
    expect(validateForm(github(), CONTEXT)).toEqual({});
  });

  it('refuses a missing, malformed or taken name (case-insensitively)', () => {
    expect(validateForm(github({ name: '' }), CONTEXT).name).toMatch(/name/);
    expect(validateForm(github({ name: 'my.project' }), CONTEXT).name).toMatch(/letters, digits/);
    expect(validateForm(github({ name: 'Shop' }), CONTEXT).name).toMatch(/exists already/);
  });

  it('needs repository URLs that name a repository, distinct by name', () => {
    expect(validateForm(github({ repositories: ' ' }), CONTEXT).repositories).toMatch(/at least one/);
    expect(validateForm(github({ repositories: 'https://github.com/acme' }), CONTEXT).repositories).toMatch(/Not a repository URL.*acme$/);
    expect(validateForm(github({ repositories: 'ftp://github.com/acme/web' }), CONTEXT).repositories).toMatch(/Not a repository URL/);
    expect(validateForm(github({ repositories: 'https://github.com/a/web\nhttps://github.com/b/web' }), CONTEXT).repositories).toMatch(/both be named web/);
    expect(validateForm(github({ tracker: 'platform-c', organizationUrl: 'https://dev.azure.com/acme', teamProject: 'Shop', repositories: 'https://dev.azure.com/acme/Shop/web' }), CONTEXT).repositories)
      .toMatch(/_git/);
  });

  it('needs the token, a trigger and a known pipeline; an API URL only when given must be a URL', () => {
    const errors = validateForm(github({ token: ' ', trigger: ' , ', defaultPipeline: 'deploy', apiUrl: 'github.internal' }), CONTEXT);
    expect(Object.keys(errors).sort()).toEqual(['apiUrl', 'defaultPipeline', 'token', 'trigger']);
    expect(errors.trigger).toMatch(/label/);
  });

  it('asks Azure DevOps for the organization and team project, Jira for site, key and credentials', () => {
    const ado = validateForm(github({ tracker: 'platform-c', repositories: 'https://dev.azure.com/acme/Shop/_git/web' }), CONTEXT);
    expect(Object.keys(ado).sort()).toEqual(['organizationUrl', 'teamProject']);
    const jira = validateForm(github({ tracker: 'platform-d', projectKey: 'shop' }), CONTEXT);
    expect(Object.keys(jira).sort()).toEqual(['jiraCredentials', 'projectKey', 'siteUrl']);
    expect(validateForm(github({ tracker: 'platform-d', trigger: '' , siteUrl: 'https://acme.atlassian.net', projectKey: 'SHOP', jiraCredentials: 'a:b' }), CONTEXT).trigger).toMatch(/status/);
  });
});

describe('add project: the connections probed before saving', () => {
  it('probes each GitHub repository (the tracker is the first one\'s issues), with the API URL when given', () => {
    const candidates = candidatesOf(github({ apiUrl: 'http://127.0.0.1:9/api' }));
    expect(candidates.map((c) => c.body)).toEqual([
      { kind: 'repository', platform: 'platform-a', url: 'https://github.com/acme/web', api_url: 'http://127.0.0.1:9/api', token: 'ghp_x' },
      { kind: 'repository', platform: 'platform-a', url: 'https://github.com/acme/api.git', api_url: 'http://127.0.0.1:9/api', token: 'ghp_x' },
    ]);
    expect(candidates.map((c) => c.label)).toEqual(['Repository web', 'Repository api']);
  });

  it('probes a Jira tracker with its credentials and the repositories on the chosen code host', () => {
    const form = github({ tracker: 'platform-d', codeHost: 'platform-b', repositories: 'https://gitlab.com/acme/web', siteUrl: 'https://acme.atlassian.net', jiraCredentials: 'bot@acme:tok' });
    expect(candidatesOf(form).map((c) => [c.field, c.body.kind, c.body.platform, c.body.url, c.body.token])).toEqual([
      ['jiraCredentials', 'tracker', 'platform-d', 'https://acme.atlassian.net', 'bot@acme:tok'],
      ['repositories', 'repository', 'platform-b', 'https://gitlab.com/acme/web', 'ghp_x'],
    ]);
  });

  it('probes an Azure DevOps organization with the PAT', () => {
    const form = github({ tracker: 'platform-c', codeHost: 'platform-a', organizationUrl: 'https://dev.azure.com/acme', repositories: 'https://dev.azure.com/acme/Shop/_git/web' });
    expect(candidatesOf(form)[0]!.body).toEqual({ kind: 'tracker', platform: 'platform-c', url: 'https://dev.azure.com/acme', token: 'ghp_x' });
    expect(candidatesOf(form)[1]!.body.platform).toBe('platform-c');
  });
});

describe('add project: what saving writes', () => {
  it('stores the token and a new webhook secret as secrets and refers to them from the settings, never holding a value', () => {
    const plan = savePlan(github(), PLAN);
    expect(plan.secrets).toEqual([
      { name: 'WEB_TOKEN', value: 'ghp_x', what: 'the GitHub token' },
      { name: 'WEBHOOK_SECRET_PLATFORM_A', value: 'fresh-hook-secret', what: 'the GitHub webhook secret' },
    ]);
    expect(plan.settings).toEqual([
      {
        key: 'projects.web',
        value: {
          tracker: 'platform-a',
          repos: [
            { name: 'web', platform: 'platform-a', url: 'https://github.com/acme/web', auth_secret: '${WEB_TOKEN}' },
            { name: 'api', platform: 'platform-a', url: 'https://github.com/acme/api.git', auth_secret: '${WEB_TOKEN}' },
          ],
          platform_a_trigger: { trigger_statuses: ['agent', 'Agent'], default_pipeline: 'code' },
        },
      },
      { key: 'webhooks.platform_a_secret', value: '${WEBHOOK_SECRET_PLATFORM_A}' },
    ]);
    expect(plan.webhook).toEqual({ platform: 'platform-a', path: '/webhook/platform-a', secret: 'fresh-hook-secret', secretName: 'WEBHOOK_SECRET_PLATFORM_A' });
    expect(JSON.stringify(plan.settings)).not.toContain('ghp_x');
    expect(JSON.stringify(plan.settings)).not.toContain('fresh-hook-secret');
  });

  it('keeps a configured platform webhook secret, and never overwrites a stored secret of the same name', () => {
    const plan = savePlan(github({ name: 'shop-web' }), { ...PLAN, webhookSecretConfigured: true, takenSecretNames: ['SHOP_WEB_TOKEN', 'SHOP_WEB_TOKEN_2'] });
    expect(plan.secrets.map((s) => s.name)).toEqual(['SHOP_WEB_TOKEN_3']);
    expect(plan.settings.map((s) => s.key)).toEqual(['projects.shop-web']);
    expect(plan.webhook).toEqual({ platform: 'platform-a', path: '/webhook/platform-a', secret: null, secretName: null });
  });

  it('polls instead: the polling block, and no webhook secret or advice', () => {
    const plan = savePlan(github({ polling: true }), PLAN);
    expect(plan.secrets.map((s) => s.name)).toEqual(['WEB_TOKEN']);
    expect((plan.settings[0]!.value as { platform_a_trigger: unknown }).platform_a_trigger).toEqual({ trigger_statuses: ['agent', 'Agent'], default_pipeline: 'code', polling: { enabled: true, interval_seconds: 60 } });
    expect(plan.webhook).toBeNull();
  });

  it('writes Jira\'s site, key, credentials and its own webhook secret in the trigger, repositories on the code host', () => {
    const form = github({ name: 'billing', tracker: 'platform-d', codeHost: 'platform-b', repositories: 'https://gitlab.com/fin/billing', apiUrl: 'https://gitlab.internal/api/v4',
      siteUrl: 'https://acme.atlassian.net', projectKey: 'BILL', jiraCredentials: 'bot@acme:tok', trigger: 'Ready for Agent' });
    const plan = savePlan(form, { ...PLAN, webhookSecretConfigured: true });
    expect(plan.secrets.map((s) => s.name)).toEqual(['BILLING_TOKEN', 'BILLING_JIRA_CREDENTIALS', 'BILLING_JIRA_WEBHOOK_SECRET']);
    expect(plan.settings).toEqual([{
      key: 'projects.billing',
      value: {
        tracker: 'platform-d',
        repos: [{ name: 'billing', platform: 'platform-b', url: 'https://gitlab.com/fin/billing', api_url: 'https://gitlab.internal/api/v4', auth_secret: '${BILLING_TOKEN}' }],
        platform_d_trigger: {
          trigger_statuses: ['Ready for Agent'], default_pipeline: 'code', site_url: 'https://acme.atlassian.net', project_key: 'BILL',
          credentials: '${BILLING_JIRA_CREDENTIALS}', secret: '${BILLING_JIRA_WEBHOOK_SECRET}',
        },
      },
    }]);
    expect(plan.webhook).toMatchObject({ path: '/webhook/platform-d', secret: 'fresh-hook-secret' });
  });

  it('uses the Azure DevOps PAT for the tracker and the repositories alike', () => {
    const form = github({ name: 'boards', tracker: 'platform-c', repositories: 'https://dev.azure.com/acme/Shop/_git/web', organizationUrl: 'https://dev.azure.com/acme', teamProject: 'Shop', trigger: 'Ready' });
    const plan = savePlan(form, { ...PLAN, webhookSecretConfigured: true });
    expect(plan.secrets.map((s) => s.name)).toEqual(['BOARDS_PAT']);
    const value = plan.settings[0]!.value as { repos: { auth_secret: string }[]; platform_c_trigger: Record<string, unknown> };
    expect(value.repos[0]!.auth_secret).toBe('${BOARDS_PAT}');
    expect(value.platform_c_trigger).toMatchObject({ organization_url: 'https://dev.azure.com/acme', team_project: 'Shop', credentials: '${BOARDS_PAT}' });
  });
});

describe('add project: names', () => {
  it('spells secret names like environment variables and picks a free one', () => {
    expect(secretStem('shop-web')).toBe('SHOP_WEB');
    expect(secretStem('1st')).toBe('P_1ST');
    expect(freeSecretName('A', new Set(['A', 'A_2']))).toBe('A_3');
  });

  it('names a repository after its URL', () => {
    expect(repositoryName('https://github.com/acme/web.git')).toBe('web');
    expect(repositoryName('https://dev.azure.com/acme/Shop/_git/shop-web/')).toBe('shop-web');
  });

  it('makes a 64-hex-digit webhook secret', () => {
    expect(randomSecret()).toMatch(/^[0-9a-f]{64}$/);
    expect(randomSecret((b) => b.fill(1))).toBe('01'.repeat(32));
  });
});

describe('add project: choosing another tracker', () => {
  it('swaps the default trigger between a label and a status, keeps one typed, and drops the Jira credentials away from Jira', () => {
    const jira = withTracker(github({ trigger: 'agent', jiraCredentials: '' }), 'platform-d');
    expect(jira.trigger).toBe('Ready for Agent');
    expect(withTracker({ ...jira, jiraCredentials: 'bot:tok' }, 'platform-c')).toMatchObject({ trigger: 'Ready for Agent', jiraCredentials: '' });
    expect(withTracker({ ...jira, jiraCredentials: 'bot:tok' }, 'platform-b')).toMatchObject({ trigger: 'agent', jiraCredentials: '' });
    expect(withTracker(github({ trigger: 'robot' }), 'platform-d').trigger).toBe('robot');
  });
});
