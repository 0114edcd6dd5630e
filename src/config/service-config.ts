import { FindingSeverity } from '../common/finding-severity.js';
import type { Platform } from '../platforms/platform.js';
import { DEFAULT_ORCHESTRATOR_SETTINGS } from '../sandbox/container-orchestrator/container-orchestrator.descriptor.js';
import { DEFAULT_SANDBOX_BACKEND, type SandboxBackendKind } from '../sandbox/sandbox-backends.js';

/**
 * The validated, typed configuration every module reads. Produced once per load by
 * `loadServiceConfig` (defaults < file < environment); nothing else parses YAML or reads the
 * environment. Secret values appear here resolved; `SecretValue` keeps them out of logs.
 */

export interface AuthConfig {
  authority: string | null;
  audience: string | null;
  enforce: boolean;
  role_claim: string;
  group_claim: string;
  name_claim: string;
  /** Imported once into the database (spec rule 13); afterwards ignored. */
  group_roles: Record<string, string[]>;
  /** Custom roles imported once; afterwards ignored. */
  roles: Record<string, string[]>;
  /** The dashboard's own OIDC client settings (read from the environment only). */
  client_id: string | null;
  scopes: string | null;
  redirect_path: string | null;
}

export interface WebhookSecrets {
  platform_a_secret: string | null;
  platform_b_secret: string | null;
  platform_c_secret: string | null;
  platform_d_secret: string | null;
}

export interface QueueConfig {
  redis_retry_interval_seconds: number;
  max_parallel_runs: number;
  heartbeat_interval_seconds: number;
  heartbeat_ttl_seconds: number;
  stale_scan_interval_seconds: number;
  reconcile_interval_seconds: number;
  lease_ttl_seconds: number;
  /** Prefix of every store key, so one Redis can serve several installations. */
  key_prefix: string;
}

export const PublishMode = { None: 'none', PullRequest: 'pull-request' } as const;
export type PublishMode = (typeof PublishMode)[keyof typeof PublishMode];

export interface CommandPipelineConfig {
  commands: string[];
  timeout_seconds: number;
  /** `pull-request`: what the commands changed is committed, pushed and proposed (contract). */
  publish: PublishMode;
}

export const AgentProvider = {
  OpenAI: 'openai',
  Anthropic: 'anthropic',
  AzureOpenAI: 'azure-openai',
  OpenAICompatible: 'openai-compatible',
} as const;
export type AgentProvider = (typeof AgentProvider)[keyof typeof AgentProvider];

/** US dollars per million tokens. */
export interface AgentPrices {
  input_per_mtok: number;
  output_per_mtok: number;
}

/**
 * The language model the agent pipelines (`code`, `security-scan`, `pr-review`) drive, and their
 * limits per run. The top-level `agent:` block, overridden key by key by a project's own.
 */
export interface AgentConfig {
  provider: AgentProvider | null;
  model: string | null;
  /** Required for openai-compatible and azure-openai; the provider's default otherwise. */
  base_url: string | null;
  api_key: string | null;
  /** Model calls per agent step. */
  max_steps: number;
  /** Input + output tokens per run. */
  max_tokens: number;
  /** Per run; enforced only when `prices` are known. null → no cost limit. */
  max_cost_usd: number | null;
  prices: AgentPrices | null;
  step_timeout_seconds: number;
  /**
   * Model calls per minute to one provider endpoint (provider + base_url), shared by every run
   * and every replica of the installation: the agent waits for its turn rather than meeting 429s.
   */
  requests_per_minute: number;
}

/** Who the service's commits are by. */
export interface GitConfig {
  author_name: string;
  author_email: string;
}

export interface CapacityConfig {
  /** Cores. */
  cpu: number;
  /** Bytes. */
  memory: number;
}

/** Where sandbox containers may connect: nowhere (`none`), or the engine's bridge / the cluster's pod network. */
export const SandboxNetwork = { None: 'none', Bridge: 'bridge', Default: 'default' } as const;
export type SandboxNetwork = (typeof SandboxNetwork)[keyof typeof SandboxNetwork];

/** Credentials for pulling sandbox images from a private registry (the password through `${NAME}`). */
export interface RegistryAuth {
  server: string;
  username: string;
  password: string | null;
}

