import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Platform } from '../../src/platforms/platform.js';
import { CONTEXT_FILES } from '../agent/support/code-scenarios.js';
import { BotFrameworkStandIn, type SentActivity } from '../stand-ins/bot-framework-stand-in.js';
import { TEAMS_USER, type TeamsActivityContext, teamsMessageActivity } from '../stand-ins/bot-framework-activities.js';
import { commitFiles } from '../stand-ins/git-repositories.js';
import { CHAT_SPACE, CHAT_USER, type ChatSpace, chatMessageEvent } from '../stand-ins/google-chat-events.js';
import { GoogleChatStandIn } from '../stand-ins/google-chat-stand-in.js';
import { ModelStandIn } from '../stand-ins/model-stand-in.js';
import { eventually } from '../support/eventually.js';
import { type CodeHost, DONE_STATUS, startCodeHost } from '../workspaces/support/code-hosts.js';
import { GIT_IDENTITY } from '../workspaces/support/publish-config.js';
import { PublishServer } from '../workspaces/support/publish-server.js';

/**
 * Microsoft Teams and Google Chat end to end: the whole server with both configured against
 * their stand-ins (Bot Framework: OpenID metadata, token endpoint, Connector API at the
 * activity's serviceUrl; Google Chat: the Chat account's keys, the key file's token_uri, the Chat
 * API at api_url), the real Chat SDK adapters inside, signed activities and events in. What each
 * platform shows (the stand-ins' messages and their edits) and what the database holds are asserted.
 */
const APP_ID = 'a1b2c3d4-0000-4000-8000-00000000c0de';
const APP_PASSWORD = `teams-${randomBytes(8).toString('hex')}`;
const PROJECT_NUMBER = '734928105562';
const OPS_TEAMS_CHANNEL = '19:0ps0c7be1d94b0a9f3c6e5d2b1a0c9f@thread.tacv2';
const OTHER_TEAMS_CHANNEL = '19:0th3r7be1d94b0a9f3c6e5d2b1a0c9f@thread.tacv2';
const OTHER_SPACE: ChatSpace = { ...CHAT_SPACE, name: 'spaces/AAQAotherSp', displayName: 'Elsewhere' };
const GCHAT_DOMAIN = CHAT_USER.email.split('@')[1]!;

let root: string;
let host: CodeHost;
let model: ModelStandIn;
let teams: BotFrameworkStandIn;
let gchat: GoogleChatStandIn;
let server: PublishServer;

beforeAll(async () => {
  const token = `e2e-chat-${randomBytes(10).toString('hex')}`;
  const apiKey = `sk-model-${randomBytes(10).toString('hex')}`;
  root = mkdtempSync(join(tmpdir(), 'chat-teams-gchat-'));
  host = await startCodeHost(Platform.GitHub, root, token, 'greeter');
  commitFiles(host.bare, 'main', CONTEXT_FILES, 'Add the contexts');
  model = await ModelStandIn.start({ apiKey });
  teams = await new BotFrameworkStandIn({ appId: APP_ID, appPassword: APP_PASSWORD }).start();
  teams.addMember({ id: TEAMS_USER.id, name: TEAMS_USER.name, aadObjectId: TEAMS_USER.aadObjectId, email: 'megan@contoso.example', userPrincipalName: 'megan@contoso.example' });
  gchat = await new GoogleChatStandIn({ projectNumber: PROJECT_NUMBER }).start();
  server = await PublishServer.boot({
    git: GIT_IDENTITY,
    sandbox: { backend: 'in-process', cpu: 1, memory: '1Gi', allow_agents_in_process: true },
    agent: { provider: 'openai', model: 'gpt-5.1', base_url: model.baseUrl, api_key: apiKey, max_steps: 20, step_timeout_seconds: 120, requests_per_minute: 6000 },
    projects: { app: { ...host.trackerConfig(DONE_STATUS[Platform.GitHub], 'code'), repos: [host.repoEntry()] } },
    chat: {
      teams: { app_id: APP_ID, app_password: APP_PASSWORD, tenant_id: teams.tenantId, openid_metadata_url: teams.openIdMetadataUrl, token_url: teams.tokenUrl },
      gchat: { credentials: JSON.stringify(gchat.serviceAccount), project_number: PROJECT_NUMBER, api_url: gchat.apiUrl, jwks_url: gchat.jwksUrl, bot_user_id: gchat.appUserName },
      channels: { [`teams:${teams.tenantId}/${OPS_TEAMS_CHANNEL}`]: 'operator', [`gchat:${GCHAT_DOMAIN}/${CHAT_SPACE.name}`]: 'operator' },
      dashboard_url: 'https://pipeline.example',
    },
  });
}, 90_000);

