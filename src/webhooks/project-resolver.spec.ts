import { describe, expect, it } from 'vitest';
import { loadFixture, githubExample } from '../../test/fixtures/payload-fixtures.js';
import { projectConfig, serviceConfigWith, triggerConfig } from '../../test/fixtures/webhook-config.js';
import type { RoutableEvent } from '../platforms/inbound-event.js';
import { parseAzureDevOpsPayload } from '../platforms/azure-devops/azure-devops-payload-parser.js';
import { parseGitHubPayload } from '../platforms/github/github-payload-parser.js';
import { parseGitLabPayload } from '../platforms/gitlab/gitlab-payload-parser.js';
import { parseJiraPayload } from '../platforms/jira/jira-payload-parser.js';
import { Platform } from '../platforms/platform.js';
import { resolveProject } from './project-resolver.js';

const shop = projectConfig('shop', {
  tracker: Platform.GitHub,
  repos: [
    { url: 'https://github.com/acme/shop-web', platform: Platform.GitHub },
    { url: 'https://github.com/codertocat/hello-world.git', platform: Platform.GitHub },
  ],
  triggers: { [Platform.GitHub]: triggerConfig({ default_pipeline: 'code' }) },
});
const gitlabProject = projectConfig('gl', {
  tracker: Platform.GitLab,
  repos: [{ url: 'https://example.com/gitlabhq/gitlab-test/', platform: Platform.GitLab }],
});
const ado = projectConfig('ado', {
  tracker: Platform.AzureDevOps,
  triggers: { [Platform.AzureDevOps]: triggerConfig({ team_project: 'fabrikamcloud' }) },
});
const adoRepos = projectConfig('ado-repos', {
  tracker: Platform.AzureDevOps,
  triggers: { [Platform.AzureDevOps]: triggerConfig({ team_project: 'Fabrikam' }) },
});
const billing = projectConfig('billing', {
  tracker: Platform.Jira,
  repos: [{ url: 'https://gitlab.example/fin/billing', platform: Platform.GitLab }],
  triggers: { [Platform.Jira]: triggerConfig({ project_key: 'JRA' }) },
});
const config = serviceConfigWith([shop, gitlabProject, ado, adoRepos, billing]);

function routable(event: ReturnType<typeof parseGitHubPayload>): RoutableEvent {
  if (event.kind === 'ignored') throw new Error(`fixture did not parse: ${event.reason}`);
  return event;
}

describe('resolveProject', () => {
  it('routes a GitHub event by the repository web URL (case, .git and trailing slash ignored)', () => {
    const event = routable(parseGitHubPayload('issues', githubExample('issues', 'labeled'), {}));
    expect(resolveProject(config, event)?.name).toBe('shop');
  });

  it('routes GitLab events by project.web_url, scheme ignored (http in the example, https in config)', () => {
    const event = routable(parseGitLabPayload('Issue Hook', loadFixture('gitlab', 'issue-hook'), {}));
    expect(resolveProject(config, event)?.name).toBe('gl');
    const mr = routable(parseGitLabPayload('Merge Request Hook', loadFixture('gitlab', 'merge-request-hook'), {}));
    expect(resolveProject(config, mr)?.name).toBe('gl');
  });

  it('routes Azure DevOps work items by System.TeamProject, case-insensitively', () => {
    const updated = routable(parseAzureDevOpsPayload('workitem.updated', loadFixture('azure-devops', 'workitem-updated'), {}));
    expect(resolveProject(config, updated)?.name).toBe('ado');
    const commented = routable(parseAzureDevOpsPayload('workitem.commented', loadFixture('azure-devops', 'workitem-commented'), {}));
    expect(resolveProject(config, commented)?.name).toBe('ado');
  });

  it('routes Azure DevOps pull request votes by the repository’s team project', () => {
    const vote = loadFixture('azure-devops', 'git-pullrequest-updated');
    ((vote['resource'] as { reviewers: { vote: number }[] }).reviewers[0] as { vote: number }).vote = -5;
    const event = routable(parseAzureDevOpsPayload('git.pullrequest.updated', vote, { 'x-service-change': 'review-vote' }));
    expect(resolveProject(config, event)?.name).toBe('ado-repos');
  });

  it('routes Jira issues by project key', () => {
    const payload = loadFixture('jira', 'issue-updated');
    payload['webhookEvent'] = 'comment_created';
    const event = routable(parseJiraPayload('comment_created', payload, {}));
    expect(resolveProject(config, event)?.name).toBe('billing');
  });

  it('returns null when nothing matches or the route is missing', () => {
    const base = { kind: 'ticket', eventName: 'x', deliveryId: null, ticket: '1', change: { type: 'status', status: 's' } } as const;
    const changes = [base.change];
    expect(resolveProject(config, { ...base, changes, platform: Platform.GitHub, route: { repositoryUrl: 'https://github.com/acme/other' } })).toBeNull();
    expect(resolveProject(config, { ...base, changes, platform: Platform.GitHub, route: {} })).toBeNull();
    expect(resolveProject(config, { ...base, changes, platform: Platform.AzureDevOps, route: { teamProject: 'Nope' } })).toBeNull();
    expect(resolveProject(config, { ...base, changes, platform: Platform.AzureDevOps, route: { teamProject: ' ' } })).toBeNull();
    expect(resolveProject(config, { ...base, changes, platform: Platform.Jira, route: { projectKey: 'BILL' } })).toBeNull();
    expect(resolveProject(serviceConfigWith([]), { ...base, changes, platform: Platform.Jira, route: { projectKey: 'JRA' } })).toBeNull();
  });

  it('does not route by a trigger block of another platform', () => {
    const event = { kind: 'ticket', platform: Platform.AzureDevOps, eventName: 'x', deliveryId: null, ticket: '1', change: { type: 'status', status: 's' }, changes: [], route: { teamProject: 'JRA' } } as const;
    expect(resolveProject(config, { ...event, changes: [event.change] })).toBeNull();
  });

  it('picks the first project in configuration order when two declare the same repository', () => {
    const twin = projectConfig('twin', { tracker: Platform.GitHub, repos: [{ url: 'https://github.com/acme/shop-web', platform: Platform.GitHub }] });
    const event = routable(parseGitHubPayload('issues', { ...githubExample('issues', 'labeled'), repository: { html_url: 'https://github.com/acme/shop-web' } }, {}));
    expect(resolveProject(serviceConfigWith([shop, twin]), event)?.name).toBe('shop');
    expect(resolveProject(serviceConfigWith([twin, shop]), event)?.name).toBe('twin');
  });
});
