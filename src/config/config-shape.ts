import { BUILT_IN_PIPELINES } from '../pipelines/built-in-pipelines.js';
import { ALL_PLATFORMS, triggerKeyOf } from '../platforms/platform.js';
import { CODE_HOST_PLATFORMS } from '../platforms/platform-registry.js';
import { SANDBOX_BACKEND_KEYS, SANDBOX_BACKEND_NAMES } from '../sandbox/sandbox-backends.js';
import {
  type BlockShape, type ChoiceShape, type DecimalShape, type FieldShape, type FlagShape, type IntegerShape, type ListShape, type MapShape,
  type QuantityShape, type TextShape, type ValueOf, block, choice, decimal, flag, integer, list, lists, names, text,
} from './field-shapes.js';
import { CPU_QUANTITY, MEMORY_QUANTITY } from './quantities.js';
import {
  AgentProvider, DEFAULT_AGENT, DEFAULT_AUTH_CLAIMS, DEFAULT_GIT, DEFAULT_QUEUE, DEFAULT_SANDBOX, DEFAULT_SECURITY_SCAN, FAIL_THRESHOLDS, PublishMode,
  SandboxNetwork,
} from './service-config.js';

/**
 * The keys of the bootstrap file and what each one holds, declared once. The readers take from
 * here the keys a block accepts (anything else is an unknown key), each key's type, bound, allowed
 * values and default (`ConfigReader.field`), and `configJsonSchema` turns the same tables into
 * config/service.schema.json. What a value means beyond its shape (cross-key rules, the
 * environment overriding `auth:`, quantities parsed into bytes) stays in the readers. The kinds
 * of key and their helpers are in `field-shapes.ts`.
 */
export type {
  BlockShape, ChoiceShape, DecimalShape, FieldShape, FlagShape, IntegerShape, ListShape, MapShape, QuantityShape, TextShape, ValueOf,
};

export const AUTH = block({
  authority: text(),
  audience: text(),
  enforce: flag(false),
  role_claim: text({ default: DEFAULT_AUTH_CLAIMS.role_claim }),
  group_claim: text({ default: DEFAULT_AUTH_CLAIMS.group_claim }),
  name_claim: text({ default: DEFAULT_AUTH_CLAIMS.name_claim }),
  group_roles: lists,
  roles: lists,
});

export const WEBHOOKS = block({
  platform_a_secret: text({ secret: true }),
  platform_b_secret: text({ secret: true }),
  platform_c_secret: text({ secret: true }),
  platform_d_secret: text({ secret: true }),
});

export const QUEUE = block({
  redis_retry_interval_seconds: integer(1, DEFAULT_QUEUE.redis_retry_interval_seconds),
  max_parallel_runs: integer(1, DEFAULT_QUEUE.max_parallel_runs),
  heartbeat_interval_seconds: integer(1, DEFAULT_QUEUE.heartbeat_interval_seconds),
  heartbeat_ttl_seconds: integer(1, DEFAULT_QUEUE.heartbeat_ttl_seconds),
  stale_scan_interval_seconds: integer(1, DEFAULT_QUEUE.stale_scan_interval_seconds),
  reconcile_interval_seconds: integer(1, DEFAULT_QUEUE.reconcile_interval_seconds),
  lease_ttl_seconds: integer(1, DEFAULT_QUEUE.lease_ttl_seconds),
  key_prefix: text({ default: DEFAULT_QUEUE.key_prefix }),
});

export const PIPELINE = block({
  commands: list,
  timeout_seconds: integer(1, 900),
  publish: choice(Object.values(PublishMode), { default: PublishMode.None }),
}, { required: ['commands'], nullable: false });

export const CAPACITY = block({
  cpu: { kind: 'quantity', pattern: CPU_QUANTITY.source },
  memory: { kind: 'quantity', pattern: MEMORY_QUANTITY.source },
});

export const SANDBOX = block({
  backend: choice(SANDBOX_BACKEND_NAMES, { default: DEFAULT_SANDBOX.backend }),
  image: text({ default: DEFAULT_SANDBOX.image }),
  cpu: { kind: 'quantity', pattern: CPU_QUANTITY.source, default: DEFAULT_SANDBOX.cpu },
  memory: { kind: 'quantity', pattern: MEMORY_QUANTITY.source, default: '2Gi' },
  agent_version: text(),
  allow_agents_in_process: flag(DEFAULT_SANDBOX.allow_agents_in_process),
  network: choice(Object.values(SandboxNetwork), { default: DEFAULT_SANDBOX.network }),
  pids_limit: integer(16, DEFAULT_SANDBOX.pids_limit),
  // A numeric uid or uid:gid, never root (uid 0).
  user: text({ pattern: '^(?!0(:|$))\\d+(:\\d+)?$', default: DEFAULT_SANDBOX.user }),
  // Each backend's own block (`engine:`, `orchestrator:`), declared in its folder.
  ...SANDBOX_BACKEND_KEYS,
  registry: block({ server: text(), username: text(), password: text({ secret: true }) }, { required: ['server', 'username'] }),
});

/** git refuses angle brackets and line breaks in an identity. */
const GIT_IDENTITY = '^[^<>\\n\\r]*$';
export const GIT = block({
  author_name: text({ pattern: GIT_IDENTITY, default: DEFAULT_GIT.author_name }),
  author_email: text({ pattern: GIT_IDENTITY, default: DEFAULT_GIT.author_email }),
});