afterAll(async () => {
  await server?.close();
  await teams?.stop();
  await gchat?.stop();
  await model?.close();
  await host?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function post(platform: 'teams' | 'gchat', body: Record<string, unknown>, authorization: string | null) {
  const res = await server.app.inject({
    method: 'POST', url: `/chat/${platform}`, payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) },
  });
  return { status: res.statusCode, body: res.body };
}

async function runsOf(ticket: string): Promise<{ id: string; state: string }[]> {
  const { rows } = await server.db.query<{ id: string; state: string }>('SELECT id, state FROM runs WHERE ticket = $1 ORDER BY created_at', [ticket]);
  return rows;
}

function scriptGreeting(title: string): void {
  model.script({ match: title, turns: [
    { toolCalls: [{ name: 'write_file', input: { path: 'greeting.txt', content: 'hello\n' } }] },
    { toolCalls: [{ name: 'finish', input: { summary: 'Added greeting.txt.' } }] },
  ] });
}

async function succeeded(ticket: string): Promise<{ id: string; prUrl: string }> {
  const [run] = await eventually(async () => ((await runsOf(ticket)).length ? runsOf(ticket) : undefined), 15_000, `the run of #${ticket}`);
  await eventually(async () => ((await runsOf(ticket))[0]?.state === 'succeeded' ? true : undefined), 60_000, `the run of #${ticket} to succeed`);
  const resource = await server.get<{ pullRequests: { url: string }[] }>(`/api/runs/${run!.id}`);
  return { id: run!.id, prUrl: resource.body.pullRequests[0]!.url };
}

