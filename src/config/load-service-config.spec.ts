import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { tempConfig } from '../../test/support/temp-config.js';
import type { Finding } from '../findings/finding.js';
import { readEnvironment } from './environment.js';
import { buildConfig, loadServiceConfig } from './load-service-config.js';
import { DEFAULT_QUEUE, DEFAULT_SANDBOX, type ServiceConfig, criteriaEnforced, defaultServiceConfig } from './service-config.js';

type Vars = Record<string, string | undefined>;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parsed YAML + environment variables → the configuration and its findings. */
function build(raw: unknown, vars: Vars = {}): { config: ServiceConfig; findings: Finding[] } {
  const findings: Finding[] = [];
  // Agent pipelines on the in-process backend are opted in here; the refusal has its own test.
  const withOptIn = isPlainObject(raw) && raw.sandbox === undefined && raw.projects !== undefined ? { ...raw, sandbox: { allow_agents_in_process: true } } : raw;
  const config = buildConfig(withOptIn, readEnvironment(vars), findings);
  return { config, findings };
}

function at(findings: Finding[], field: string): Finding[] {
  return findings.filter((f) => f.field === field);
}

function only(findings: Finding[], field: string): Finding {
  const matching = at(findings, field);
  expect(matching, `findings at ${field}: ${JSON.stringify(findings, null, 2)}`).toHaveLength(1);
  return matching[0] as Finding;
}

