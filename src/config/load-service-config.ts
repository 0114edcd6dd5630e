import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type Finding, FindingSubsystem, finding } from '../findings/finding.js';
import { BUILT_IN_PIPELINES } from '../pipelines/built-in-pipelines.js';
import { ConfigReader, type Location, type SecretField, type UnresolvedField, emptyMap, isPlainObject } from './config-reader.js';
import { AUTH_ENV_VARIABLES, type AuthEnvField, type ServiceEnvironment } from './environment.js';
import { checkAgentReadiness, readAgent } from './agent-config.reader.js';
import { checkClarificationStatus } from './clarification-status.check.js';
import { AUTH, CAPACITY, GIT, PIPELINE, QUEUE, SANDBOX, SERVICE_FILE, SKILLS, WEBHOOKS } from './config-shape.js';
import { checkPolling } from './polling-config.reader.js';
import { readProject } from './project-config.reader.js';
import { readSecurityScan } from './security-scan-config.reader.js';
import { readChat } from './chat-config.reader.js';
import { parseCpu, parseMemory } from './quantities.js';
import { SANDBOX_BACKENDS } from '../sandbox/sandbox-backends.js';
import { type StoredSettings, withSettings } from '../settings/settings-document.js';
import {
  type AuthConfig, type CapacityConfig, type CommandPipelineConfig, type GitConfig, type ProjectConfig, DEFAULT_AGENT, DEFAULT_AUTH_CLAIMS, DEFAULT_GIT, DEFAULT_QUEUE, DEFAULT_SANDBOX, DEFAULT_SECURITY_SCAN,
  PublishMode,
  type QueueConfig, type SandboxConfig, type SandboxNetwork, type ServiceConfig, defaultServiceConfig,
} from './service-config.js';

export interface LoadedConfig {
  config: ServiceConfig;
  /** `config-file` and `configuration` findings of this load. */
  findings: Finding[];
  /** Absolute path of the bootstrap file, and whether it was there. */
  file: { path: string; present: boolean };
  /** SHA-256 of the bytes read from the file (null: absent): the watcher compares it with the file on disk. */
  fileHash: string | null;
  /** The parsed file with the stored settings laid over it (references unresolved): where each `${NAME}` is used. */
  raw: unknown;
  /** The parsed file alone, as written (or the last readable version kept, see `lastReadable`). */
  fileRaw: unknown;
  /** The file's last readable document, kept in force when a reload finds the file broken or gone. */
  lastReadable: FileSnapshot | null;
  /** Every value the loader read as a secret (`projects.shop.repos[0].auth_secret`, `webhooks.platform_a_secret`, …), as written. */
  secretFields: SecretField[];
}

/** A readable bootstrap document and when it was read. */
export interface FileSnapshot {
  document: unknown;
  readAt: string;
}

/**
 * Loads the bootstrap file with the stored settings over it, the environment and the stored
 * secrets (decrypted, by name). Never throws: every problem is a finding.
 *
 * `lastReadable` is given on a reload of a running server: when the file has since become broken
 * YAML, a non-mapping, or vanished (an editor's rename half done), that document stays in force and
 * a finding says why, rather than the server dropping to built-in defaults under running work. At
 * start there is none, and such a file gives the built-in defaults.
 */