/** The top-level `agent:` and each project's own (documented once, at the top level). */
export const AGENT = block({
  provider: choice(Object.values(AgentProvider)),
  model: text(),
  base_url: text(),
  api_key: text({ secret: true }),
  max_steps: integer(1, DEFAULT_AGENT.max_steps),
  max_tokens: integer(1, DEFAULT_AGENT.max_tokens),
  max_cost_usd: decimal(0, DEFAULT_AGENT.max_cost_usd ?? undefined),
  prices: block({ input_per_mtok: decimal(0), output_per_mtok: decimal(0) }, { required: ['input_per_mtok', 'output_per_mtok'], docs: 'agent.prices' }),
  step_timeout_seconds: integer(1, DEFAULT_AGENT.step_timeout_seconds),
  requests_per_minute: integer(1, DEFAULT_AGENT.requests_per_minute),
}, { docs: 'agent' });

export const SECURITY_SCAN = block({
  fail_on: choice(FAIL_THRESHOLDS, { default: DEFAULT_SECURITY_SCAN.fail_on }),
}, { docs: 'security_scan' });

/** Folders of skills besides the package's own (docs/skills.md). */
export const SKILLS = block({ paths: list });

/** Shorter polling intervals would spend a tracker's rate limit on polling alone. */
export const MIN_POLL_INTERVAL_SECONDS = 10;
export const POLLING = block({ enabled: flag(false), interval_seconds: integer(MIN_POLL_INTERVAL_SECONDS, 60) });

/** One per platform on a project; every key is accepted in every block. */
export const TRIGGER = block({
  trigger_statuses: list,
  pipeline_from_label: names,
  default_pipeline: text(),
  done_status: text(),
  comment_keyword: text(),
  pr_trigger_label: text(),
  needs_clarification_status: text(),
  organization_url: text(),
  team_project: text(),
  site_url: text(),
  project_key: text(),
  ticket_type: text(),
  secret: text({ secret: true }),
  credentials: text({ secret: true }),
  polling: POLLING,
}, { docs: 'projects.*.platform_?_trigger' });

export const REPO = block({
  name: text({ required: true }),
  // Jira hosts no repositories: a repository names its code host.
  platform: choice(CODE_HOST_PLATFORMS, { required: true }),
  url: text({ required: true }),
  api_url: text(),
  path_prefix: text({ default: '' }),
  auth_secret: text({ secret: true }),
  branch: text(),
}, { required: ['name', 'platform', 'url'], nullable: false });

/** A project's acceptance criteria (`code` runs): whether unmet or unreported ones fail the run. */
export const CRITERIA = block({ enforce: flag(true) });

export const PR_COMMANDS = block({ enabled: flag(false), require_member: flag(true), allowed_pipelines: list });

const TRIGGERS = Object.fromEntries(ALL_PLATFORMS.map((p) => [triggerKeyOf(p), TRIGGER])) as Record<ReturnType<typeof triggerKeyOf>, typeof TRIGGER>;

export const PROJECT = block({
  tracker: choice(ALL_PLATFORMS, { required: true }),
  repos: { kind: 'list', of: REPO },
  pr_commands: PR_COMMANDS,
  agent: AGENT,
  security_scan: SECURITY_SCAN,
  criteria: CRITERIA,
  ...TRIGGERS,
}, { required: ['tracker'], nullable: false });

/**
 * `chat:` (contract "Chat"): one block per chat platform, keyed by the route's name
 * (`/chat/slack` …), each URL defaulting to the platform's public one; `channels` gives a role to
 * everyone writing in a channel (`<platform>:<workspace or tenant>/<channel id>` → role);
 * `dashboard_url` is where the links in replies point (the dashboard as people reach it).
 */
export const CHAT = block({
  slack: block({ bot_token: text({ secret: true }), signing_secret: text({ secret: true }), api_url: text() }, { docs: 'chat.slack' }),
  teams: block({
    app_id: text(), app_password: text({ secret: true }), tenant_id: text(), openid_metadata_url: text(), token_url: text(),
  }, { docs: 'chat.teams' }),
  gchat: block({ credentials: text({ secret: true }), project_number: text(), api_url: text(), jwks_url: text(), bot_user_id: text() }, { docs: 'chat.gchat' }),
  channels: names,
  dashboard_url: text(),
}, { docs: 'chat' });

/** The chat platforms' own blocks under `chat:` (everything but the shared keys). */
export const CHAT_SHARED_KEYS: readonly string[] = ['channels', 'dashboard_url'];

/** The whole file. */
export const SERVICE_FILE = block({
  auth: AUTH,
  webhooks: WEBHOOKS,
  secrets: names,
  queue: QUEUE,
  pipelines: { kind: 'map', of: PIPELINE, reserved: BUILT_IN_PIPELINES },
  capacity: CAPACITY,
  sandbox: SANDBOX,
  projects: { kind: 'map', of: PROJECT },
  observation_retention_days: integer(1, 90),
  metrics: block({ enabled: flag(true) }),
  runs: block({ retention_days: integer(1, 90) }),
  git: GIT,
  agent: AGENT,
  security_scan: SECURITY_SCAN,
  skills: SKILLS,
  chat: CHAT,
});