/** An agent with everything a project that starts agent pipelines needs (no readiness findings). */
const GOOD_AGENT = { provider: 'openai', model: 'gpt-test', api_key: 'sk-test', prices: { input_per_mtok: 1, output_per_mtok: 2 } };
const GOOD_REPO = { name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', auth_secret: 'ghp_repo_token' };

describe('defaults', () => {
  it('an empty file gives the built-in defaults and no findings', () => {
    const { config, findings } = build({});
    expect(findings).toEqual([]);
    expect(config).toEqual(defaultServiceConfig());
    expect(config.auth).toBeNull();
    expect(config.capacity).toBeNull();
    expect(config.queue).toEqual(DEFAULT_QUEUE);
    expect(config.queue.redis_retry_interval_seconds).toBe(30);
    expect(config.queue.key_prefix).toBe('svc:');
    expect(config.sandbox).toEqual(DEFAULT_SANDBOX);
    expect(config.sandbox.backend).toBe('in-process');
    expect(config.observation_retention_days).toBe(90);
    expect(config.projects).toEqual({});
    expect(config.pipelines).toEqual({});
  });

  it('a null document (an empty YAML file) is the same as an empty mapping', () => {
    const { config, findings } = build(null);
    expect(findings).toEqual([]);
    expect(config).toEqual(defaultServiceConfig());
  });

  it('file values replace defaults and the rest stay', () => {
    const { config, findings } = build({
      queue: { redis_retry_interval_seconds: 2, key_prefix: 'mine:' },
      sandbox: { backend: 'container-engine', cpu: '500m', memory: '512Mi', agent_version: '1.2.3' },
      observation_retention_days: 30,
    });
    expect(findings).toEqual([]);
    expect(config.queue).toEqual({ ...DEFAULT_QUEUE, redis_retry_interval_seconds: 2, key_prefix: 'mine:' });
    expect(config.sandbox).toEqual({ ...DEFAULT_SANDBOX, backend: 'container-engine', cpu: 0.5, memory: 512 * 1024 ** 2, agent_version: '1.2.3' });
    expect(config.observation_retention_days).toBe(30);
  });
});

describe('${NAME} references', () => {
  it('resolve against secrets: first, then the environment', () => {
    const { config, findings } = build(
      {
        secrets: { SHOP_TOKEN: 'from-secrets' },
        projects: {
          shop: {
            tracker: 'platform-a',
            repos: [
              { ...GOOD_REPO, auth_secret: '${SHOP_TOKEN}' },
              { name: 'other', platform: 'platform-a', url: 'https://github.com/acme/other', auth_secret: '${OTHER_TOKEN}' },
            ],
          },
        },
      },
      { SHOP_TOKEN: 'from-env', OTHER_TOKEN: 'other-from-env' },
    );
    expect(findings).toEqual([]);
    expect(config.projects.shop?.repos.map((r) => r.auth_secret)).toEqual(['from-secrets', 'other-from-env']);
  });

  it('secrets: values themselves resolve against the environment', () => {
    const { config, findings } = build(
      { secrets: { JIRA_BASIC: '${JIRA_USER}:${JIRA_TOKEN}' }, webhooks: { platform_a_secret: '${JIRA_BASIC}' } },
      { JIRA_USER: 'bot', JIRA_TOKEN: 't0k' },
    );
    expect(findings).toEqual([]);
    expect(config.secrets).toEqual({ JIRA_BASIC: 'bot:t0k' });
    expect(config.webhooks.platform_a_secret).toBe('bot:t0k');
  });

  it('a reference that resolves to nothing (unset or empty) counts as unconfigured', () => {
    const { config, findings } = build(
      { webhooks: { platform_a_secret: '${NOT_SET}', platform_c_secret: '${EMPTY}' } },
      { EMPTY: '' },
    );
    expect(config.webhooks.platform_a_secret).toBeNull();
    expect(config.webhooks.platform_c_secret).toBeNull();
    const a = only(findings, 'webhooks.platform_a_secret');
    expect(a).toMatchObject({ subsystem: 'configuration', severity: 'blocking', project: null, trigger: null });
    expect(a.reason).toContain('NOT_SET');
    expect(only(findings, 'webhooks.platform_c_secret').reason).toContain('EMPTY');
  });

  it('unresolved references in secret-bearing fields block; elsewhere they are advisory', () => {
    const { config, findings } = build({
      auth: { authority: '${IDP_URL}' },
      projects: {
        shop: {
          tracker: 'platform-a',
          repos: [{ ...GOOD_REPO, auth_secret: '${SHOP_TOKEN}', api_url: '${SHOP_API}' }],
          platform_a_trigger: { done_status: '${DONE}' },
        },
        billing: {
          tracker: 'platform-d',
          platform_d_trigger: { site_url: 'https://acme.atlassian.net', credentials: '${JIRA_BASIC}', secret: '${JIRA_HMAC}' },
        },
        boards: {
          tracker: 'platform-c',
          platform_c_trigger: { organization_url: 'https://dev.azure.com/acme', team_project: 'Boards', credentials: '${ADO_PAT}' },
        },
      },
    });
    expect(only(findings, 'projects.shop.repos[0].auth_secret')).toMatchObject({ severity: 'blocking', project: 'shop', trigger: null });
    expect(only(findings, 'projects.billing.platform_d_trigger.credentials'))
      .toMatchObject({ severity: 'blocking', project: 'billing', trigger: 'platform_d_trigger' });
    expect(only(findings, 'projects.billing.platform_d_trigger.secret'))
      .toMatchObject({ severity: 'blocking', project: 'billing', trigger: 'platform_d_trigger' });
    expect(only(findings, 'projects.boards.platform_c_trigger.credentials'))
      .toMatchObject({ severity: 'blocking', project: 'boards', trigger: 'platform_c_trigger' });
    // Not secret-bearing: advisory, the value is simply unset.
    expect(only(findings, 'auth.authority').severity).toBe('advisory');
    expect(only(findings, 'projects.shop.repos[0].api_url').severity).toBe('advisory');
    expect(only(findings, 'projects.shop.platform_a_trigger.done_status'))
      .toMatchObject({ severity: 'advisory', project: 'shop', trigger: 'platform_a_trigger' });

    const shop = config.projects.shop;
    expect(shop?.repos[0]).toMatchObject({ auth_secret: null, api_url: null });
    expect(config.projects.billing?.triggers['platform-d']).toMatchObject({ credentials: null, secret: null, site_url: 'https://acme.atlassian.net' });
    expect(config.auth?.authority).toBeNull();
  });

  it('a reference inside a longer string resolves in place', () => {
    const { config } = build({ sandbox: { image: '${REGISTRY}/node:24' } }, { REGISTRY: 'registry.example' });
    expect(config.sandbox.image).toBe('registry.example/node:24');
  });
});

describe('webhook secrets', () => {
  it('come from the environment when the file has no webhooks: block', () => {
    const { config, findings } = build({}, {
      PLATFORM_A_WEBHOOK_SECRET: 'a', PLATFORM_B_WEBHOOK_TOKEN: 'b', PLATFORM_C_WEBHOOK_SECRET: 'c', PLATFORM_D_WEBHOOK_SECRET: 'd',
    });
    expect(findings).toEqual([]);
    expect(config.webhooks).toEqual({ platform_a_secret: 'a', platform_b_secret: 'b', platform_c_secret: 'c', platform_d_secret: 'd' });
  });

  it('PLATFORM_B_WEBHOOK_SECRET is read when PLATFORM_B_WEBHOOK_TOKEN is not set', () => {
    expect(build({}, { PLATFORM_B_WEBHOOK_SECRET: 'b-secret' }).config.webhooks.platform_b_secret).toBe('b-secret');
    expect(build({}, { PLATFORM_B_WEBHOOK_TOKEN: 'b-token', PLATFORM_B_WEBHOOK_SECRET: 'b-secret' }).config.webhooks.platform_b_secret).toBe('b-token');
  });

  it('the contract example `platform_b_secret: ${PLATFORM_B_WEBHOOK_TOKEN}` resolves from PLATFORM_B_WEBHOOK_SECRET too', () => {
    const { config, findings } = build({ webhooks: { platform_b_secret: '${PLATFORM_B_WEBHOOK_TOKEN}' } }, { PLATFORM_B_WEBHOOK_SECRET: 'b-secret' });
    expect(findings).toEqual([]);
    expect(config.webhooks.platform_b_secret).toBe('b-secret');
  });
});

describe('auth block', () => {
  const FILE_AUTH = {
    authority: 'https://idp.example/realms/acme',
    audience: 'pipeline-service',
    enforce: true,
    role_claim: 'file-roles',
    group_claim: 'file-groups',
    name_claim: 'email',
    group_roles: { '/platform-admins': ['admin'], ops: ['operator'] },
    roles: { auditor: ['runs.read', 'diagnostics.read'] },
  };

  it('no block and no SERVICE_AUTH_* variable → null (nothing authenticates)', () => {
    const { config, findings } = build({});
    expect(config.auth).toBeNull();
    expect(findings).toEqual([]);
  });

  it('the dashboard-only variables alone do not create the block', () => {
    expect(build({}, { SERVICE_AUTH_CLIENT_ID: 'dash' }).config.auth).toBeNull();
  });

  it('the file block is read whole, with claim defaults where fields are missing', () => {
    expect(build({ auth: FILE_AUTH }).config.auth).toEqual({
      ...FILE_AUTH, client_id: null, scopes: null, redirect_path: null,
    });
    expect(build({ auth: { authority: 'https://idp.example' } }).config.auth).toMatchObject({
      authority: 'https://idp.example', audience: null, enforce: false, role_claim: 'roles', group_claim: 'groups', name_claim: 'sub',
      group_roles: {}, roles: {},
    });
  });

  it('the environment wins over the file field by field', () => {
    const { config, findings } = build({ auth: FILE_AUTH }, {
      SERVICE_AUTH_AUDIENCE: 'env-audience',
      SERVICE_AUTH_ENFORCE: 'false',
      SERVICE_AUTH_NAME_CLAIM: 'preferred_username',
      SERVICE_AUTH_CLIENT_ID: 'dashboard',
      SERVICE_AUTH_SCOPES: 'openid profile',
      SERVICE_AUTH_REDIRECT_PATH: '/signed-in',
    });
    expect(findings).toEqual([]);
    expect(config.auth).toEqual({
      authority: FILE_AUTH.authority,
      audience: 'env-audience',
      enforce: false,
      role_claim: 'file-roles',
      group_claim: 'file-groups',
      name_claim: 'preferred_username',
      group_roles: FILE_AUTH.group_roles,
      roles: FILE_AUTH.roles,
      client_id: 'dashboard',
      scopes: 'openid profile',
      redirect_path: '/signed-in',
    });
  });

  it('one environment variable alone creates the block', () => {
    const { config, findings } = build({}, { SERVICE_AUTH_AUTHORITY: 'https://idp.example/realms/env' });
    expect(findings).toEqual([]);
    expect(config.auth).toEqual({
      authority: 'https://idp.example/realms/env', audience: null, enforce: false,
      role_claim: 'roles', group_claim: 'groups', name_claim: 'sub', group_roles: {}, roles: {},
      client_id: null, scopes: null, redirect_path: null,
    });
    expect(build({}, { SERVICE_AUTH_ENFORCE: 'true' }).config.auth?.enforce).toBe(true);
  });

  it('a bad SERVICE_AUTH_ENFORCE is a finding naming the variable; the default stands', () => {
    const { config, findings } = build({ auth: { enforce: true } }, { SERVICE_AUTH_ENFORCE: 'sometimes' });
    expect(config.auth?.enforce).toBe(false);
    expect(only(findings, 'SERVICE_AUTH_ENFORCE')).toMatchObject({ subsystem: 'configuration', severity: 'blocking' });
  });

  it('a bad enforce in the file names auth.enforce', () => {
    const { config, findings } = build({ auth: { enforce: 'maybe' } });
    expect(config.auth?.enforce).toBe(false);
    expect(only(findings, 'auth.enforce').severity).toBe('blocking');
  });
});

describe('unknown keys', () => {
  it('are advisory findings at their exact location, and ignored', () => {
    const { config, findings } = build({
      colour: 'blue',
      queue: { redis_retry_interval_seconds: 5, turbo: true },
      projects: { shop: { tracker: 'platform-a', repos: [{ ...GOOD_REPO, colour: 'red' }], platform_a_trigger: { speed: 3 } } },
    });
    expect(findings.every((f) => f.severity === 'advisory' && f.subsystem === 'configuration')).toBe(true);
    expect(findings.map((f) => f.field).sort()).toEqual([
      'colour', 'projects.shop.platform_a_trigger.speed', 'projects.shop.repos[0].colour', 'queue.turbo',
    ]);
    expect(only(findings, 'projects.shop.platform_a_trigger.speed')).toMatchObject({ project: 'shop', trigger: 'platform_a_trigger' });
    expect(only(findings, 'projects.shop.repos[0].colour')).toMatchObject({ project: 'shop', trigger: null });
    expect(config.queue.redis_retry_interval_seconds).toBe(5);
    expect(config.projects.shop?.repos).toHaveLength(1);
  });
});

describe('bad types', () => {
  it('fall back to the default with a blocking finding naming project, trigger and field', () => {
    const { config, findings } = build({
      queue: { max_parallel_runs: 'lots', heartbeat_interval_seconds: 0, lease_ttl_seconds: 2.5 },
      observation_retention_days: 'forever',
      sandbox: { backend: 'mainframe', cpu: 'fast', memory: 'big' },
      projects: {
        shop: {
          tracker: 'platform-a',
          repos: [GOOD_REPO],
          platform_a_trigger: { trigger_statuses: { ready: true }, pipeline_from_label: ['security'], default_pipeline: { name: 'code' } },
          pr_commands: { enabled: 'maybe', allowed_pipelines: 7 },
        },
      },
    });
    for (const f of findings) expect(f).toMatchObject({ subsystem: 'configuration', severity: 'blocking' });
    expect(config.queue.max_parallel_runs).toBe(DEFAULT_QUEUE.max_parallel_runs);
    expect(config.queue.heartbeat_interval_seconds).toBe(DEFAULT_QUEUE.heartbeat_interval_seconds);
    expect(config.queue.lease_ttl_seconds).toBe(DEFAULT_QUEUE.lease_ttl_seconds);
    expect(config.observation_retention_days).toBe(90);
    expect(config.sandbox).toEqual(DEFAULT_SANDBOX);
    for (const field of [
      'queue.max_parallel_runs', 'queue.heartbeat_interval_seconds', 'queue.lease_ttl_seconds', 'observation_retention_days',
      'sandbox.backend', 'sandbox.cpu', 'sandbox.memory',
    ]) {
      expect(only(findings, field)).toMatchObject({ project: null, trigger: null });
    }
    for (const field of ['trigger_statuses', 'pipeline_from_label', 'default_pipeline']) {
      expect(only(findings, `projects.shop.platform_a_trigger.${field}`)).toMatchObject({ project: 'shop', trigger: 'platform_a_trigger' });
    }
    expect(only(findings, 'projects.shop.pr_commands.enabled')).toMatchObject({ project: 'shop', trigger: null });
    expect(only(findings, 'projects.shop.pr_commands.allowed_pipelines')).toMatchObject({ project: 'shop', trigger: null });
    const shop = config.projects.shop;
    expect(shop?.triggers['platform-a']).toMatchObject({ trigger_statuses: [], pipeline_from_label: {}, default_pipeline: null });
    expect(shop?.pr_commands).toEqual({ enabled: false, require_member: true, allowed_pipelines: [] });
  });

  it('criteria.enforce: true by default, false when said, a finding and the default for anything else', () => {
    const { config, findings } = build({
      projects: {
        strict: { tracker: 'platform-a' },
        relaxed: { tracker: 'platform-a', criteria: { enforce: false } },
        odd: { tracker: 'platform-a', criteria: { enforce: 'sometimes' } },
      },
    });
    expect(criteriaEnforced(config.projects.strict)).toBe(true);
    expect(criteriaEnforced(config.projects.relaxed)).toBe(false);
    expect(criteriaEnforced(config.projects.odd)).toBe(true);
    expect(criteriaEnforced(undefined)).toBe(true);
    expect(only(findings, 'projects.odd.criteria.enforce')).toMatchObject({ project: 'odd', severity: 'blocking' });
  });

  it('a block that is not a mapping is ignored with a finding', () => {
    const { config, findings } = build({ queue: 'fast', sandbox: ['in-process'] });
    expect(config.queue).toEqual(DEFAULT_QUEUE);
    expect(config.sandbox).toEqual(DEFAULT_SANDBOX);
    expect(only(findings, 'queue').severity).toBe('blocking');
    expect(only(findings, 'sandbox').severity).toBe('blocking');
  });

  it('strings that spell numbers and booleans are accepted', () => {
    const { config, findings } = build({
      queue: { max_parallel_runs: '8' },
      agent: GOOD_AGENT,
      projects: { shop: { tracker: 'platform-a', pr_commands: { enabled: 'TRUE', require_member: 'false' }, platform_a_trigger: { needs_clarification_status: 'needs-info' } } },
    });
    expect(findings).toEqual([]);
    expect(config.queue.max_parallel_runs).toBe(8);
    expect(config.projects.shop?.pr_commands).toEqual({ enabled: true, require_member: false, allowed_pipelines: null });
  });
});

describe('integers', () => {
  it.each(['0x10', '1e2', '', '  ', '3.0.1', '-4'])('the string %j is not an integer: finding, default stands', (text) => {
    const { config, findings } = build({ queue: { redis_retry_interval_seconds: text } });
    expect(config.queue.redis_retry_interval_seconds).toBe(DEFAULT_QUEUE.redis_retry_interval_seconds);
    expect(only(findings, 'queue.redis_retry_interval_seconds')).toMatchObject({ severity: 'blocking', project: null, trigger: null });
  });

  it('a decimal string with spaces around it is read', () => {
    const { config, findings } = build({ queue: { redis_retry_interval_seconds: ' 45 ' } });
    expect(findings).toEqual([]);
    expect(config.queue.redis_retry_interval_seconds).toBe(45);
  });
});

describe('names that collide with JavaScript object members', () => {
  it('a project, pipeline, secret or label named __proto__ or constructor is kept like any other', () => {
    // Parsed from YAML, as a real file is: a JavaScript literal `{ __proto__: … }` would set a prototype instead.
    const { config, findings } = build(parseYaml(`
secrets: { __proto__: p-secret, constructor: c-secret }
pipelines: { __proto__: { commands: ["true"] } }
projects:
  __proto__:
    tracker: platform-a
    repos: [{ name: shop-web, platform: platform-a, url: "https://github.com/acme/shop-web", auth_secret: "\${__proto__}" }]
  constructor:
    tracker: platform-b
    platform_b_trigger: { pipeline_from_label: { __proto__: __proto__ } }
`));
    expect(findings).toEqual([]);
    expect(Object.keys(config.projects).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.keys(config.pipelines)).toEqual(['__proto__']);
    expect(Object.keys(config.secrets).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.values(config.projects).map((p) => p.tracker).sort()).toEqual(['platform-a', 'platform-b']);
    expect(Object.values(config.projects).find((p) => p.name === '__proto__')?.repos[0]?.auth_secret).toBe('p-secret');
    const constructorProject = Object.values(config.projects).find((p) => p.name === 'constructor');
    expect(Object.entries(constructorProject?.triggers['platform-b']?.pipeline_from_label ?? {})).toEqual([['__proto__', '__proto__']]);
  });

  it('looking up an unconfigured name such as toString finds nothing', () => {
    const { config } = build({ projects: { shop: { tracker: 'platform-a' } } });
    // As a webhook or the CLI would look one up: by a name that came from outside.
    const lookup = (map: Record<string, unknown>, name: string): unknown => map[name];
    expect(lookup(config.projects, 'toString')).toBeUndefined();
    expect(lookup(config.projects, 'constructor')).toBeUndefined();
    expect(lookup(config.pipelines, 'hasOwnProperty')).toBeUndefined();
    expect(lookup(config.projects, 'shop')).toBeDefined();
  });

  it('a ${toString} reference is unresolved, not Object.prototype.toString', () => {
    const { config, findings } = build({ projects: { shop: { tracker: 'platform-a', repos: [{ ...GOOD_REPO, auth_secret: '${toString}' }] } } });
    expect(config.projects.shop?.repos[0]?.auth_secret).toBeNull();
    expect(only(findings, 'projects.shop.repos[0].auth_secret')).toMatchObject({ severity: 'blocking', project: 'shop' });
  });
});

describe('the bootstrap file', () => {
  it('absent → built-in defaults and one advisory config-file finding naming SERVICE_CONFIG', () => {
    const dir = tempConfig('config-absent', {});
    try {
      const path = `${dir.dir}/nowhere.yml`;
      const loaded = loadServiceConfig(readEnvironment({ SERVICE_CONFIG: path }));
      expect(loaded.file).toEqual({ path, present: false });
      expect(loaded.config).toEqual(defaultServiceConfig());
      expect(loaded.findings).toEqual([{
        subsystem: 'config-file', severity: 'advisory', reason: expect.stringContaining(path), project: null, trigger: null, field: 'SERVICE_CONFIG',
      }]);
    } finally {
      dir.remove();
    }
  });

  it('present and valid → read, no findings', () => {
    const file = tempConfig('config-valid', { queue: { key_prefix: 'valid:' }, projects: { shop: { tracker: 'platform-a', repos: [GOOD_REPO] } } });
    try {
      const loaded = loadServiceConfig(readEnvironment({ SERVICE_CONFIG: file.path }));
      expect(loaded.findings).toEqual([]);
      expect(loaded.file).toEqual({ path: file.path, present: true });
      expect(loaded.config.queue.key_prefix).toBe('valid:');
      expect(Object.keys(loaded.config.projects)).toEqual(['shop']);
    } finally {
      file.remove();
    }
  });

  it('an explicit path argument wins over SERVICE_CONFIG (doctor --config)', () => {
    const file = tempConfig('config-explicit', { queue: { key_prefix: 'explicit:' } });
    try {
      const loaded = loadServiceConfig(readEnvironment({ SERVICE_CONFIG: '/nonexistent/service.yml' }), file.path);
      expect(loaded.file.present).toBe(true);
      expect(loaded.config.queue.key_prefix).toBe('explicit:');
    } finally {
      file.remove();
    }
  });

  it('broken YAML → one blocking configuration finding and built-in defaults', () => {
    const file = tempConfig('config-broken', {});
    try {
      writeFileSync(file.path, 'queue:\n  key_prefix: "unterminated\n  projects: [\n');
      const loaded = loadServiceConfig(readEnvironment({ SERVICE_CONFIG: file.path }));
      expect(loaded.file.present).toBe(true);
      expect(loaded.config).toEqual(defaultServiceConfig());
      expect(loaded.findings).toHaveLength(1);
      expect(loaded.findings[0]).toMatchObject({ subsystem: 'configuration', severity: 'blocking', field: 'SERVICE_CONFIG', project: null, trigger: null });
      expect(loaded.findings[0]?.reason).toContain('could not be read as YAML');
    } finally {
      file.remove();
    }
  });

  it('an empty file is valid and gives the defaults', () => {
    const file = tempConfig('config-empty', {});
    try {
      writeFileSync(file.path, '# nothing configured yet\n');
      const loaded = loadServiceConfig(readEnvironment({ SERVICE_CONFIG: file.path }));
      expect(loaded.findings).toEqual([]);
      expect(loaded.config).toEqual(defaultServiceConfig());
    } finally {
      file.remove();
    }
  });

  it.each([
    ['a scalar', 'just a string\n'],
    ['a list', '- queue\n- projects\n'],
  ])('a root that is %s → exactly one blocking finding, defaults', (_what, text) => {
    const file = tempConfig('config-root', {});
    try {
      writeFileSync(file.path, text);
      const loaded = loadServiceConfig(readEnvironment({ SERVICE_CONFIG: file.path }));
      expect(loaded.config).toEqual(defaultServiceConfig());
      expect(loaded.findings).toHaveLength(1);
      expect(loaded.findings[0]).toMatchObject({ subsystem: 'configuration', severity: 'blocking', project: null, trigger: null });
      expect(loaded.findings[0]?.reason).toContain('mapping at its top level');
    } finally {
      file.remove();
    }
  });
});

describe('reloading a file that became unreadable', () => {
  it('keeps the last readable version in force, with a finding, until the file is readable again', () => {
    const file = tempConfig('config-kept', { queue: { key_prefix: 'kept:' } });
    try {
      const env = readEnvironment({ SERVICE_CONFIG: file.path });
      const first = loadServiceConfig(env);
      expect(first.lastReadable?.document).toEqual({ queue: { key_prefix: 'kept:' } });
      writeFileSync(file.path, 'queue:\n  key_prefix: "unterminated\n');
      const broken = loadServiceConfig(env, file.path, {}, {}, first.lastReadable);
      expect(broken.config.queue.key_prefix).toBe('kept:');
      expect(broken.findings).toEqual([expect.objectContaining({ subsystem: 'configuration', severity: 'blocking', field: 'SERVICE_CONFIG', reason: expect.stringContaining('stays in force') })]);
      expect(broken.fileHash).not.toBe(first.fileHash);
      writeFileSync(file.path, '- a list\n');
      expect(loadServiceConfig(env, file.path, {}, {}, broken.lastReadable).config.queue.key_prefix).toBe('kept:');
      file.remove();
      const gone = loadServiceConfig(env, file.path, {}, {}, broken.lastReadable);
      expect(gone.config.queue.key_prefix).toBe('kept:');
      expect(gone.file.present).toBe(false);
      expect(gone.findings).toEqual([expect.objectContaining({ subsystem: 'config-file', severity: 'advisory', reason: expect.stringContaining('is gone') })]);
    } finally {
      file.remove();
    }
  });
});

describe('capacity', () => {
  it('absent → null (unbounded)', () => {
    expect(build({}).config.capacity).toBeNull();
  });

  it('reads Kubernetes quantities', () => {
    const { config, findings } = build({ capacity: { cpu: 8, memory: '16Gi' } });
    expect(findings).toEqual([]);
    expect(config.capacity).toEqual({ cpu: 8, memory: 16 * 1024 ** 3 });
    expect(build({ capacity: { cpu: '1500m', memory: '512Mi' } }).config.capacity).toEqual({ cpu: 1.5, memory: 512 * 1024 ** 2 });
  });

  it('one dimension given → the other is unbounded', () => {
    expect(build({ capacity: { cpu: 4 } }).config.capacity).toEqual({ cpu: 4, memory: Number.POSITIVE_INFINITY });
    expect(build({ capacity: { memory: '8Gi' } }).config.capacity).toEqual({ cpu: Number.POSITIVE_INFINITY, memory: 8 * 1024 ** 3 });
  });

  it('a bad quantity → unbounded with a finding at the field', () => {
    const { config, findings } = build({ capacity: { cpu: 'eight', memory: '16GB' } });
    expect(config.capacity).toBeNull();
    expect(only(findings, 'capacity.cpu').severity).toBe('blocking');
    expect(only(findings, 'capacity.memory').severity).toBe('blocking');
  });

  it('zero capacity is refused (nothing would ever fit)', () => {
    const { config, findings } = build({ capacity: { cpu: 0, memory: '0' } });
    expect(config.capacity).toBeNull();
    expect(at(findings, 'capacity.cpu')).toHaveLength(1);
    expect(at(findings, 'capacity.memory')).toHaveLength(1);
  });
});

describe('pipelines', () => {
  it('command pipelines load with their commands and timeout (default 900 s)', () => {
    const { config, findings } = build({ pipelines: { lint: { commands: ['npm ci', 'npm run lint'], timeout_seconds: 300 }, one: { commands: 'make', publish: 'pull-request' } } });
    expect(findings).toEqual([]);
    expect(config.pipelines).toEqual({
      lint: { commands: ['npm ci', 'npm run lint'], timeout_seconds: 300, publish: 'none' },
      one: { commands: ['make'], timeout_seconds: 900, publish: 'pull-request' },
    });
  });

  it('an unknown publish mode is a finding and publishes nothing', () => {
    const { config, findings } = build({ pipelines: { fmt: { commands: ['fmt'], publish: 'push' } } });
    expect(config.pipelines.fmt?.publish).toBe('none');
    expect(only(findings, 'pipelines.fmt.publish').reason).toContain('pull-request or none');
  });
});

describe('git', () => {
  it('commit identity defaults, and a value git would refuse keeps the default', () => {
    expect(build({}).config.git).toEqual({ author_name: 'pipeline-service', author_email: 'pipeline-service@users.noreply.localhost' });
    const { config, findings } = build({ git: { author_name: 'Bot <x>', author_email: 'bot@acme.test' } });
    expect(config.git).toEqual({ author_name: 'pipeline-service', author_email: 'bot@acme.test' });
    expect(only(findings, 'git.author_name').reason).toContain('must not contain');
  });

  it.each(['code', 'security-scan', 'pr-review'])('a pipeline named after the built-in %s is refused', (name) => {
    const { config, findings } = build({ pipelines: { [name]: { commands: ['echo hijack'] }, lint: { commands: ['lint'] } } });
    expect(Object.keys(config.pipelines)).toEqual(['lint']);
    const f = only(findings, `pipelines.${name}`);
    expect(f).toMatchObject({ subsystem: 'configuration', severity: 'blocking' });
    expect(f.reason).toContain('built in');
  });

  it('a pipeline without commands is not loaded', () => {
    const { config, findings } = build({ pipelines: { empty: { commands: [] }, none: { timeout_seconds: 10 }, nothing: null } });
    expect(config.pipelines).toEqual({});
    for (const name of ['empty', 'none', 'nothing']) {
      expect(only(findings, `pipelines.${name}`).reason).toContain('at least one command');
    }
  });
});

describe('projects', () => {
  it('reads a full project as the contract example writes it', () => {
    const { config, findings } = build(
      {
        secrets: { SHOP_TOKEN: 'ghp_example' },
        agent: GOOD_AGENT,
        pipelines: { lint: { commands: ['npm run lint'] } },
        projects: {
          shop: {
            tracker: 'platform-a',
            repos: [{ ...GOOD_REPO, api_url: 'https://api.github.com', path_prefix: 'web/', auth_secret: '${SHOP_TOKEN}' }],
            platform_a_trigger: {
              trigger_statuses: ['ready-for-agent'],
              pipeline_from_label: { security: 'security-scan', linting: 'lint' },
              default_pipeline: 'code',
              done_status: 'done',
              comment_keyword: '@pipeline-service',
              pr_trigger_label: 'sec-check',
              needs_clarification_status: 'needs-info',
            },
            pr_commands: { enabled: true, require_member: true, allowed_pipelines: ['code', 'pr-review'] },
          },
        },
      },
      { GL_TOKEN: 'x' },
    );
    expect(findings).toEqual([]);
    const shop = config.projects.shop;
    expect(shop).toMatchObject({
      name: 'shop',
      tracker: 'platform-a',
      repos: [{ name: 'shop-web', platform: 'platform-a', url: GOOD_REPO.url, api_url: 'https://api.github.com', path_prefix: 'web/', auth_secret: 'ghp_example' }],
      pr_commands: { enabled: true, require_member: true, allowed_pipelines: ['code', 'pr-review'] },
    });
    expect(Object.keys(shop?.triggers ?? {})).toEqual(['platform-a']);
    expect(shop?.triggers['platform-a']).toMatchObject({
      trigger_statuses: ['ready-for-agent'], pipeline_from_label: { security: 'security-scan', linting: 'lint' }, default_pipeline: 'code',
      done_status: 'done', credentials: null, secret: null,
    });
  });

  it.each([
    ['missing', { repos: [GOOD_REPO] }],
    ['not a platform', { tracker: 'platform-z', repos: [GOOD_REPO] }],
    ['not a string', { tracker: ['platform-a'] }],
  ])('a project whose tracker is %s is dropped with a finding naming it', (_what, block) => {
    const { config, findings } = build({ projects: { shop: block, ok: { tracker: 'platform-b' } } });
    expect(Object.keys(config.projects)).toEqual(['ok']);
    const dropped = findings.filter((f) => f.field === 'projects.shop.tracker' && f.reason.includes('not loaded'));
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ subsystem: 'configuration', severity: 'blocking', project: 'shop', trigger: null });
  });

  it('a project that is not a mapping is dropped', () => {
    const { config, findings } = build({ projects: { shop: 'platform-a' } });
    expect(config.projects).toEqual({});
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.every((f) => f.project === 'shop' && f.severity === 'blocking')).toBe(true);
  });

  it('projects: that is not a mapping is one finding', () => {
    const { config, findings } = build({ projects: ['shop'] });
    expect(config.projects).toEqual({});
    expect(only(findings, 'projects').severity).toBe('blocking');
  });

  it.each([
    ['name', { platform: 'platform-a', url: 'https://github.com/acme/x' }],
    ['url', { name: 'x', platform: 'platform-a' }],
    ['platform', { name: 'x', url: 'https://github.com/acme/x' }],
    ['a valid platform', { name: 'x', platform: 'svn', url: 'https://github.com/acme/x' }],
  ])('a repository without %s is not loaded; the rest of the project is', (_what, repo) => {
    const { config, findings } = build({ projects: { shop: { tracker: 'platform-a', repos: [repo, GOOD_REPO] } } });
    expect(config.projects.shop?.repos.map((r) => r.name)).toEqual(['shop-web']);
    const f = only(findings, 'projects.shop.repos[0]');
    expect(f).toMatchObject({ subsystem: 'configuration', severity: 'blocking', project: 'shop', trigger: null });
    expect(f.reason).toContain('needs name, url and platform');
  });

  it('repos: that is not a list is a finding; the project stays with no repositories', () => {
    const { config, findings } = build({ projects: { shop: { tracker: 'platform-a', repos: GOOD_REPO } } });
    expect(config.projects.shop?.repos).toEqual([]);
    expect(only(findings, 'projects.shop.repos')).toMatchObject({ severity: 'blocking', project: 'shop' });
  });

  it('a trigger naming an unknown pipeline is a finding with project, trigger and field', () => {
    const { config, findings } = build({
      pipelines: { lint: { commands: ['lint'] } },
      agent: GOOD_AGENT,
      projects: {
        shop: {
          tracker: 'platform-a',
          platform_a_trigger: { default_pipeline: 'deploy', pipeline_from_label: { ok: 'lint', builtin: 'pr-review', bad: 'nope' } },
        },
        billing: { tracker: 'platform-d', platform_d_trigger: { default_pipeline: 'code', needs_clarification_status: 'Needs Info' } },
      },
    });
    expect(findings).toHaveLength(2);
    const d = only(findings, 'projects.shop.platform_a_trigger.default_pipeline');
    expect(d).toMatchObject({ subsystem: 'configuration', severity: 'blocking', project: 'shop', trigger: 'platform_a_trigger' });
    expect(d.reason).toContain('deploy');
    const l = only(findings, 'projects.shop.platform_a_trigger.pipeline_from_label.bad');
    expect(l).toMatchObject({ project: 'shop', trigger: 'platform_a_trigger' });
    expect(l.reason).toContain('nope');
    // The project still loads: the finding says what would be refused.
    expect(Object.keys(config.projects).sort()).toEqual(['billing', 'shop']);
  });

  it('a refused pipeline does not count as known for references', () => {
    const { findings } = build({
      pipelines: { broken: { commands: [] } },
      projects: { shop: { tracker: 'platform-a', platform_a_trigger: { default_pipeline: 'broken' } } },
    });
    expect(only(findings, 'projects.shop.platform_a_trigger.default_pipeline').reason).toContain('broken');
  });
});