export function loadServiceConfig(
  env: ServiceEnvironment, configPath = env.configPath, stored: Readonly<Record<string, string>> = {}, settings: StoredSettings = {},
  lastReadable: FileSnapshot | null = null,
): LoadedConfig {
  const path = isAbsolute(configPath) ? configPath : resolve(configPath);
  const findings: Finding[] = [];
  const read = readBootstrapFile(path);
  let raw: unknown = {};
  let readable: FileSnapshot | null = null;
  const kept = (why: string, subsystem: FindingSubsystem, severity: 'blocking' | 'advisory') => {
    findings.push(finding(subsystem, severity,
      `${why}; the version read at ${lastReadable!.readAt} stays in force until the file is readable again (a restart now would run on built-in defaults)`,
      { field: 'SERVICE_CONFIG' }));
    raw = lastReadable!.document;
    readable = lastReadable;
  };
  if (read.state === 'missing') {
    if (lastReadable) kept(`bootstrap file ${path} is gone`, FindingSubsystem.ConfigFile, 'advisory');
    else findings.push(finding(FindingSubsystem.ConfigFile, 'advisory', `bootstrap file ${path} not found; the server runs on built-in defaults`, { field: 'SERVICE_CONFIG' }));
  } else if (read.state === 'unreadable') {
    const why = `${path} could not be read as YAML (${read.reason})`;
    if (lastReadable) kept(why, FindingSubsystem.Configuration, 'blocking');
    else findings.push(finding(FindingSubsystem.Configuration, 'blocking', `${why}; the server runs on built-in defaults`, { field: 'SERVICE_CONFIG' }));
  } else if (!isPlainObject(read.document) && lastReadable) {
    kept(`${path} is not a mapping at its top level`, FindingSubsystem.Configuration, 'blocking');
  } else {
    // A non-mapping root without a readable version to keep: buildConfig reports it and ignores it.
    raw = read.document;
    if (isPlainObject(read.document)) readable = { document: read.document, readAt: new Date().toISOString() };
  }
  const document = withSettings(raw, settings);
  const secretFields: SecretField[] = [];
  const config = buildConfig(document, env, findings, stored, secretFields);
  const fileHash = read.state === 'missing' ? null : read.hash;
  return { config, findings, file: { path, present: read.state !== 'missing' }, fileHash, raw: document, fileRaw: raw, lastReadable: readable, secretFields };
}

type FileRead =
  | { state: 'missing' }
  | { state: 'unreadable'; hash: string; reason: string }
  | { state: 'read'; hash: string; document: unknown };

function readBootstrapFile(path: string): FileRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'unreadable', hash: '', reason: (error as Error).message };
  }
  const hash = fileHashOf(bytes);
  try {
    return { state: 'read', hash, document: parseYaml(bytes.toString('utf8')) ?? {} };
  } catch (error) {
    return { state: 'unreadable', hash, reason: (error as Error).message.split('\n')[0]! };
  }
}

export const fileHashOf = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Pure: parsed YAML + environment → typed configuration; problems appended to `findings`. */
export function buildConfig(
  raw: unknown, env: ServiceEnvironment, findings: Finding[], stored: Readonly<Record<string, string>> = {}, secretFields: SecretField[] | null = null,
  unresolvedFields: UnresolvedField[] | null = null,
): ServiceConfig {
  const config = defaultServiceConfig();
  const bootstrap = new ConfigReader(findings, {}, env.variables);
  // A non-mapping root gets this one finding (not also the generic block finding, which has no path to name).
  const rootIsMapping = raw === null || raw === undefined || isPlainObject(raw);
  if (!rootIsMapping) {
    findings.push(finding(FindingSubsystem.Configuration, 'blocking', 'the bootstrap file must be a mapping at its top level; it was ignored'));
  }
  const top: Location = { path: '' };
  const root = bootstrap.block(rootIsMapping ? raw : {}, top, SERVICE_FILE);
  // secrets: resolve against the environment only; everything else sees them first, then the
  // stored secrets (saved on the dashboard), then the environment.
  config.secrets = bootstrap.field(SERVICE_FILE, root, top, 'secrets');
  config.stored_secrets = Object.assign(emptyMap<string>(), stored);
  const r = new ConfigReader(findings, Object.assign(emptyMap<string>(), stored, config.secrets), env.variables, secretFields, unresolvedFields);

  config.auth = readAuth(r, root.auth, env);
  config.webhooks = readWebhooks(r, root.webhooks, env);
  config.queue = readQueue(r, root.queue);
  config.pipelines = readPipelines(r, root.pipelines);
  config.capacity = readCapacity(r, root.capacity);
  config.sandbox = readSandbox(r, root.sandbox);
  config.observation_retention_days = r.field(SERVICE_FILE, root, top, 'observation_retention_days');
  const { metrics: METRICS, runs: RUNS } = SERVICE_FILE.keys;
  const metrics = r.block(root.metrics, { path: 'metrics' }, METRICS);
  config.metrics = { enabled: r.field(METRICS, metrics, { path: 'metrics' }, 'enabled') };
  const runs = r.block(root.runs, { path: 'runs' }, RUNS);
  config.runs = { retention_days: r.field(RUNS, runs, { path: 'runs' }, 'retention_days') };
  config.git = readGit(r, root.git);
  config.agent = readAgent(r, { path: 'agent' }, root.agent, DEFAULT_AGENT);
  config.security_scan = readSecurityScan(r, { path: 'security_scan' }, root.security_scan, DEFAULT_SECURITY_SCAN);
  config.skills = readSkills(r, root.skills);
  config.chat = readChat(r, root.chat);
  config.projects = emptyMap<ProjectConfig>();
  const projects = r.block(root.projects, { path: 'projects' }, Object.keys(isPlainObject(root.projects) ? root.projects : {}));
  for (const [name, value] of Object.entries(projects)) {
    const project = readProject(r, name, value, config.agent, config.security_scan);
    if (project) config.projects[name] = project;
  }
  checkPipelineReferences(r, config);
  checkAgentReadiness(r, Object.values(config.projects), config.sandbox);
  checkClarificationStatus(r, Object.values(config.projects));
  checkPolling(r, Object.values(config.projects));
  return config;
}

