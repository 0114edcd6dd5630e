import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Platform } from '../../../src/platforms/platform.js';
import { CONTEXT_FILES } from '../../agent/support/code-scenarios.js';
import { commitFiles } from '../../stand-ins/git-repositories.js';
import { JiraStandIn } from '../../stand-ins/jira-stand-in.js';
import { ModelStandIn } from '../../stand-ins/model-stand-in.js';
import { eventually } from '../../support/eventually.js';
import type { AzureDevOpsStandIn } from '../../stand-ins/azure-devops-stand-in.js';
import { type CodeHost, DONE_STATUS, type HostKind, startCodeHost } from '../../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../../workspaces/support/publish-config.js';
import { PublishServer } from '../../workspaces/support/publish-server.js';

/** The status a parked ticket moves to (`needs_clarification_status`): a label on GitHub and GitLab, a workflow status on Jira and Azure DevOps. */
export const NEEDS_INFO = 'needs-info';
export const JIRA_NEEDS_INFO = 'Needs Info';
const TRIGGER_KEY = { [Platform.GitHub]: 'platform_a_trigger', [Platform.GitLab]: 'platform_b_trigger', [Platform.AzureDevOps]: 'platform_c_trigger' } as const;
const JIRA_USER = 'pipeline-bot@acme.example';

export interface RunState {
  state: string;
  error: string | null;
  finishedAt: Date | null;
}

/**
 * The whole server for the hand-back tests: the repository on a code host's stand-in (GitHub
 * unless `kind` says otherwise; a real git remote behind it), tickets there too (work items on
 * Azure DevOps) or on the Jira stand-in (`tracker: 'jira'`, project key
 * APP), the model stand-in over the OpenAI Responses API, and a project whose trigger block names
 * `needs_clarification_status`. No webhook secret is configured, so deliveries are taken
 * unsigned, as the platform routes do for an unset secret.
 */
export class HandBackBench {
  private constructor(
    readonly root: string,
    readonly host: CodeHost,
    readonly model: ModelStandIn,
    readonly server: PublishServer,
    readonly jira: JiraStandIn | null,
  ) {}

  static async start(tracker: 'host' | 'jira' = 'host', kind: HostKind = Platform.GitHub): Promise<HandBackBench> {
    const token = `e2e-hand-back-${randomBytes(10).toString('hex')}`;
    const apiKey = `sk-model-${randomBytes(10).toString('hex')}`;
    const root = mkdtempSync(join(tmpdir(), 'hand-back-e2e-'));
    const host = await startCodeHost(kind, root, token, 'greeter');
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    const model = await ModelStandIn.start({ apiKey });
    const jira = tracker === 'jira' ? await new JiraStandIn(JIRA_USER, `jira-${randomBytes(8).toString('hex')}`).start() : null;
    jira?.statuses.push(JIRA_NEEDS_INFO);
    const own = host.trackerConfig(DONE_STATUS[kind], 'code') as Record<string, Record<string, unknown>>;
    const needsInfo = kind === Platform.AzureDevOps ? JIRA_NEEDS_INFO : NEEDS_INFO;
    if (kind === Platform.AzureDevOps) (host.standIn as AzureDevOpsStandIn).states.push(needsInfo);
    const trackerConfig = jira
      ? {
          tracker: 'platform-d',
          platform_d_trigger: {
            site_url: jira.siteUrl, project_key: 'APP', credentials: `${JIRA_USER}:${jira.apiToken}`,
            trigger_statuses: ['Ready for Agent'], default_pipeline: 'code', done_status: 'Done', needs_clarification_status: JIRA_NEEDS_INFO,
          },
        }
      : { ...own, [TRIGGER_KEY[kind]]: { ...own[TRIGGER_KEY[kind]], needs_clarification_status: needsInfo } };
    const server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
      agent: { provider: 'openai', model: 'gpt-5.1', base_url: model.baseUrl, api_key: apiKey, max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
      projects: { app: { ...trackerConfig, repos: [host.repoEntry()] } },
    });
    return new HandBackBench(root, host, model, server, jira);
  }

  async stop(): Promise<void> {
    await this.server?.close();
    await this.model?.close();
    await this.jira?.stop();
    await this.host?.stop();
    rmSync(this.root, { recursive: true, force: true });
  }

  /** The repository's web URL, which routes GitHub deliveries to the project. */
  get repositoryUrl(): string {
    return String(this.host.repoEntry()['url']);
  }

  async run(runId: string): Promise<RunState> {
    const { rows } = await this.server.db.query<{ state: string; error: string | null; finished_at: Date | null }>(
      'SELECT state, error, finished_at FROM runs WHERE id = $1', [runId]);
    const row = rows[0];
    if (!row) throw new Error(`no run ${runId}`);
    return { state: row.state, error: row.error, finishedAt: row.finished_at };
  }

  /** Waits for the run to park (fails at once if it ends instead). */
  async parked(runId: string, timeoutMs = 30_000): Promise<RunState> {
    return eventually(async () => {
      const run = await this.run(runId);
      if (['succeeded', 'failed', 'cancelled'].includes(run.state)) throw new Error(`run ${runId} ended ${run.state} instead of parking: ${run.error}`);
      return run.state === 'parked' ? run : undefined;
    }, timeoutMs, `run ${runId} to park`);
  }

  /** The `run_questions` row of a run. */
  async question(runId: string): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.server.db.query('SELECT * FROM run_questions WHERE run_id = $1', [runId]);
    return rows[0] as Record<string, unknown> | undefined;
  }

  async post(url: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await this.server.app.inject({ method: 'POST', url, ...(body === undefined ? {} : { payload: body as Record<string, unknown> }) });
    return { status: res.statusCode, body: res.json() };
  }

  /** A GitHub delivery to the platform route; answers status and text. */
  async deliver(event: string, payload: Record<string, unknown>): Promise<{ status: number; body: string }> {
    const res = await this.server.app.inject({
      method: 'POST', url: '/webhook/platform-a',
      headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': randomBytes(8).toString('hex') },
      payload: JSON.stringify(payload),
    });
    return { status: res.statusCode, body: res.body };
  }

  /** A Jira delivery (unsigned: the project has no secret); answers status and text. */
  async deliverJira(payload: Record<string, unknown>): Promise<{ status: number; body: string }> {
    const res = await this.server.app.inject({
      method: 'POST', url: '/webhook/platform-d',
      headers: { 'content-type': 'application/json', 'x-atlassian-webhook-identifier': randomBytes(8).toString('hex') },
      payload: JSON.stringify(payload),
    });
    return { status: res.statusCode, body: res.body };
  }
}