describe('webhook secrets: an empty file key never switches verification off', () => {
  it('keeps the environment variable when the file key is empty or unresolved', () => {
    const env = readEnvironment({ PLATFORM_A_WEBHOOK_SECRET: 'from-env', PLATFORM_C_WEBHOOK_SECRET: 'c-env' });
    const findings: Finding[] = [];
    const config = buildConfig({ webhooks: { platform_a_secret: null, platform_c_secret: '${NOT_SET_ANYWHERE}' } }, env, findings);
    expect(config.webhooks.platform_a_secret).toBe('from-env');
    expect(config.webhooks.platform_c_secret).toBe('c-env');
    const withFile = buildConfig({ webhooks: { platform_a_secret: 'from-file' } }, env, []);
    expect(withFile.webhooks.platform_a_secret).toBe('from-file');
  });
});

describe('repositories', () => {
  it('a repository without auth_secret is a blocking finding at the field, and still loaded', () => {
    const { auth_secret: _, ...noSecret } = GOOD_REPO;
    const { config, findings } = build({ projects: { shop: { tracker: 'platform-a', repos: [{ ...noSecret, branch: 'develop' }] } } });
    expect(config.projects.shop?.repos[0]).toMatchObject({ name: 'shop-web', auth_secret: null, branch: 'develop' });
    expect(only(findings, 'projects.shop.repos[0].auth_secret')).toMatchObject({ severity: 'blocking', project: 'shop' });
  });

  it('a repository on Jira is not loaded', () => {
    const { config, findings } = build({ projects: { shop: { tracker: 'platform-d', repos: [{ ...GOOD_REPO, platform: 'platform-d' }] } } });
    expect(config.projects.shop?.repos).toEqual([]);
    expect(only(findings, 'projects.shop.repos[0].platform').reason).toContain('hosts no repositories');
  });
});

