import { AzureDevOpsStandIn } from '../../stand-ins/azure-devops-stand-in.js';
import { GitHubStandIn } from '../../stand-ins/github-stand-in.js';
import { GitLabStandIn } from '../../stand-ins/gitlab-stand-in.js';
import { JiraStandIn } from '../../stand-ins/jira-stand-in.js';

/** Credentials the stand-ins accept; the GitHub one comes through the `secrets:` map. */
export const CREDENTIALS = {
  github: 'ghp_labelProjectionToken0001',
  gitlab: 'glpat-labelProjectionToken02',
  adoPat: 'adoPatLabelProjection0003',
  jiraUser: 'bot@acme.example',
  jiraToken: 'jiraApiTokenLabelProjection04',
};

/** The four trackers, each a real local HTTP server. */
export interface Trackers {
  github: GitHubStandIn;
  gitlab: GitLabStandIn;
  ado: AzureDevOpsStandIn;
  jira: JiraStandIn;
}

export async function startTrackers(): Promise<Trackers> {
  return {
    github: await new GitHubStandIn(CREDENTIALS.github).start(),
    gitlab: await new GitLabStandIn(CREDENTIALS.gitlab).start(),
    ado: await new AzureDevOpsStandIn(CREDENTIALS.adoPat).start(),
    jira: await new JiraStandIn(CREDENTIALS.jiraUser, CREDENTIALS.jiraToken).start(),
  };
}

export async function stopTrackers(t: Trackers): Promise<void> {
  await Promise.all([t.github.stop(), t.gitlab.stop(), t.ado.stop(), t.jira.stop()]);
}

/** One project per tracker, wired to the stand-ins, each with a done status. */
export function trackerProjects(t: Trackers): { projects: Record<string, unknown>; secrets: Record<string, string> } {
  return {
    secrets: { GH_TOKEN: CREDENTIALS.github },
    projects: {
      shop: {
        tracker: 'platform-a',
        repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web', api_url: t.github.apiUrl, auth_secret: '${GH_TOKEN}' }],
        platform_a_trigger: { trigger_statuses: ['ready-for-agent'], default_pipeline: 'code', done_status: 'done' },
      },
      billing: {
        tracker: 'platform-b',
        repos: [{ name: 'billing', platform: 'platform-b', url: 'https://gitlab.example/fin/billing', api_url: t.gitlab.apiUrl, auth_secret: CREDENTIALS.gitlab }],
        platform_b_trigger: { trigger_statuses: ['ready-for-agent'], default_pipeline: 'code', done_status: 'done' },
      },
      fabrikam: {
        tracker: 'platform-c',
        platform_c_trigger: {
          organization_url: t.ado.organizationUrl, team_project: 'Shop', credentials: CREDENTIALS.adoPat,
          trigger_statuses: ['Ready for Agent'], default_pipeline: 'code', done_status: 'Resolved',
        },
      },
      jiraproj: {
        tracker: 'platform-d',
        platform_d_trigger: {
          site_url: t.jira.siteUrl, project_key: 'BILL', credentials: `${CREDENTIALS.jiraUser}:${CREDENTIALS.jiraToken}`,
          trigger_statuses: ['Ready for Agent'], default_pipeline: 'code', done_status: 'Done',
        },
      },
    },
  };
}