describe('chat on Microsoft Teams', () => {
  const ctx = (conversationId = OPS_TEAMS_CHANNEL): TeamsActivityContext => ({
    serviceUrl: teams.serviceUrl, botAppId: APP_ID, botName: 'pipeline', tenantId: teams.tenantId, scope: 'channel', user: TEAMS_USER,
    conversationId, team: { id: '19:3e1d5f7a9b2c4d6e8f0a1b3c5d7e9f0a@thread.tacv2', aadGroupId: '0d7c3b2a-9e8f-4a6b-8c1d-5e4f3a2b1c0d', name: 'Billing' },
  });
  const sentIn = (activity: Record<string, unknown>): SentActivity[] => teams.sentTo((activity['conversation'] as { id: string }).id);
  const textOf = (a: Record<string, unknown>) => String(a['text'] ?? '');

  it('a signed mention starts a code run on a GitHub ticket and the thread\'s one message ends with the pull request', async () => {
    host.addTicket('61', 'Greet the Teams users', 'Add greeting.txt saying hello.');
    scriptGreeting('Greet the Teams users');
    const activity = teamsMessageActivity(ctx(), 'fix app#61', { mentionBot: true });
    expect((await post('teams', activity, `Bearer ${teams.mintActivityToken()}`)).status).toBe(200);
    const { id, prUrl } = await succeeded('61');
    const sent = await eventually(() => {
      const out = sentIn(activity).filter((a) => !a.deleted);
      return out.length === 1 && textOf(out[0]!.activity).includes(prUrl) ? out : undefined;
    }, 20_000, 'the thread\'s message to name the pull request');
    // One activity, posted once and replaced (PUT) as the run moved, linking the run's page.
    const message = sent[0]!;
    expect(textOf(message.versions[0]!)).toMatch(/admitted/);
    expect(message.versions.length).toBeGreaterThan(1);
    expect(textOf(message.activity)).toContain(`https://pipeline.example/runs/${id}`);
  }, 120_000);

  it('an unsigned activity, a forged token and a token for another serviceUrl get 401 and start nothing', async () => {
    host.addTicket('62', 'Never started on Teams', 'x');
    const activity = teamsMessageActivity(ctx(), 'fix app#62', { mentionBot: true });
    expect((await post('teams', activity, null)).status).toBe(401);
    expect((await post('teams', activity, `Bearer ${teams.mintActivityToken({ foreignKey: true })}`)).status).toBe(401);
    expect((await post('teams', activity, `Bearer ${teams.mintActivityToken({ audience: 'another-bot' })}`)).status).toBe(401);
    expect((await post('teams', activity, `Bearer ${teams.mintActivityToken({ serviceUrl: 'https://attacker.example/' })}`)).status).toBe(401);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await runsOf('62')).toEqual([]);
    expect(sentIn(activity)).toEqual([]);
  });

  it('a redelivered activity (same id) starts nothing new, and a user without runs.control is refused naming it', async () => {
    host.addTicket('63', 'Once on Teams', 'x');
    model.script({ match: 'Once on Teams', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Nothing to change.' } }] }] });
    const activity = teamsMessageActivity(ctx(), 'fix app#63', { mentionBot: true });
    expect((await post('teams', activity, `Bearer ${teams.mintActivityToken()}`)).status).toBe(200);
    expect((await post('teams', activity, `Bearer ${teams.mintActivityToken()}`)).status).toBe(200);
    await eventually(async () => ((await runsOf('63')).length ? true : undefined), 15_000, 'the run of #63');
    await new Promise((r) => setTimeout(r, 2000));
    expect(await runsOf('63')).toHaveLength(1);

    host.addTicket('64', 'Not from elsewhere', 'x');
    const elsewhere = teamsMessageActivity(ctx(OTHER_TEAMS_CHANNEL), 'fix app#64', { mentionBot: true });
    expect((await post('teams', elsewhere, `Bearer ${teams.mintActivityToken()}`)).status).toBe(200);
    const refusal = await eventually(() => sentIn(elsewhere)[0], 15_000, 'the refusal');
    expect(textOf(refusal.activity)).toContain('runs.control');
    expect(textOf(refusal.activity)).toContain(`teams:${teams.tenantId}/${TEAMS_USER.aadObjectId}`);
    expect(await runsOf('64')).toEqual([]);
  }, 60_000);
});

describe('chat on Google Chat', () => {
  const mention = { name: '', displayName: 'pipeline-service' };
  const event = (text: string, space: ChatSpace = CHAT_SPACE) => chatMessageEvent(text, { space, mention: { ...mention, name: gchat.appUserName } });
  const repliesIn = (space: ChatSpace) => gchat.messagesIn(space.name).filter((m) => !m.deleted);
  const textOf = (m: Record<string, unknown>) => String(m['text'] ?? '');

  it('a signed mention starts a code run on a GitHub ticket and the thread\'s one message ends with the pull request', async () => {
    host.addTicket('71', 'Greet the Chat users', 'Add greeting.txt saying hello.');
    scriptGreeting('Greet the Chat users');
    const sentEvent = event('fix app#71');
    expect((await post('gchat', sentEvent, `Bearer ${gchat.mintChatToken()}`)).status).toBe(200);
    const { id, prUrl } = await succeeded('71');
    const thread = ((sentEvent['chat'] as any).messagePayload.message.thread as { name: string }).name;
    const mine = () => repliesIn(CHAT_SPACE).filter((m) => (m.message['thread'] as { name?: string } | undefined)?.name === thread);
    const sent = await eventually(() => (mine().length === 1 && textOf(mine()[0]!.message).includes(prUrl) ? mine() : undefined), 20_000, 'the thread\'s message to name the pull request');
    const message = sent[0]!;
    expect(textOf(message.versions[0]!)).toMatch(/admitted/);
    expect(message.versions.length).toBeGreaterThan(1);
    expect(textOf(message.message)).toContain(`https://pipeline.example/runs/${id}`);
  }, 120_000);

  it('an unsigned event, a token of another audience and one signed by a foreign key get 401 and start nothing', async () => {
    host.addTicket('72', 'Never started on Chat', 'x');
    const before = repliesIn(CHAT_SPACE).length;
    const sentEvent = event('fix app#72');
    expect((await post('gchat', sentEvent, null)).status).toBe(401);
    expect((await post('gchat', sentEvent, `Bearer ${gchat.mintChatToken({ audience: '999999999999' })}`)).status).toBe(401);
    expect((await post('gchat', sentEvent, `Bearer ${gchat.mintChatToken({ foreignKey: true })}`)).status).toBe(401);
    expect((await post('gchat', sentEvent, `Bearer ${gchat.mintChatToken({ expiresIn: -600 })}`)).status).toBe(401);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await runsOf('72')).toEqual([]);
    expect(repliesIn(CHAT_SPACE)).toHaveLength(before);
  });

  it('a redelivered event (same message) starts nothing new, and a user without runs.control is refused naming it', async () => {
    host.addTicket('73', 'Once on Chat', 'x');
    model.script({ match: 'Once on Chat', turns: [{ toolCalls: [{ name: 'finish', input: { summary: 'Nothing to change.' } }] }] });
    const sentEvent = event('fix app#73');
    expect((await post('gchat', sentEvent, `Bearer ${gchat.mintChatToken()}`)).status).toBe(200);
    expect((await post('gchat', sentEvent, `Bearer ${gchat.mintChatToken()}`)).status).toBe(200);
    await eventually(async () => ((await runsOf('73')).length ? true : undefined), 15_000, 'the run of #73');
    await new Promise((r) => setTimeout(r, 2000));
    expect(await runsOf('73')).toHaveLength(1);

    host.addTicket('74', 'Not from the other space', 'x');
    expect((await post('gchat', event('fix app#74', OTHER_SPACE), `Bearer ${gchat.mintChatToken()}`)).status).toBe(200);
    const refusal = await eventually(() => repliesIn(OTHER_SPACE)[0], 15_000, 'the refusal');
    expect(textOf(refusal.message)).toContain('runs.control');
    expect(textOf(refusal.message)).toContain(`gchat:${GCHAT_DOMAIN}/${CHAT_USER.name}`);
    expect(await runsOf('74')).toEqual([]);
  }, 60_000);
});