function readAuth(r: ConfigReader, raw: unknown, env: ServiceEnvironment): AuthConfig | null {
  const where: Location = { path: 'auth' };
  const b = r.block(raw, where, AUTH);
  const fromEnv = env.auth;
  // Spec: leaving the block out means nothing authenticates; one environment variable alone creates it.
  if (raw === undefined || raw === null) {
    const bootstrapVars: AuthEnvField[] = ['authority', 'audience', 'enforce', 'role_claim', 'group_claim', 'name_claim'];
    if (!bootstrapVars.some((f) => fromEnv[f] !== undefined)) return null;
  }
  const pick = (field: AuthEnvField) => (fromEnv[field] !== undefined ? fromEnv[field] : b[field]);
  const fieldAt = (field: AuthEnvField): Location =>
    fromEnv[field] !== undefined ? { path: AUTH_ENV_VARIABLES[field] } : r.at(where, field);
  const read = <F extends AuthEnvField & keyof typeof AUTH.keys>(field: F) => r.value(AUTH.keys[field], pick(field), fieldAt(field));
  return {
    authority: read('authority'),
    audience: read('audience'),
    enforce: read('enforce'),
    role_claim: read('role_claim') ?? DEFAULT_AUTH_CLAIMS.role_claim,
    group_claim: read('group_claim') ?? DEFAULT_AUTH_CLAIMS.group_claim,
    name_claim: read('name_claim') ?? DEFAULT_AUTH_CLAIMS.name_claim,
    group_roles: r.field(AUTH, b, where, 'group_roles'),
    roles: r.field(AUTH, b, where, 'roles'),
    client_id: fromEnv.client_id ?? null,
    scopes: fromEnv.scopes ?? null,
    redirect_path: fromEnv.redirect_path ?? null,
  };
}

function readWebhooks(r: ConfigReader, raw: unknown, env: ServiceEnvironment): ServiceConfig['webhooks'] {
  const where: Location = { path: 'webhooks' };
  const b = r.block(raw, where, WEBHOOKS);
  const out = { ...env.webhookSecrets };
  for (const key of Object.keys(WEBHOOKS.keys) as (keyof typeof WEBHOOKS.keys)[]) {
    // An empty key, or a reference that resolves to nothing, never switches verification off
    // when the platform's PLATFORM_*_WEBHOOK_* variable holds a secret: the variable stands.
    if (b[key] !== undefined) out[key] = r.field(WEBHOOKS, b, where, key) ?? out[key];
  }
  return out;
}

