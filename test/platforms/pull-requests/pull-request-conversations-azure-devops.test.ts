import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AzureDevOpsPullRequestConversationsClient } from '../../../src/platforms/azure-devops/azure-devops-pull-request-conversations.client.js';
import { AzureDevOpsPullRequestReviewsClient } from '../../../src/platforms/azure-devops/azure-devops-pull-request-reviews.client.js';
import { TrackerError } from '../../../src/platforms/tracker-client.js';
import { AzureDevOpsStandIn } from '../../stand-ins/azure-devops-stand-in.js';

const PAT = 'adoConversationSecretPat0042';
const at = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();

describe('AzureDevOpsPullRequestConversationsClient against the Azure DevOps stand-in', () => {
  let standIn: AzureDevOpsStandIn;
  let client: AzureDevOpsPullRequestConversationsClient;

  beforeEach(async () => {
    standIn = await new AzureDevOpsStandIn(PAT).start();
    client = new AzureDevOpsPullRequestConversationsClient({ repoUrl: standIn.repositoryWebUrl, apiUrl: standIn.organizationUrl, pat: PAT, repository: 'shop-web', http: { sleep: async () => {}, maxAttempts: 1 } });
  });
  afterEach(() => standIn.stop());

  it('self is the PAT’s account (connectionData), asked once', async () => {
    expect(await client.self()).toBe('pipeline-bot@acme.example');
    await client.self();
    expect(standIn.requests.filter((r) => r.path.endsWith('/_apis/connectionData'))).toHaveLength(1);
  });

  it('reads every live comment of every thread: open while active or pending, system threads flagged', async () => {
    const id = standIn.openPullRequest({ head: 'service/42' });
    const general = standIn.addThread(id, 'Looks close.', { uniqueName: 'ana@acme.example', publishedDate: at(1) });
    const inline = standIn.addThread(id, 'Off by one?', { uniqueName: 'ana@acme.example', filePath: '/src/cart.ts', line: 4, publishedDate: at(2) });
    const fixed = standIn.addThread(id, 'Rename this.', { uniqueName: 'bo@acme.example', status: 'fixed', publishedDate: at(3) });
    const pending = standIn.addThread(id, 'Think about it.', { uniqueName: 'bo@acme.example', status: 'pending', publishedDate: at(4) });
    standIn.addThread(id, 'Ana voted -5', { uniqueName: 'ana@acme.example', system: true, publishedDate: at(5) });
    standIn.addReply(id, inline, 'Still wrong.', { uniqueName: 'ana@acme.example', publishedDate: at(6) });
    const gone = standIn.addReply(id, general, 'never mind', { uniqueName: 'bo@acme.example', publishedDate: at(7) });
    standIn.pullRequest(id).threads.find((t) => t.id === general)!.comments.find((c) => c.id === gone)!.isDeleted = true;

    const items = await client.discussion(id);
    expect(items.map((i) => [i.id, i.author, i.body, i.createdAt])).toEqual([
      [`${general}/1`, 'ana@acme.example', 'Looks close.', at(1)],
      [`${inline}/1`, 'ana@acme.example', 'Off by one?', at(2)],
      [`${fixed}/1`, 'bo@acme.example', 'Rename this.', at(3)],
      [`${pending}/1`, 'bo@acme.example', 'Think about it.', at(4)],
      [expect.stringMatching(/\/1$/), 'ana@acme.example', 'Ana voted -5', at(5)],
      [`${inline}/2`, 'ana@acme.example', 'Still wrong.', at(6)],
    ]);
    expect(items.map((i) => [i.resolved, i.system])).toEqual([[false, false], [false, false], [true, false], [false, false], [null, true], [false, false]]);
    expect(items[1]).toMatchObject({ path: 'src/cart.ts', line: 4, threadId: String(inline) });
    expect(items[0]).toMatchObject({ path: null, line: null, threadId: String(general) });

    standIn.setThreadStatus(id, inline, 'closed');
    expect((await client.discussion(id)).filter((i) => i.threadId === String(inline)).map((i) => i.resolved)).toEqual([true, true]);
  });

  it('the service’s own review threads carry its account', async () => {
    const id = standIn.openPullRequest({ head: 'service/42', files: { base: { 'a.txt': '1\n' }, head: { 'a.txt': '2\n' } } });
    const reviews = new AzureDevOpsPullRequestReviewsClient({ repoUrl: standIn.repositoryWebUrl, apiUrl: standIn.organizationUrl, pat: PAT, repository: 'shop-web', http: { sleep: async () => {}, maxAttempts: 1 } });
    await reviews.upsertComment(id, '<!-- pipeline-service -->\nScan passed', '<!-- pipeline-service -->');
    const [own] = await client.discussion(id);
    expect(own).toMatchObject({ author: await client.self(), system: false, resolved: false });
  });

  it('errors name the repository and never carry the PAT', async () => {
    standIn.failNext(1, { status: 500, body: { message: `echo ${PAT}` } });
    const err = await client.discussion(1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrackerError);
    expect((err as TrackerError).message).toContain('repository shop-web');
    expect((err as TrackerError).message).not.toContain(PAT);
  });
});
