import { RELEASE } from '../common/release.js';
import { startsAgentPipelines } from '../config/agent-config.reader.js';
import type { AgentConfig, ProjectConfig } from '../config/service-config.js';
import type { ConfigService } from '../config/config.service.js';
import { type DatabaseService, describe } from '../database/database.service.js';
import type { SandboxBackend } from '../sandbox/sandbox-backend.js';
import type { StoreConnectionService } from '../store/store-connection.service.js';
import { type Finding, FindingSubsystem, finding } from './finding.js';
import type { FindingsService } from './findings.service.js';
import { type StartupProbe, checkFrom } from './startup-probe.js';

const CONFIG_CATEGORY = 'configuration';
const DEPENDENCY_CATEGORY = 'dependencies';

export function configFileProbe(config: ConfigService, findings: FindingsService): StartupProbe {
  return {
    name: 'config-file', subsystem: FindingSubsystem.ConfigFile, category: CONFIG_CATEGORY,
    async run() {
      const own = findings.all().filter((f) => f.subsystem === FindingSubsystem.ConfigFile);
      const check = checkFrom(this, own, `bootstrap file ${config.file.path} is present`, 'create it from config/service.example.yml or set SERVICE_CONFIG');
      if (own.length > 0) check.status = 'skip';
      // Findings stay owned by the configuration load; this probe only reports on them.
      return { findings: [], check };
    },
  };
}

export function configurationProbe(findings: FindingsService): StartupProbe {
  return {
    name: 'configuration', subsystem: FindingSubsystem.Configuration, category: CONFIG_CATEGORY,
    async run() {
      const own = findings.all().filter((f) => f.subsystem === FindingSubsystem.Configuration);
      return { findings: [], check: checkFrom(this, own, 'configuration loads and validates', 'correct the fields the findings name (GET /api/config/findings)') };
    },
  };
}

export function databaseProbe(db: DatabaseService): StartupProbe {
  return {
    name: 'database', subsystem: FindingSubsystem.Database, category: DEPENDENCY_CATEGORY,
    async run() {
      const status = await db.open();
      if (status.state === 'ready') return { findings: [], check: checkFrom(this, [], `database reachable (${db.target})`) };
      const pending = status.state === 'migrations-pending';
      const f = finding(FindingSubsystem.Database, 'blocking',
        pending ? `${db.target}: ${describe(status)}` : `database ${db.target} unreachable: ${describe(status)}; retrying every 15 s`,
        { field: pending ? null : 'DATABASE_URL' });
      const hint = pending ? 'run `npm run migrate` (pipeline-service migrate)' : 'start the database or correct DATABASE_URL';
      return { findings: [f], check: checkFrom(this, [f], '', hint) };
    },
  };
}

export function storeProbe(store: StoreConnectionService): StartupProbe {
  return {
    name: 'redis', subsystem: FindingSubsystem.Redis, category: DEPENDENCY_CATEGORY,
    async run() {
      if (!store.isConfigured) {
        const f = finding(FindingSubsystem.Redis, 'advisory',
          'KVSTORE_URL is not set: the job queue, leader election and the live run feed are disabled', { field: 'KVSTORE_URL' });
        return { findings: [f], check: { ...checkFrom(this, [f], ''), status: 'skip' } };
      }
      if (store.unavailable) {
        const f = finding(FindingSubsystem.Redis, 'blocking', store.unavailable, { field: 'KVSTORE_URL' });
        return { findings: [f], check: checkFrom(this, [f], '', 'install redis-server, or set SERVICE_REDIS_SERVER or KVSTORE_URL') };
      }
      const connected = await store.check(5000);
      if (connected) return { findings: [], check: checkFrom(this, [], `store reachable at ${store.displayUrl}`) };
      const f = finding(FindingSubsystem.Redis, 'blocking',
        `store ${store.displayUrl} unreachable: the job queue, leader election and the live run feed are down until it answers`,
        { field: 'KVSTORE_URL' });
      return { findings: [f], check: checkFrom(this, [f], '', 'start Redis or correct KVSTORE_URL') };
    },
  };
}

export function sandboxBackendProbe(backend: SandboxBackend): StartupProbe {
  return {
    name: 'sandbox-backend', subsystem: FindingSubsystem.SandboxBackend, category: DEPENDENCY_CATEGORY,
    async run() {
      const result = await backend.probe();
      if (result.ok) return { findings: [], check: checkFrom(this, [], result.detail) };
      const f = finding(FindingSubsystem.SandboxBackend, 'blocking', result.reason, { field: 'sandbox.backend' });
      return { findings: [f], check: checkFrom(this, [f], '', result.fixHint) };
    },
  };
}

export function sandboxAgentProbe(config: ConfigService, options: { fetch?: typeof fetch } = {}): StartupProbe {
  return {
    name: 'sandbox-agent', subsystem: FindingSubsystem.SandboxAgent, category: CONFIG_CATEGORY,
    async run() {
      const pinned = config.config.sandbox.agent_version;
      const found: Finding[] = [];
      const passed: string[] = [pinned ? `sandbox agent pinned to this release (${RELEASE})` : 'sandbox agent follows this release'];
      if (pinned !== null && pinned !== RELEASE) {
        passed.length = 0;
        found.push(finding(FindingSubsystem.SandboxAgent, 'advisory',
          `sandbox agent is pinned to ${pinned} but this server is release ${RELEASE}`, { field: 'sandbox.agent_version' }));
      }
      const providers = await checkProjectProviders(Object.values(config.config.projects), options.fetch);
      found.push(...providers.findings);
      passed.push(...providers.passed);
      return { findings: found, check: checkFrom(this, found, passed.join('; '), 'correct the agent fields the findings name') };
    },
  };
}

/** Leaves time within the probe's 10 s for its other work and the answer. */
const PROVIDER_CHECK_TIMEOUT_MS = 8000;

/**
 * Each distinct provider endpoint, key and model that a project able to start agent pipelines
 * would call is reached once; a refusal is a blocking finding naming every project that uses it.
 * Projects whose agent lacks a field already have the configuration's blocking finding.
 */
async function checkProjectProviders(projects: readonly ProjectConfig[], fetchImpl?: typeof fetch): Promise<{ findings: Finding[]; passed: string[] }> {
  const groups = new Map<string, { agent: AgentConfig; projects: string[] }>();
  for (const project of projects) {
    const { agent } = project;
    if (!startsAgentPipelines(project) || !agent.provider || !agent.model || !agent.api_key) continue;
    const key = JSON.stringify([agent.provider, agent.base_url, agent.model, agent.api_key]);
    const group = groups.get(key) ?? { agent, projects: [] };
    group.projects.push(project.name);
    groups.set(key, group);
  }
  if (groups.size === 0) return { findings: [], passed: [] };
  // Loaded only when some project has a model to reach (the AI SDK is heavy to hold for nothing).
  const { checkModelProvider } = await import('../agent/provider-preflight.js');
  const results = await Promise.all([...groups.values()].map(async (group) => ({ group, check: await checkModelProvider(group.agent, { timeoutMs: PROVIDER_CHECK_TIMEOUT_MS, fetch: fetchImpl }) })));
  const findings: Finding[] = [];
  const passed: string[] = [];
  for (const { group, check } of results) {
    if (check.ok) {
      passed.push(check.detail);
      continue;
    }
    for (const project of group.projects) {
      findings.push(finding(FindingSubsystem.SandboxAgent, check.blocking ? 'blocking' : 'advisory',
        `project ${project}: ${check.reason}`, { project, field: `projects.${project}.agent.${check.field}` }));
    }
  }
  return { findings, passed };
}