function readQueue(r: ConfigReader, raw: unknown): QueueConfig {
  const where: Location = { path: 'queue' };
  const b = r.block(raw, where, QUEUE);
  const q = { ...DEFAULT_QUEUE };
  for (const key of Object.keys(QUEUE.keys) as (keyof QueueConfig)[]) {
    if (key === 'key_prefix') q.key_prefix = r.field(QUEUE, b, where, key) ?? DEFAULT_QUEUE.key_prefix;
    else q[key] = r.field(QUEUE, b, where, key);
  }
  return q;
}

function readPipelines(r: ConfigReader, raw: unknown): Record<string, CommandPipelineConfig> {
  const where: Location = { path: 'pipelines' };
  const b = r.block(raw, where, Object.keys(isPlainObject(raw) ? raw : {}));
  const out = emptyMap<CommandPipelineConfig>();
  for (const [name, value] of Object.entries(b)) {
    const at = r.at(where, name);
    if (BUILT_IN_PIPELINES.includes(name)) {
      r.problem(at, `pipeline ${name} is built in and cannot be redefined; the entry was ignored`);
      continue;
    }
    const p = r.block(value, at, PIPELINE);
    const commands = r.field(PIPELINE, p, at, 'commands');
    if (commands.length === 0) {
      r.problem(at, `pipeline ${name} needs at least one command; it was not loaded`);
      continue;
    }
    out[name] = { commands, timeout_seconds: r.field(PIPELINE, p, at, 'timeout_seconds'), publish: readPublish(r, r.at(at, 'publish'), p.publish) };
  }
  return out;
}

function readPublish(r: ConfigReader, at: Location, raw: unknown): PublishMode {
  const value = r.value(PIPELINE.keys.publish, raw, at);
  if (value === null) return PublishMode.None;
  if (PIPELINE.keys.publish.values.includes(value)) return value as PublishMode;
  r.problem(at, `${at.path} must be pull-request or none, not ${JSON.stringify(value)}; nothing is published`);
  return PublishMode.None;
}

function readSkills(r: ConfigReader, raw: unknown): ServiceConfig['skills'] {
  const where: Location = { path: 'skills' };
  const b = r.block(raw, where, SKILLS);
  const paths = r.field(SKILLS, b, where, 'paths').map((p) => p.trim()).filter((p) => p !== '');
  return { paths: [...new Set(paths)] };
}

function readGit(r: ConfigReader, raw: unknown): GitConfig {
  const where: Location = { path: 'git' };
  const b = r.block(raw, where, GIT);
  const name = r.field(GIT, b, where, 'author_name');
  const email = r.field(GIT, b, where, 'author_email');
  // git refuses angle brackets and line breaks in an identity; say so here rather than fail every commit.
  const valid = (v: string | null, key: keyof typeof GIT.keys) => {
    if (v !== null && !new RegExp(GIT.keys[key].pattern!).test(v)) {
      r.problem(r.at(where, key), `git.${key} must not contain <, > or a line break; the default stands`);
      return null;
    }
    return v;
  };
  return { author_name: valid(name, 'author_name') ?? DEFAULT_GIT.author_name, author_email: valid(email, 'author_email') ?? DEFAULT_GIT.author_email };
}

function readCapacity(r: ConfigReader, raw: unknown): CapacityConfig | null {
  if (raw === undefined || raw === null) return null;
  const where: Location = { path: 'capacity' };
  const b = r.block(raw, where, CAPACITY);
  const cpu = b.cpu === undefined ? Number.POSITIVE_INFINITY : parseCpu(b.cpu);
  const memory = b.memory === undefined ? Number.POSITIVE_INFINITY : parseMemory(b.memory);
  if (cpu === null) r.problem(r.at(where, 'cpu'), 'capacity.cpu must be a number of cores such as 8 or 500m; capacity is unbounded');
  if (memory === null) r.problem(r.at(where, 'memory'), 'capacity.memory must be a quantity such as 16Gi; capacity is unbounded');
  if (cpu === null || memory === null) return null;
  return { cpu, memory };
}

