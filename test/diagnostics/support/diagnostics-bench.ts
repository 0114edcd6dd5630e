import net from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppModuleOptions } from '../../../src/app.module.js';
import { AzureDevOpsStandIn } from '../../stand-ins/azure-devops-stand-in.js';
import { GitHubStandIn } from '../../stand-ins/github-stand-in.js';
import { GitLabStandIn } from '../../stand-ins/gitlab-stand-in.js';
import { JiraStandIn } from '../../stand-ins/jira-stand-in.js';
import { ModelStandIn } from '../../stand-ins/model-stand-in.js';
import { OidcAuthority } from '../../stand-ins/oidc-authority.js';
import { bootApp, preflightDone } from '../../support/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { createTestEnv, type TestEnv } from '../../support/test-env.js';

/** Every credential the bench configures: none may ever appear in an answer. */
export const SECRETS = {
  github: 'ghp_diagGitHubToken0123456789',
  gitlab: 'glpat-diagGitLabToken01234',
  ado: 'adoDiagPat0123456789abcdef',
  jira: 'jiraDiagApiToken0123456789',
  model: 'sk-diag-model-key-0123456789',
  jiraWebhook: 'jira-diag-webhook-secret-0123',
  githubWebhook: 'github-diag-webhook-secret-0123',
} as const;

/** A TCP listener that accepts connections and never answers: a host gone silent. */
export interface SilentListener {
  url: string;
  close(): Promise<void>;
}

export async function startSilentListener(): Promise<SilentListener> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((done) => server.close(done));
    },
  };
}

export interface DiagnosticsBench {
  app: NestFastifyApplication;
  idp: OidcAuthority;
  github: GitHubStandIn;
  gitlab: GitLabStandIn;
  ado: AzureDevOpsStandIn;
  jira: JiraStandIn;
  model: ModelStandIn;
  silent: SilentListener;
  /** Requests the tracker and model stand-ins received, in total. */
  outboundRequests(): number;
  clearRequests(): void;
  close(): Promise<void>;
}

/**
 * The real server (PostgreSQL, Redis, in-process sandbox, enforcement on against the OIDC
 * stand-in) with one project per tracker stand-in, a model endpoint on the model stand-in, and a
 * project whose Jira site is a silent listener. `sub:root` is the bootstrap admin.
 */
export async function startDiagnosticsBench(label: string, options: AppModuleOptions = {}): Promise<DiagnosticsBench> {
  const idp = await OidcAuthority.start();
  const github = await new GitHubStandIn(SECRETS.github).start();
  const gitlab = await new GitLabStandIn(SECRETS.gitlab).start();
  const ado = await new AzureDevOpsStandIn(SECRETS.ado).start();
  const jira = await new JiraStandIn('bot@acme.example', SECRETS.jira).start();
  const model = await ModelStandIn.start({ apiKey: SECRETS.model });
  const silent = await startSilentListener();
  let db: TestDatabase | null = null;
  let env: TestEnv | null = null;
  try {
    db = await createTestDatabase(label);
    env = createTestEnv(label, {
      databaseUrl: db.url,
      config: {
        sandbox: { backend: 'in-process' },
        agent: { provider: 'openai', model: 'stand-in-model', base_url: model.baseUrl, api_key: SECRETS.model },
        projects: {
          shop: {
            tracker: 'platform-a',
            repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', api_url: github.apiUrl, auth_secret: SECRETS.github }],
          },
          billing: {
            tracker: 'platform-b',
            repos: [{ name: 'billing', platform: 'platform-b', url: 'https://gitlab.example/fin/billing', api_url: gitlab.apiUrl, auth_secret: SECRETS.gitlab }],
          },
          boards: {
            tracker: 'platform-c',
            platform_c_trigger: { trigger_statuses: ['Ready for Agent'], organization_url: ado.organizationUrl, team_project: 'Shop', credentials: SECRETS.ado },
            repos: [{ name: 'shop-web', platform: 'platform-c', url: ado.repositoryWebUrl, api_url: ado.organizationUrl, auth_secret: SECRETS.ado }],
          },
          issues: {
            tracker: 'platform-d',
            platform_d_trigger: { trigger_statuses: ['Ready for Agent'], site_url: jira.siteUrl, project_key: 'BILL', credentials: `bot@acme.example:${SECRETS.jira}`, secret: SECRETS.jiraWebhook },
          },
          quiet: {
            tracker: 'platform-d',
            platform_d_trigger: { trigger_statuses: ['Ready for Agent'], site_url: silent.url, project_key: 'QUIET', credentials: `bot@acme.example:${SECRETS.jira}` },
          },
        },
      },
      vars: {
        SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true',
        SERVICE_ADMIN_GRANT: 'sub:root', PLATFORM_A_WEBHOOK_SECRET: SECRETS.githubWebhook,
      },
    });
    const app = await bootApp(env.env, options);
    await preflightDone(app);
    const standIns = [github, gitlab, ado, jira];
    const openDb = db;
    const openEnv = env;
    return {
      app, idp, github, gitlab, ado, jira, model, silent,
      outboundRequests: () => standIns.reduce((n, s) => n + s.requests.length, 0) + model.requests.length,
      clearRequests() {
        for (const standIn of standIns) standIn.clearRequests();
        model.requests.length = 0;
      },
      async close() {
        await app.close();
        await openDb.drop().catch(() => undefined);
        openEnv.remove();
        await Promise.all([...standIns.map((s) => s.stop()), model.close(), silent.close(), idp.stop()]);
      },
    };
  } catch (error) {
    await db?.drop().catch(() => undefined);
    env?.remove();
    await Promise.all([github.stop(), gitlab.stop(), ado.stop(), jira.stop(), model.close(), silent.close(), idp.stop()]);
    throw error;
  }
}
