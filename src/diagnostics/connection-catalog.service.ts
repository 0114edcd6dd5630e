import { Inject, Injectable } from '@nestjs/common';
import { AuthorityService } from '../auth/authority.service.js';
import { discoveryUrlOf } from '../auth/authority-probe.js';
import { withTimeout } from '../common/with-timeout.js';
import { ConfigService } from '../config/config.service.js';
import { type AgentConfig, AgentProvider } from '../config/service-config.js';
import { DatabaseService } from '../database/database.service.js';
import { modelConnectionKey } from '../agent/model-connection-key.js';
import { probeHttp, repositoryConnectionOf, trackerConnectionOf, type PlatformConnection, type UnconfiguredConnection } from '../platforms/platform-connections.js';
import type { SandboxBackend } from '../sandbox/sandbox-backend.js';
import { sandboxBackendNamed } from '../sandbox/sandbox-backends.js';
import { SANDBOX_BACKEND } from '../sandbox/sandbox.tokens.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { chatPlatformNamed } from '../chat/chat-platforms.js';
import { ConnectionKind } from './connection-kind.js';
import { credentialFreeUrl } from './target-url.js';

/** One connection of the server, as the configuration describes it now. */
export interface ConnectionEntry {
  /** Stable and unique: `tracker:<project>`, `repository:<project>/<repo>`, `model:<provider>[:<project>]`, `store`, … */
  name: string;
  kind: ConnectionKind;
  project: string | null;
  /** Where it goes, without credentials; null when not known without calling it. */
  target: string | null;
  configured: boolean;
  /** The key its calls are reported under (ConnectionBook); null when none are. */
  observedAs: string | null;
  /** One read-only authenticated round trip, bounded by `timeoutMs`; throws why it failed. */
  probe(timeoutMs: number): Promise<void>;
}

/** Where each provider is reached when `base_url` is not set. */
const DEFAULT_MODEL_ENDPOINT: Partial<Record<AgentProvider, string>> = {
  [AgentProvider.OpenAI]: 'https://api.openai.com/v1',
  [AgentProvider.Anthropic]: 'https://api.anthropic.com/v1',
};

/**
 * Lists the server's connections from the configuration and the services holding them, without
 * calling any: one per project tracker, per repository, per distinct model endpoint, the store,
 * the database, the sandbox backend, the token authority, and each chat platform configured.
 */
@Injectable()
export class ConnectionCatalog {
  /** What a probe of the sandbox backend learned of its address (a cluster's server is known only then). */
  private sandboxTarget: string | null = null;

  constructor(
    private readonly config: ConfigService,
    private readonly store: StoreConnectionService,
    private readonly db: DatabaseService,
    @Inject(SANDBOX_BACKEND) private readonly backend: SandboxBackend,
    private readonly authority: AuthorityService,
  ) {}

  entries(): ConnectionEntry[] {
    const all = [...this.platformEntries(), ...this.modelEntries(), ...this.chatEntries(), this.storeEntry(), this.databaseEntry(), this.sandboxEntry(), this.authorityEntry()];
    const seen = new Set<string>();
    // Names are unique by construction; should two configured names still collide, the later one is numbered.
    return all.map((entry) => {
      let name = entry.name;
      for (let n = 2; seen.has(name); n++) name = `${entry.name}#${n}`;
      seen.add(name);
      return { ...entry, name };
    });
  }

  private platformEntries(): ConnectionEntry[] {
    const out: ConnectionEntry[] = [];
    for (const project of Object.values(this.config.config.projects)) {
      out.push(platformEntry(`tracker:${project.name}`, ConnectionKind.Tracker, project.name,
        (timeoutMs) => trackerConnectionOf(project, probeHttp(timeoutMs))));
      for (const repo of project.repos) {
        out.push(platformEntry(`repository:${project.name}/${repo.name}`, ConnectionKind.Repository, project.name,
          (timeoutMs) => repositoryConnectionOf(repo, probeHttp(timeoutMs))));
      }
    }
    return out;
  }

  /** One entry per distinct endpoint and key: the top-level agent's, then each project's own where it differs. */
  private modelEntries(): ConnectionEntry[] {
    const { config } = this.config;
    const agents: { agent: AgentConfig; project: string | null }[] = [{ agent: config.agent, project: null }];
    for (const project of Object.values(config.projects)) agents.push({ agent: project.agent, project: project.name });
    const byEndpoint = new Map<string, ConnectionEntry>();
    for (const { agent, project } of agents) {
      if (agent.provider === null) continue;
      const endpoint = JSON.stringify([agent.provider, agent.base_url, agent.model, agent.api_key]);
      if (byEndpoint.has(endpoint)) continue;
      const configured = agent.model !== null && agent.api_key !== null && (agent.base_url !== null || DEFAULT_MODEL_ENDPOINT[agent.provider] !== undefined);
      byEndpoint.set(endpoint, {
        name: project === null ? `model:${agent.provider}` : `model:${agent.provider}:${project}`,
        kind: ConnectionKind.Model, project,
        target: credentialFreeUrl(agent.base_url ?? DEFAULT_MODEL_ENDPOINT[agent.provider]),
        configured, observedAs: modelConnectionKey(agent),
        async probe(timeoutMs) {
          // The AI SDK is loaded only when a model is probed (it is heavy to hold for nothing).
          const { checkModelProvider } = await import('../agent/provider-preflight.js');
          const check = await checkModelProvider(agent, { timeoutMs, observe: false });
          if (!check.ok) throw new Error(check.reason);
        },
      });
    }
    return [...byEndpoint.values()];
  }

