import { describe, expect, it } from 'vitest';
import { DEFAULT_AGENT, defaultServiceConfig } from '../../config/service-config.js';
import { Platform } from '../../platforms/platform.js';
import { carriesServiceMarker } from '../../platforms/service-marker.js';
import { buildFailureComment, carriesRunMarker, cutMiddle, TicketCommentKind } from './failure-comment.js';
import { collectSecrets, scrubSecrets } from '../../common/secret-scrubber.js';

const RUN = '6f1c2a7e-4f4b-4c36-9a8e-3f1d2c3b4a59';

describe('failure comment', () => {
  it('carries the service marker and the run marker on every platform', () => {
    for (const platform of Object.values(Platform)) {
      const body = buildFailureComment({ platform, runId: RUN, pipeline: 'code', error: 'exit 3', secrets: [], maxChars: 4000 });
      expect(carriesServiceMarker(body)).toBe(true);
      expect(carriesRunMarker(body, RUN, TicketCommentKind.Failure)).toBe(true);
      expect(carriesRunMarker(body, '00000000-0000-0000-0000-000000000000', TicketCommentKind.Failure)).toBe(false);
      expect(body).toContain('exit 3');
    }
  });

  it('scrubs every secret, also inside longer words and URL-encoded', () => {
    const body = buildFailureComment({
      platform: Platform.GitHub, runId: RUN, pipeline: 'code',
      error: 'git push https://x:ghp_SECRET%2Fv@github.com failed; token=ghp_SECRET/v; jira=s3cr3t-jira',
      secrets: ['ghp_SECRET/v', 's3cr3t-jira'], maxChars: 4000,
    });
    expect(body).not.toContain('ghp_SECRET');
    expect(body).not.toContain('s3cr3t-jira');
    expect(body).toContain('token=***');
  });

  it('cuts a long error in the middle with a note, keeping start and end', () => {
    const error = `START ${'x'.repeat(10_000)} END`;
    const body = buildFailureComment({ platform: Platform.GitLab, runId: RUN, pipeline: 'code', error, secrets: [], maxChars: 4000 });
    expect(body.length).toBeLessThan(4600);
    expect(body).toContain('START');
    expect(body).toContain('END');
    expect(body).toMatch(/characters in the middle were left out/);
    expect(cutMiddle('short', 10)).toEqual({ text: 'short', cut: 0 });
  });

  it('escapes HTML on Azure DevOps and keeps a Markdown fence closed on GitHub', () => {
    const ado = buildFailureComment({ platform: Platform.AzureDevOps, runId: RUN, pipeline: 'code', error: '<script>x</script>', secrets: [], maxChars: 4000 });
    expect(ado).toContain('&lt;script&gt;');
    const gh = buildFailureComment({ platform: Platform.GitHub, runId: RUN, pipeline: 'code', error: 'a ``` b', secrets: [], maxChars: 4000 });
    expect(gh).toContain('````text');
  });
});

describe('collectSecrets', () => {
  it('finds configured secrets, repository auth secrets, trigger credentials and the token half of user:token', () => {
    const config = defaultServiceConfig();
    config.secrets = { SHOP_TOKEN: 'ghp_shop' };
    config.projects = {
      shop: {
        name: 'shop', tracker: Platform.Jira,
        repos: [{ name: 'web', platform: Platform.GitHub, url: 'https://github.com/a/b', api_url: null, path_prefix: '', auth_secret: 'glpat-repo', branch: null }],
        triggers: { [Platform.Jira]: {
          trigger_statuses: [], pipeline_from_label: {}, default_pipeline: null, done_status: null, comment_keyword: null,
          pr_trigger_label: null, needs_clarification_status: null, organization_url: null, team_project: null,
          site_url: 'https://j', project_key: 'K', secret: 'hmac-secret', credentials: 'bot@acme:jira-api-token',
        } },
        pr_commands: { enabled: false, require_member: true, allowed_pipelines: null }, agent: { ...DEFAULT_AGENT },
      },
    };
    const secrets = collectSecrets(config);
    for (const s of ['ghp_shop', 'glpat-repo', 'hmac-secret', 'bot@acme:jira-api-token', 'jira-api-token']) expect(secrets).toContain(s);
    expect(scrubSecrets('auth bot@acme:jira-api-token or jira-api-token', secrets)).toBe('auth *** or ***');
  });
});