export interface SandboxConfig {
  /** One of the registry's (`src/sandbox/sandbox-backends.ts`). */
  backend: SandboxBackendKind;
  image: string;
  /** Per-sandbox request in cores. */
  cpu: number;
  /** Per-sandbox request in bytes. */
  memory: number;
  agent_version: string | null;
  /**
   * Lets agent pipelines (model-driven commands) run on the in-process backend, which is no
   * isolation boundary. Off by default: for development and tests only.
   */
  allow_agents_in_process: boolean;
  /** Container backends: `none` (default) or `bridge` (engine) / `default` (orchestrator). */
  network: SandboxNetwork;
  /** Most processes one sandbox may run (container backends). */
  pids_limit: number;
  /** The user commands run as in containers (`uid:gid`, never root). */
  user: string;
  /** The Docker Engine API: `unix:///var/run/docker.sock`, `tcp://host:2375`; DOCKER_HOST wins. null → the default socket. */
  engine: { host: string | null };
  /** Kubernetes: the namespace pods go to, and a kubeconfig path (null → in-cluster, else ~/.kube/config). */
  orchestrator: { namespace: string; kubeconfig: string | null };
  /** Pull credentials for sandbox images; null → anonymous pulls. */
  registry: RegistryAuth | null;
}

export interface RepoConfig {
  name: string;
  platform: Platform;
  url: string;
  api_url: string | null;
  path_prefix: string;
  auth_secret: string | null;
  /** Base branch; null → the host's default branch. */
  branch: string | null;
}

/** One per platform on a project: `platform_a_trigger` … `platform_d_trigger`. */
export interface TriggerConfig {
  trigger_statuses: string[];
  /** label → pipeline */
  pipeline_from_label: Record<string, string>;
  default_pipeline: string | null;
  done_status: string | null;
  comment_keyword: string | null;
  pr_trigger_label: string | null;
  needs_clarification_status: string | null;
  // Platform C (Azure DevOps)
  organization_url: string | null;
  team_project: string | null;
  // Platform D (Jira)
  site_url: string | null;
  project_key: string | null;
  /**
   * C and D: the type of the tickets the design dialogue files (Azure DevOps work item type,
   * default `User Story`; Jira issue type, default `Task`). Ignored on A and B (issues).
   */
  ticket_type?: string | null;
  /** Platform D HMAC secret for this project's deliveries. */
  secret: string | null;
  /** C: PAT; D: `user:api-token`. */
  credentials: string | null;
  /** Polling ingress for this tracker (issue 17); null when the block is absent (webhooks only). */
  polling?: PollingConfig | null;
}

/** `polling:` in a trigger block: the leader-elected poller reads this project's tracker. */
export interface PollingConfig {
  enabled: boolean;
  /** Seconds between polls of the project (each wait jittered by ±10 %). Default 60, at least 10. */
  interval_seconds: number;
}

export interface PrCommandsConfig {
  enabled: boolean;
  require_member: boolean;
  /** null → all of the fixed set. */
  allowed_pipelines: string[] | null;
}

/** `criteria:` of a project (contract "Acceptance criteria and judging"). */
export interface CriteriaConfig {
  /** A `code` run that ends with a criterion unmet or unreported fails naming them. Default true. */
  enforce: boolean;
}

export interface ProjectConfig {
  name: string;
  tracker: Platform;
  repos: RepoConfig[];
  triggers: Partial<Record<Platform, TriggerConfig>>;
  pr_commands: PrCommandsConfig;
  /** The top-level `agent:` with this project's own `agent:` keys laid over it. */
  agent: AgentConfig;
  /**
   * The top-level `security_scan:` with this project's own keys laid over it (always set by the
   * loader; a configuration built by hand may leave it out, and then the top-level one holds).
   * Read it through `failThresholdFor`.
   */
  security_scan?: SecurityScanConfig;
  /** Absent in a configuration built by hand: enforced (read it through `criteriaEnforced`). */
  criteria?: CriteriaConfig;
}

/** Whether a project's `code` runs fail on acceptance criteria not met (the default: yes). */
export function criteriaEnforced(project: ProjectConfig | null | undefined): boolean {
  return project?.criteria?.enforce ?? true;
}

/** `security_scan.fail_on`: a finding severity, or `none` (a scan never fails on its findings). */
export const NO_FAIL_THRESHOLD = 'none';
export type FailThreshold = FindingSeverity | typeof NO_FAIL_THRESHOLD;
/** Every value `fail_on` accepts, most severe first. */
export const FAIL_THRESHOLDS: readonly FailThreshold[] = [...Object.values(FindingSeverity), NO_FAIL_THRESHOLD];

/** The `security-scan` pipeline's verdict: the run fails when any finding is at or above `fail_on`. */
export interface SecurityScanConfig {
  fail_on: FailThreshold;
}