  /** One per chat platform with a block under `chat:` (configured: nothing required is missing). */
  private chatEntries(): ConnectionEntry[] {
    return Object.entries(this.config.config.chat.platforms).flatMap(([name, block]) => {
      const platform = chatPlatformNamed(name);
      if (!platform) return [];
      return [{
        name: `chat:${name}`, kind: ConnectionKind.Chat, project: null, configured: platform.problems(block).length === 0, observedAs: null,
        target: credentialFreeUrl(platform.apiTarget(block)),
        probe: (timeoutMs: number) => platform.probe(block, timeoutMs),
      }];
    });
  }

  private storeEntry(): ConnectionEntry {
    const { store } = this;
    const url = this.config.env.kvstoreUrl;
    return {
      name: 'store', kind: ConnectionKind.Store, project: null, configured: store.isConfigured, observedAs: STORE_KEY,
      target: credentialFreeUrl(url),
      async probe(timeoutMs) {
        if (!store.client) throw new Error('KVSTORE_URL is not set: there is no store');
        const answer = await withTimeout(store.client.ping(), timeoutMs, `PING: no answer within ${timeoutMs} ms (timed out)`);
        if (answer !== 'PONG') throw new Error(`PING answered ${String(answer).slice(0, 100)}`);
      },
    };
  }

  private databaseEntry(): ConnectionEntry {
    const { db } = this;
    const url = this.config.env.databaseUrl;
    return {
      name: 'database', kind: ConnectionKind.Database, project: null, configured: true, observedAs: DATABASE_KEY,
      // The embedded database listens on a socket under SERVICE_DATA_DIR: no URL to show.
      target: url === null ? null : credentialFreeUrl(url),
      async probe(timeoutMs) {
        await withTimeout(db.dataSource.query('SELECT 1'), timeoutMs, `SELECT 1: no answer within ${timeoutMs} ms (timed out)`);
      },
    };
  }

  private sandboxEntry(): ConnectionEntry {
    const { sandbox } = this.config.config;
    const env = this.config.env.variables;
    // What the configuration says of the backend's address (an engine's); else what a probe learnt.
    const configured = sandboxBackendNamed(sandbox.backend)?.target(sandbox, env) ?? null;
    return {
      name: 'sandbox', kind: ConnectionKind.Sandbox, project: null, configured: true, observedAs: SANDBOX_KEY,
      target: configured ?? this.sandboxTarget,
      probe: async (timeoutMs) => {
        const answer = await withTimeout(this.backend.version(), timeoutMs, `${sandbox.backend}: no answer within ${timeoutMs} ms (timed out)`);
        this.sandboxTarget = credentialFreeUrl(answer.target);
      },
    };
  }

  private authorityEntry(): ConnectionEntry {
    const authority = this.config.config.auth?.authority ?? null;
    const url = authority === null ? null : discoveryUrlOf(authority);
    return {
      name: 'authority', kind: ConnectionKind.Authority, project: null, configured: authority !== null, observedAs: AUTHORITY_KEY,
      target: credentialFreeUrl(url),
      async probe(timeoutMs) {
        if (url === null) throw new Error('auth.authority is not set: there is no token authority');
        await fetchDiscovery(url, timeoutMs);
      },
    };
  }

  /** The authority probe's own record (startup and every 30 s), for the snapshot. */
  authorityStatus(): { lastOk: Date | null; lastError: { at: Date; message: string } | null } {
    const status = this.authority.probe?.status();
    if (!status) return { lastOk: null, lastError: null };
    const failed = status.state === 'unreachable' && status.lastChecked !== null;
    return { lastOk: status.lastReachable, lastError: failed ? { at: status.lastChecked!, message: status.cause ?? 'unreachable' } : null };
  }
}

export const STORE_KEY = 'store';
export const DATABASE_KEY = 'database';
export const SANDBOX_KEY = 'sandbox';
export const AUTHORITY_KEY = 'authority';

function platformEntry(name: string, kind: ConnectionKind, project: string, connect: (timeoutMs: number) => PlatformConnection | UnconfiguredConnection): ConnectionEntry {
  const described = connect(30_000);
  const configured = !('unconfigured' in described);
  return {
    name, kind, project, configured,
    target: credentialFreeUrl(described.target),
    observedAs: configured ? described.observedAs : null,
    async probe(timeoutMs) {
      const connection = connect(timeoutMs);
      if ('unconfigured' in connection) throw new Error(`not configured: ${connection.unconfigured}`);
      await connection.probe();
    },
  };
}

/** GET the OpenID Connect discovery document; it must be a JSON object naming an issuer. */
async function fetchDiscovery(url: string, timeoutMs: number): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' }, redirect: 'manual' });
  } catch (error) {
    const name = (error as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new Error(`discovery document: no answer within ${timeoutMs} ms (timed out)`);
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    throw new Error(`discovery document: ${typeof cause?.code === 'string' ? `${cause.code} ` : ''}${String(cause?.message ?? (error as Error).message)}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`discovery document answered HTTP ${res.status}`);
  }
  const body: unknown = await res.json().catch(() => null);
  if (typeof body !== 'object' || body === null || typeof (body as { issuer?: unknown }).issuer !== 'string') {
    throw new Error('discovery document is not a JSON object with an issuer');
  }
}