describe('agent', () => {
  it('defaults: no provider, the contract limits', () => {
    expect(build({}).config.agent).toEqual({
      provider: null, model: null, base_url: null, api_key: null, max_steps: 80, max_tokens: 2_000_000, max_cost_usd: 5, prices: null, step_timeout_seconds: 1800, requests_per_minute: 60,
    });
  });

  it('a project overrides the top-level block key by key, secrets through ${NAME}', () => {
    const { config, findings } = build({
      agent: { ...GOOD_AGENT, api_key: '${OPENAI_KEY}', max_steps: 40, requests_per_minute: 500 },
      projects: { shop: { tracker: 'platform-a', agent: { provider: 'anthropic', model: 'claude-test', api_key: '${ANTHROPIC_KEY}', max_cost_usd: '2.5' } } },
    }, { OPENAI_KEY: 'sk-o', ANTHROPIC_KEY: 'sk-a' });
    expect(findings).toEqual([]);
    expect(config.agent).toMatchObject({ provider: 'openai', model: 'gpt-test', api_key: 'sk-o', max_steps: 40, requests_per_minute: 500 });
    expect(config.projects.shop?.agent).toMatchObject({ provider: 'anthropic', model: 'claude-test', api_key: 'sk-a', max_steps: 40, max_cost_usd: 2.5, prices: GOOD_AGENT.prices, requests_per_minute: 500 });
  });

  it('a project that can start an agent pipeline without a complete agent gets blocking findings naming project and field', () => {
    const { findings } = build({
      agent: { provider: 'openai-compatible', api_key: '${MISSING_KEY}' },
      projects: {
        shop: { tracker: 'platform-a', platform_a_trigger: { default_pipeline: 'code' } },
        docs: { tracker: 'platform-a', platform_a_trigger: { pipeline_from_label: { x: 'lint' } } },
      },
      pipelines: { lint: { commands: ['lint'] } },
    });
    for (const field of ['model', 'api_key', 'base_url']) {
      expect(only(findings, `projects.shop.agent.${field}`)).toMatchObject({ severity: 'blocking', project: 'shop' });
    }
    expect(only(findings, 'agent.api_key').reason).toContain('MISSING_KEY');
    expect(only(findings, 'projects.shop.agent.prices').severity).toBe('advisory');
    expect(findings.filter((f) => f.project === 'docs')).toEqual([]); // starts no agent pipeline
  });

  it('an unknown provider and bad numbers are findings, the base value stands', () => {
    const { config, findings } = build({ agent: { provider: 'gateway', max_cost_usd: 'lots', prices: { input_per_mtok: 1 }, requests_per_minute: 0 } });
    expect(config.agent.provider).toBeNull();
    expect(config.agent.max_cost_usd).toBe(5);
    expect(config.agent.prices).toBeNull();
    expect(config.agent.requests_per_minute).toBe(60);
    expect(only(findings, 'agent.requests_per_minute')).toBeDefined();
    expect(only(findings, 'agent.provider').reason).toContain('openai, anthropic, azure-openai, openai-compatible');
    expect(only(findings, 'agent.max_cost_usd').reason).toContain('number');
    expect(only(findings, 'agent.prices').reason).toContain('needs both');
  });
});