function readSandbox(r: ConfigReader, raw: unknown): SandboxConfig {
  const where: Location = { path: 'sandbox' };
  const b = r.block(raw, where, SANDBOX);
  const s = { ...DEFAULT_SANDBOX };
  const backend = r.field(SANDBOX, b, where, 'backend');
  const kinds = SANDBOX.keys.backend.values;
  if (backend !== null) {
    if (kinds.includes(backend)) s.backend = backend as SandboxConfig['backend'];
    else r.problem(r.at(where, 'backend'), `sandbox.backend must be one of ${kinds.join(', ')}; using ${s.backend}`);
  }
  s.image = r.field(SANDBOX, b, where, 'image') ?? s.image;
  if (b.cpu !== undefined) {
    const cpu = parseCpu(b.cpu);
    if (cpu === null) r.problem(r.at(where, 'cpu'), `sandbox.cpu must be cores such as 1 or 500m; using ${s.cpu}`);
    else s.cpu = cpu;
  }
  if (b.memory !== undefined) {
    const memory = parseMemory(b.memory);
    if (memory === null) r.problem(r.at(where, 'memory'), 'sandbox.memory must be a quantity such as 2Gi; using 2Gi');
    else s.memory = memory;
  }
  s.agent_version = r.field(SANDBOX, b, where, 'agent_version');
  s.allow_agents_in_process = r.field(SANDBOX, b, where, 'allow_agents_in_process');
  readContainerSettings(r, where, b, s);
  return s;
}

/** The container backends' keys: network, limits, user, each backend's own block (its descriptor reads it) and registry. */
function readContainerSettings(r: ConfigReader, where: Location, b: Record<string, unknown>, s: SandboxConfig): void {
  const network = r.field(SANDBOX, b, where, 'network');
  const networks = SANDBOX.keys.network.values;
  if (network !== null) {
    if (networks.includes(network)) s.network = network as SandboxNetwork;
    else r.problem(r.at(where, 'network'), `sandbox.network must be one of ${networks.join(', ')}; using none`);
  }
  s.pids_limit = r.field(SANDBOX, b, where, 'pids_limit', s.pids_limit);
  const user = r.field(SANDBOX, b, where, 'user');
  if (user !== null) {
    if (new RegExp(SANDBOX.keys.user.pattern!).test(user)) s.user = user;
    else r.problem(r.at(where, 'user'), `sandbox.user must be a numeric uid or uid:gid other than root (0); using ${s.user}`);
  }
  for (const backend of SANDBOX_BACKENDS) backend.settings?.read(r, b, where, s);
  if (b.registry !== undefined && b.registry !== null) {
    const at = r.at(where, 'registry');
    const REGISTRY = SANDBOX.keys.registry;
    const g = r.block(b.registry, at, REGISTRY);
    const server = r.field(REGISTRY, g, at, 'server');
    const username = r.field(REGISTRY, g, at, 'username');
    if (server === null || username === null) r.problem(at, 'sandbox.registry needs server and username (and password through ${NAME}); images are pulled anonymously');
    else s.registry = { server, username, password: r.field(REGISTRY, g, at, 'password') };
  }
}

/** A trigger naming a pipeline that does not exist would reject every delivery: say so up front. */
function checkPipelineReferences(r: ConfigReader, config: ServiceConfig): void {
  const known = new Set([...BUILT_IN_PIPELINES, ...Object.keys(config.pipelines)]);
  for (const project of Object.values(config.projects)) {
    for (const [platform, trigger] of Object.entries(project.triggers)) {
      const key = `platform_${platform.slice(-1)}_trigger`;
      const at: Location = { project: project.name, trigger: key, path: `projects.${project.name}.${key}` };
      if (trigger.default_pipeline && !known.has(trigger.default_pipeline)) {
        r.problem(r.at(at, 'default_pipeline'), `default_pipeline names unknown pipeline ${trigger.default_pipeline}`);
      }
      for (const [label, pipeline] of Object.entries(trigger.pipeline_from_label)) {
        if (!known.has(pipeline)) r.problem(r.at(at, `pipeline_from_label.${label}`), `label ${label} names unknown pipeline ${pipeline}`);
      }
    }
  }
}
