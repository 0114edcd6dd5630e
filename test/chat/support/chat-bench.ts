import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Platform } from '../../../src/platforms/platform.js';
import { CONTEXT_FILES } from '../../agent/support/code-scenarios.js';
import { commitFiles } from '../../stand-ins/git-repositories.js';
import { ModelStandIn } from '../../stand-ins/model-stand-in.js';
import { SLACK_TEAM, SlackStandIn } from '../../stand-ins/slack-stand-in.js';
import { type CodeHost, DONE_STATUS, startCodeHost } from '../../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../../workspaces/support/publish-config.js';
import { PublishServer } from '../../workspaces/support/publish-server.js';

/** Channels and the role everyone writing there holds (`chat.channels`). */
export const OPS_CHANNEL = 'C0OPS';
export const READERS_CHANNEL = 'C0READERS';
export const NEEDS_INFO = 'needs-info';
export const DASHBOARD = 'https://pipeline.example';

/**
 * The whole server with Slack configured against the Slack stand-in (`chat.slack.api_url`): the
 * repository and its tickets on the GitHub stand-in, the model stand-in, `ops` channel members
 * operators and `readers` channel members readers.
 */
export class ChatBench {
  private constructor(
    readonly root: string,
    readonly host: CodeHost,
    readonly model: ModelStandIn,
    readonly slack: SlackStandIn,
    readonly server: PublishServer,
  ) {}

  static async start(extra: Record<string, unknown> = {}): Promise<ChatBench> {
    const token = `e2e-chat-${randomBytes(10).toString('hex')}`;
    const apiKey = `sk-model-${randomBytes(10).toString('hex')}`;
    const root = mkdtempSync(join(tmpdir(), 'chat-e2e-'));
    const host = await startCodeHost(Platform.GitHub, root, token, 'greeter');
    commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
    const model = await ModelStandIn.start({ apiKey });
    const slack = await new SlackStandIn(`xoxb-${randomBytes(8).toString('hex')}`, randomBytes(16).toString('hex')).start();
    const own = host.trackerConfig(DONE_STATUS[Platform.GitHub], 'code') as Record<string, Record<string, unknown>>;
    const server = await PublishServer.boot({
      git: GIT_IDENTITY,
      sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
      agent: { provider: 'openai', model: 'gpt-5.1', base_url: model.baseUrl, api_key: apiKey, max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
      projects: { app: { ...own, platform_a_trigger: { ...own['platform_a_trigger'], needs_clarification_status: NEEDS_INFO }, repos: [host.repoEntry()] } },
      chat: {
        slack: { bot_token: slack.botToken, signing_secret: slack.signingSecret, api_url: slack.apiUrl },
        channels: { [`slack:${SLACK_TEAM}/${OPS_CHANNEL}`]: 'operator', [`slack:${SLACK_TEAM}/${READERS_CHANNEL}`]: 'reader' },
        dashboard_url: DASHBOARD,
      },
      ...extra,
    });
    return new ChatBench(root, host, model, slack, server);
  }

  /** POSTs to `/chat/slack` as Slack does (signed unless `headers` say otherwise). */
  async send(body: string, contentType: 'application/json' | 'application/x-www-form-urlencoded', headers: Record<string, string> = this.slack.sign(body)) {
    const res = await this.server.app.inject({ method: 'POST', url: '/chat/slack', headers: { 'content-type': contentType, ...headers }, payload: body });
    return { status: res.statusCode, body: res.body };
  }

  async runsOf(ticket: string): Promise<{ id: string; state: string }[]> {
    const { rows } = await this.server.db.query<{ id: string; state: string }>('SELECT id, state FROM runs WHERE ticket = $1 ORDER BY created_at', [ticket]);
    return rows;
  }

  async stop(): Promise<void> {
    await this.server?.close();
    await this.slack?.stop();
    await this.model?.close();
    await this.host?.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}
