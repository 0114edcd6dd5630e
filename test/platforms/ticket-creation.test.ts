import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureDevOpsTrackerClient } from '../../src/platforms/azure-devops/azure-devops-tracker.client.js';
import { JiraTrackerClient } from '../../src/platforms/jira/jira-tracker.client.js';
import { TrackerError } from '../../src/platforms/tracker-client.js';
import { AzureDevOpsStandIn } from '../stand-ins/azure-devops-stand-in.js';
import { JiraStandIn } from '../stand-ins/jira-stand-in.js';

/**
 * Filing tickets where the end-to-end dialogue test does not go: Jira Data Center (no REST v3:
 * the wiki-markup fallback), a work item type the process lacks, hostile text in the HTML field,
 * and a Jira label with spaces. Each through the real client over HTTP to its stand-in.
 */
const http = { sleep: async () => {}, random: () => 0, maxAttempts: 1 };
const draft = { title: 'Round totals', body: 'Why: <b>cents</b> & "euros".\nSecond line.', criteria: ['totals in cents', 'a <script>x</script> line\nbroken'], labels: ['design team'], type: null };

describe('filing tickets', () => {
  let jira: JiraStandIn;
  let ado: AzureDevOpsStandIn;

  beforeAll(async () => {
    jira = await new JiraStandIn('bot@acme.example', 'jira-token').start();
    ado = await new AzureDevOpsStandIn('ado-pat').start();
  });
  afterAll(async () => {
    await jira.stop();
    await ado.stop();
  });

  it('Jira Data Center: v3 is a 404, so the issue is filed on v2 with the criteria in wiki markup and labels without spaces', async () => {
    jira.flavour = 'datacenter';
    const client = new JiraTrackerClient({ siteUrl: jira.siteUrl, credentials: 'bot@acme.example:jira-token', projectKey: 'OPS', http });
    const created = await client.createTicket(draft);
    expect(created).toEqual({ ticket: 'OPS-1', url: `${jira.siteUrl}/browse/OPS-1` });
    const issue = jira.issues.get('OPS-1')!;
    expect(issue.description).toBe('Why: <b>cents</b> & "euros".\nSecond line.\n\nh2. Acceptance criteria\n\n* [ ] totals in cents\n* [ ] a <script>x</script> line broken');
    expect(issue.labels).toEqual(['design-team']);
    expect(jira.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/rest/api/3/issue', '/rest/api/2/issue']);
    // An issue type the project lacks is Jira's 400, as a TrackerError naming it.
    await expect(client.createTicket({ ...draft, type: 'Saga' })).rejects.toThrow(/issuetype/);
    jira.flavour = 'cloud';
  });

  it('Jira without a project key files nothing', async () => {
    const client = new JiraTrackerClient({ siteUrl: jira.siteUrl, credentials: 'bot@acme.example:jira-token', http });
    await expect(client.createTicket(draft)).rejects.toBeInstanceOf(TrackerError);
  });

  it('Azure DevOps: the description and the criteria are escaped HTML; an unknown type is the service\'s 404', async () => {
    const client = new AzureDevOpsTrackerClient({ organizationUrl: ado.organizationUrl, teamProject: 'Shop', pat: 'ado-pat', http });
    const created = await client.createTicket(draft);
    const item = ado.items.get(Number(created.ticket))!;
    expect(item.fields['System.WorkItemType']).toBe('User Story');
    expect(item.fields['System.Description']).toBe('<p>Why: &lt;b&gt;cents&lt;/b&gt; &amp; &quot;euros&quot;.<br>Second line.</p>');
    expect(item.fields['Microsoft.VSTS.Common.AcceptanceCriteria']).toBe('<ul><li>totals in cents</li><li>a &lt;script&gt;x&lt;/script&gt; line broken</li></ul>');
    expect(ado.tagsOf(Number(created.ticket))).toEqual(['design team']);
    expect(created.url).toBe(`${ado.webOrganizationUrl}/Shop/_workitems/edit/${created.ticket}`);
    await expect(client.createTicket({ ...draft, type: 'Saga' })).rejects.toThrow(/VS402323/);
  });
});