export interface ServiceConfig {
  auth: AuthConfig | null;
  webhooks: WebhookSecrets;
  /** Operator's named secrets (`${NAME}` resolves here first). */
  secrets: Record<string, string>;
  /** Secrets saved on the dashboard (decrypted), by name: `${NAME}` resolves here after `secrets:`. */
  stored_secrets: Record<string, string>;
  queue: QueueConfig;
  pipelines: Record<string, CommandPipelineConfig>;
  /** null → unbounded. */
  capacity: CapacityConfig | null;
  sandbox: SandboxConfig;
  projects: Record<string, ProjectConfig>;
  observation_retention_days: number;
  metrics: MetricsConfig;
  runs: RunsConfig;
  git: GitConfig;
  agent: AgentConfig;
  /** The top-level `security_scan:` block; a project's own keys override it (ProjectConfig.security_scan). */
  security_scan: SecurityScanConfig;
  /** Where skills are read from besides the package's own `skills/` folder. */
  skills: SkillsConfig;
  chat: ChatConfig;
}

export interface SkillsConfig {
  /** Folders whose sub-folders are skills (`<name>/SKILL.md`); relative ones are taken from the bootstrap file's folder. */
  paths: string[];
}

/**
 * `chat:`: each chat platform's block as written (key → resolved value; a platform whose block
 * is absent is not in `platforms`), read by that platform's own module under `src/chat/platforms/`.
 */
export interface ChatConfig {
  platforms: Record<string, Record<string, string | null>>;
  /** `<platform>:<workspace or tenant>/<channel id>` → the role everyone writing there holds. */
  channels: Record<string, string>;
  /** The dashboard's address as people reach it (links in replies); null → paths only. */
  dashboard_url: string | null;
}

export interface MetricsConfig {
  /** Serve Prometheus metrics at `GET /metrics`. */
  enabled: boolean;
}

export interface RunsConfig {
  /** Finished runs (and their events) older than this are removed by the housekeeping leader. */
  retention_days: number;
}

export const DEFAULT_QUEUE: QueueConfig = {
  redis_retry_interval_seconds: 30,
  max_parallel_runs: 4,
  heartbeat_interval_seconds: 30,
  heartbeat_ttl_seconds: 120,
  stale_scan_interval_seconds: 60,
  reconcile_interval_seconds: 600,
  lease_ttl_seconds: 30,
  key_prefix: 'svc:',
};

export const DEFAULT_SANDBOX: SandboxConfig = {
  backend: DEFAULT_SANDBOX_BACKEND,
  image: 'node:24-bookworm',
  cpu: 1,
  memory: 2 * 1024 ** 3,
  agent_version: null,
  allow_agents_in_process: false,
  network: SandboxNetwork.None,
  pids_limit: 512,
  user: '1000:1000',
  engine: { host: null },
  orchestrator: DEFAULT_ORCHESTRATOR_SETTINGS,
  registry: null,
};

export const DEFAULT_AGENT: AgentConfig = {
  provider: null,
  model: null,
  base_url: null,
  api_key: null,
  max_steps: 80,
  max_tokens: 2_000_000,
  max_cost_usd: 5,
  prices: null,
  step_timeout_seconds: 1800,
  requests_per_minute: 60,
};

export const DEFAULT_SECURITY_SCAN: SecurityScanConfig = { fail_on: FindingSeverity.High };

export const DEFAULT_GIT: GitConfig = { author_name: 'pipeline-service', author_email: 'pipeline-service@users.noreply.localhost' };

export const DEFAULT_AUTH_CLAIMS = { role_claim: 'roles', group_claim: 'groups', name_claim: 'sub' } as const;

export function defaultServiceConfig(): ServiceConfig {
  return {
    auth: null,
    webhooks: { platform_a_secret: null, platform_b_secret: null, platform_c_secret: null, platform_d_secret: null },
    secrets: {},
    stored_secrets: {},
    queue: { ...DEFAULT_QUEUE },
    pipelines: {},
    capacity: null,
    sandbox: { ...DEFAULT_SANDBOX },
    projects: {},
    observation_retention_days: 90,
    metrics: { enabled: true },
    runs: { retention_days: 90 },
    git: { ...DEFAULT_GIT },
    agent: { ...DEFAULT_AGENT },
    security_scan: { ...DEFAULT_SECURITY_SCAN },
    skills: { paths: [] },
    chat: { platforms: {}, channels: {}, dashboard_url: null },
  };
}
