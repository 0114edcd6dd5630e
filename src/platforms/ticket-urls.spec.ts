import { describe, expect, it } from 'vitest';
import type { ProjectConfig, RepoConfig, TriggerConfig } from '../config/service-config.js';
import { Platform } from './platform.js';
import { ticketUrlOf } from './ticket-urls.js';

const repo = (platform: Platform, url: string): RepoConfig => ({ name: 'r', platform, url, api_url: null, path_prefix: '', auth_secret: null, branch: null });
const trigger = (over: Partial<TriggerConfig>): TriggerConfig => ({
  trigger_statuses: [], pipeline_from_label: {}, default_pipeline: null, done_status: null, comment_keyword: null, pr_trigger_label: null,
  needs_clarification_status: null, organization_url: null, team_project: null, site_url: null, project_key: null, secret: null, credentials: null, ...over,
});
const project = (over: Partial<ProjectConfig>): ProjectConfig => ({ name: 'p', tracker: Platform.GitHub, repos: [], triggers: {}, ...over } as ProjectConfig);

describe('ticketUrlOf', () => {
  it('links a GitHub issue of the project\'s GitHub repository, without credentials or .git', () => {
    const p = project({ repos: [repo(Platform.GitLab, 'https://gitlab.com/a/b'), repo(Platform.GitHub, 'https://x:secret@github.com/acme/shop-web.git/')] });
    expect(ticketUrlOf(p, Platform.GitHub, '12')).toBe('https://github.com/acme/shop-web/issues/12');
    expect(ticketUrlOf(p, Platform.GitHub, '#12')).toBe('https://github.com/acme/shop-web/issues/12');
    expect(ticketUrlOf(p, Platform.GitHub, 'engine-1')).toBeNull();
  });

  it('links a GitLab issue of a project in subgroups', () => {
    const p = project({ tracker: Platform.GitLab, repos: [repo(Platform.GitLab, 'https://gitlab.example/group/sub/project.git')] });
    expect(ticketUrlOf(p, Platform.GitLab, '7')).toBe('https://gitlab.example/group/sub/project/-/issues/7');
  });

  it('links an Azure DevOps work item and a Jira issue from their trigger blocks', () => {
    const ado = project({ tracker: Platform.AzureDevOps, triggers: { [Platform.AzureDevOps]: trigger({ organization_url: 'https://dev.azure.com/fabrikam/', team_project: 'Fabrikam Cloud' }) } });
    expect(ticketUrlOf(ado, Platform.AzureDevOps, '42')).toBe('https://dev.azure.com/fabrikam/Fabrikam%20Cloud/_workitems/edit/42');
    const jira = project({ tracker: Platform.Jira, triggers: { [Platform.Jira]: trigger({ site_url: 'https://acme.atlassian.net/' }) } });
    expect(ticketUrlOf(jira, Platform.Jira, 'BILL-12')).toBe('https://acme.atlassian.net/browse/BILL-12');
  });

  it('is null without a ticket, a configured project or a place for the ticket', () => {
    const p = project({ repos: [repo(Platform.GitHub, 'https://github.com/acme/shop-web')] });
    expect(ticketUrlOf(p, Platform.GitHub, null)).toBeNull();
    expect(ticketUrlOf(undefined, Platform.GitHub, '1')).toBeNull();
    expect(ticketUrlOf(p, Platform.GitLab, '1')).toBeNull();
    expect(ticketUrlOf(p, Platform.Jira, 'BILL-1')).toBeNull();
    expect(ticketUrlOf(p, Platform.AzureDevOps, '1')).toBeNull();
    expect(ticketUrlOf(project({ repos: [repo(Platform.GitHub, 'file:///srv/acme/shop-web')] }), Platform.GitHub, '1')).toBeNull();
    expect(ticketUrlOf(project({ repos: [repo(Platform.GitHub, 'not a url')] }), Platform.GitHub, '1')).toBeNull();
  });
});