describe('needs_clarification_status', () => {
  const field = 'projects.shop.platform_a_trigger.needs_clarification_status';

  it('is an advisory finding naming project and key when a project can park a ticket without it', () => {
    const { findings } = build({ agent: GOOD_AGENT, projects: { shop: { tracker: 'platform-a', platform_a_trigger: { trigger_statuses: ['go'], default_pipeline: 'code' } } } });
    const finding = only(findings, field);
    expect(finding).toMatchObject({ subsystem: 'configuration', severity: 'advisory', project: 'shop', trigger: 'platform_a_trigger' });
    expect(finding.reason).toContain('shop');
    expect(finding.reason).toContain('needs_clarification_status');
  });

  it('counts code started by a label or by pull-request commands, and is quiet once the key is set', () => {
    const byLabel = build({ agent: GOOD_AGENT, projects: { shop: { tracker: 'platform-a', platform_a_trigger: { pipeline_from_label: { agent: 'code' } } } } });
    expect(only(byLabel.findings, field).severity).toBe('advisory');
    const byCommand = build({ agent: GOOD_AGENT, projects: { shop: { tracker: 'platform-a', pr_commands: { enabled: true, allowed_pipelines: ['code'] } } } });
    expect(only(byCommand.findings, field).severity).toBe('advisory');
    const set = build({ agent: GOOD_AGENT, projects: { shop: { tracker: 'platform-a', platform_a_trigger: { default_pipeline: 'code', needs_clarification_status: 'needs-info' } } } });
    expect(at(set.findings, field)).toEqual([]);
  });

  it('is not raised for a project that cannot park: no code, code not allowed to commands, or no agent', () => {
    const noCode = build({ agent: GOOD_AGENT, projects: { shop: { tracker: 'platform-a', platform_a_trigger: { default_pipeline: 'pr-review' } } } });
    const commandsWithoutCode = build({ agent: GOOD_AGENT, projects: { shop: { tracker: 'platform-a', pr_commands: { enabled: true, allowed_pipelines: ['pr-review'] } } } });
    const noAgent = build({ projects: { shop: { tracker: 'platform-a', platform_a_trigger: { default_pipeline: 'code' } } } });
    for (const { findings } of [noCode, commandsWithoutCode, noAgent]) expect(at(findings, field)).toEqual([]);
  });
});

describe('agent pipelines on the in-process backend', () => {
  it('are a blocking finding naming the project unless the operator opts in', () => {
    const raw = { projects: { shop: { tracker: 'platform-a', platform_a_trigger: { trigger_statuses: ['go'], default_pipeline: 'code' } } } };
    const findings: Finding[] = [];
    buildConfig({ ...raw, sandbox: { backend: 'in-process' } }, readEnvironment({}), findings);
    expect(findings.find((f) => f.field === 'sandbox.backend')).toMatchObject({ severity: 'blocking', project: 'shop' });
    const allowed: Finding[] = [];
    buildConfig({ ...raw, sandbox: { backend: 'in-process', allow_agents_in_process: true } }, readEnvironment({}), allowed);
    expect(allowed.find((f) => f.field === 'sandbox.backend')).toBeUndefined();
  });
});
