import { describe, expect, it } from 'vitest';
import { projectConfig, serviceConfigWith, triggerConfig } from '../../test/fixtures/webhook-config.js';
import type { TicketChange, TicketEvent } from '../platforms/inbound-event.js';
import { Platform } from '../platforms/platform.js';
import { SERVICE_MARKER } from '../platforms/service-marker.js';
import { RejectReason, decideTicketState, decideTrigger, knownPipelines } from './trigger-decision.js';

const shopTrigger = triggerConfig({
  trigger_statuses: ['ready-for-agent'],
  pipeline_from_label: { security: 'security-scan', 'agent-review': 'pr-review', Lint: 'lint', broken: 'no-such-pipeline' },
  default_pipeline: 'code',
  comment_keyword: '@pipeline-service',
});
const shop = projectConfig('shop', { tracker: Platform.GitHub, triggers: { [Platform.GitHub]: shopTrigger, [Platform.GitLab]: shopTrigger } });
const billing = projectConfig('billing', {
  tracker: Platform.Jira,
  triggers: {
    [Platform.Jira]: triggerConfig({ project_key: 'BILL', trigger_statuses: ['Ready for Agent'], default_pipeline: 'code', comment_keyword: '@pipeline-service' }),
    [Platform.AzureDevOps]: triggerConfig({ trigger_statuses: ['Approved'], pipeline_from_label: { security: 'security-scan' }, default_pipeline: 'code' }),
  },
});
const config = serviceConfigWith([shop, billing], ['lint']);

function ticket(platform: Platform, ...changes: TicketChange[]): TicketEvent {
  const [change] = changes;
  if (change === undefined) throw new Error('a ticket event needs a change');
  return { kind: 'ticket', platform, eventName: 'test', deliveryId: null, ticket: '42', route: {}, change, changes };
}
const labels = (...names: string[]): TicketChange => ({ type: 'labels-added', labels: names });
const status = (value: string): TicketChange => ({ type: 'status', status: value });
const comment = (body: string): TicketChange => ({ type: 'comment', body, author: 'octocat' });

describe('decideTrigger: labels', () => {
  it('claims the pipeline a label maps to, matching the label case-insensitively', () => {
    expect(decideTrigger(ticket(Platform.GitHub, labels('security')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'security-scan' });
    expect(decideTrigger(ticket(Platform.GitHub, labels(' Agent-Review ')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'pr-review' });
    expect(decideTrigger(ticket(Platform.GitHub, labels('lint')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'lint' });
  });

  it('treats a trigger status as a label on the label-only trackers (A, B)', () => {
    expect(decideTrigger(ticket(Platform.GitHub, labels('Ready-For-Agent')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
    expect(decideTrigger(ticket(Platform.GitLab, labels('ready-for-agent')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
  });

  it('does not treat a tag as a status on Azure DevOps', () => {
    const decision = decideTrigger(ticket(Platform.AzureDevOps, labels('Approved')), billing, config);
    expect(decision.verdict).toBe('filtered');
  });

  it('never triggers on service: labels, whatever their case, but still on other labels added with them', () => {
    expect(decideTrigger(ticket(Platform.GitHub, labels('service:done')), shop, config)).toEqual({
      verdict: 'filtered',
      reason: "only service-owned 'service:' labels were added",
    });
    expect(decideTrigger(ticket(Platform.GitHub, labels('SERVICE:in-progress', 'service:enqueued')), shop, config).verdict).toBe('filtered');
    expect(decideTrigger(ticket(Platform.GitHub, labels('service:failed', 'security')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'security-scan' });
  });

  it('a service: label named in pipeline_from_label still never triggers', () => {
    const trap = projectConfig('trap', {
      tracker: Platform.GitHub,
      triggers: { [Platform.GitHub]: triggerConfig({ pipeline_from_label: { 'service:pending': 'code' }, trigger_statuses: ['service:pending'], default_pipeline: 'code' }) },
    });
    expect(decideTrigger(ticket(Platform.GitHub, labels('service:pending')), trap, config).verdict).toBe('filtered');
  });

  it('filters labels that map to nothing', () => {
    expect(decideTrigger(ticket(Platform.GitHub, labels('bug', 'help wanted')), shop, config)).toEqual({
      verdict: 'filtered',
      reason: 'no added label (bug, help wanted) triggers a pipeline',
    });
  });

  it('rejects a label that maps to no known pipeline with UnknownPipeline', () => {
    expect(decideTrigger(ticket(Platform.GitHub, labels('broken')), shop, config)).toEqual({ verdict: 'rejected', reason: RejectReason.UnknownPipeline });
  });
});

describe('decideTrigger: statuses', () => {
  it('claims the default pipeline for a trigger status, trimmed and case-insensitive', () => {
    expect(decideTrigger(ticket(Platform.Jira, status('Ready for Agent')), billing, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
    expect(decideTrigger(ticket(Platform.Jira, status('  ready FOR agent ')), billing, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
    expect(decideTrigger(ticket(Platform.AzureDevOps, status('approved')), billing, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
  });

  it('filters other statuses', () => {
    expect(decideTrigger(ticket(Platform.Jira, status('In Progress')), billing, config)).toEqual({
      verdict: 'filtered',
      reason: "status 'In Progress' is not a trigger status",
    });
  });

  it('rejects a trigger status when default_pipeline is unset or unknown', () => {
    const unset = projectConfig('unset', { tracker: Platform.Jira, triggers: { [Platform.Jira]: triggerConfig({ trigger_statuses: ['Go'] }) } });
    expect(decideTrigger(ticket(Platform.Jira, status('Go')), unset, config)).toEqual({ verdict: 'rejected', reason: RejectReason.UnknownPipeline });
    const unknown = projectConfig('unknown', { tracker: Platform.Jira, triggers: { [Platform.Jira]: triggerConfig({ trigger_statuses: ['Go'], default_pipeline: 'deploy' }) } });
    expect(decideTrigger(ticket(Platform.Jira, status('Go')), unknown, config)).toEqual({ verdict: 'rejected', reason: RejectReason.UnknownPipeline });
  });

  it('prefers a label over a status carried by the same delivery', () => {
    const event = ticket(Platform.AzureDevOps, labels('security'), status('Approved'));
    expect(decideTrigger(event, billing, config)).toEqual({ verdict: 'claim', pipeline: 'security-scan' });
    const statusOnly = ticket(Platform.AzureDevOps, labels('unrelated'), status('Approved'));
    expect(decideTrigger(statusOnly, billing, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
  });
});

describe('decideTrigger: comments', () => {
  it('claims the default pipeline for a comment containing the keyword (any case, anywhere)', () => {
    expect(decideTrigger(ticket(Platform.GitHub, comment('@pipeline-service please implement this')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
    expect(decideTrigger(ticket(Platform.GitHub, comment('Thanks! @Pipeline-Service')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
  });

  it('claims the pipeline named right after the keyword when it is the default or label-mapped', () => {
    expect(decideTrigger(ticket(Platform.GitHub, comment('@pipeline-service security-scan')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'security-scan' });
    expect(decideTrigger(ticket(Platform.GitHub, comment('@pipeline-service: PR-Review now')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'pr-review' });
    expect(decideTrigger(ticket(Platform.GitHub, comment('@pipeline-service lint')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'lint' });
    expect(decideTrigger(ticket(Platform.GitHub, comment('@pipeline-service code')), shop, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
  });

  it('rejects a named pipeline that is neither the default nor label-mapped with PipelineNotLabelTriggered', () => {
    expect(decideTrigger(ticket(Platform.Jira, comment('@pipeline-service security-scan')), billing, config)).toEqual({
      verdict: 'rejected',
      reason: RejectReason.PipelineNotLabelTriggered,
    });
    expect(decideTrigger(ticket(Platform.Jira, comment('@pipeline-service lint')), billing, config)).toEqual({
      verdict: 'rejected',
      reason: RejectReason.PipelineNotLabelTriggered,
    });
  });

  it('rejects a named label-mapped pipeline that is unknown with UnknownPipeline', () => {
    expect(decideTrigger(ticket(Platform.GitHub, comment('@pipeline-service no-such-pipeline')), shop, config)).toEqual({
      verdict: 'rejected',
      reason: RejectReason.UnknownPipeline,
    });
  });

  it('falls back to the default when the first word names no pipeline (pipeline words later do not count)', () => {
    expect(decideTrigger(ticket(Platform.Jira, comment('@pipeline-service please review the security-scan findings')), billing, config)).toEqual({
      verdict: 'claim',
      pipeline: 'code',
    });
  });

  it('filters comments without the keyword, and comments when no keyword is configured', () => {
    expect(decideTrigger(ticket(Platform.GitHub, comment('looks good to me')), shop, config)).toEqual({
      verdict: 'filtered',
      reason: 'comment does not contain the comment keyword',
    });
    expect(decideTrigger(ticket(Platform.AzureDevOps, comment('@pipeline-service go')), billing, config).verdict).toBe('filtered');
  });

  it('never triggers on a comment carrying the service marker', () => {
    const own = `Run failed: tests did not pass.\n@pipeline-service code\n${SERVICE_MARKER}`;
    expect(decideTrigger(ticket(Platform.GitHub, comment(own)), shop, config)).toEqual({
      verdict: 'filtered',
      reason: 'comment carries the service marker (the service wrote it)',
    });
    expect(decideTrigger(ticket(Platform.GitHub, comment(own)), null, config).verdict).toBe('filtered');
  });
});

describe('decideTrigger: projects', () => {
  it('rejects UnknownProject when no project routes the event', () => {
    expect(decideTrigger(ticket(Platform.GitHub, labels('security')), null, config)).toEqual({ verdict: 'rejected', reason: RejectReason.UnknownProject });
    expect(decideTrigger(ticket(Platform.Jira, status('Ready for Agent')), null, config)).toEqual({ verdict: 'rejected', reason: RejectReason.UnknownProject });
  });

  it('drops the service’s own labels before looking for a project', () => {
    expect(decideTrigger(ticket(Platform.GitHub, labels('service:done')), null, config).verdict).toBe('filtered');
  });

  it('filters when the project has no trigger block for the event’s platform', () => {
    expect(decideTrigger(ticket(Platform.GitLab, labels('security')), billing, config)).toEqual({
      verdict: 'filtered',
      reason: "project 'billing' has no platform-b trigger",
    });
  });

  it('knows the built-in pipelines and the configured command pipelines', () => {
    expect([...knownPipelines(config)].sort()).toEqual(['code', 'lint', 'pr-review', 'security-scan']);
  });
});

describe('decideTicketState: a polled ticket goes through the same rules', () => {
  const polled = (status: string | null, ...labels: string[]) => ({ status, labels });

  it('claims the pipeline of a mapped label before the default of a trigger status', () => {
    expect(decideTicketState(Platform.GitHub, polled('ready-for-agent', 'bug', 'ready-for-agent', 'security'), shop, config))
      .toEqual({ verdict: 'claim', pipeline: 'security-scan' });
  });

  it('claims default_pipeline for a trigger status: a status label on A/B, the status on C/D', () => {
    expect(decideTicketState(Platform.GitHub, polled(null, 'Ready-For-Agent'), shop, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
    expect(decideTicketState(Platform.Jira, polled('ready for agent'), billing, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
    expect(decideTicketState(Platform.AzureDevOps, polled('Approved', 'team-x'), billing, config)).toEqual({ verdict: 'claim', pipeline: 'code' });
  });

  it('never triggers on service: labels, also when they are all the ticket carries', () => {
    expect(decideTicketState(Platform.GitHub, polled(null, 'service:done', 'service:pending'), shop, config).verdict).toBe('filtered');
    expect(decideTicketState(Platform.GitHub, polled(null, 'service:failed', 'security'), shop, config)).toEqual({ verdict: 'claim', pipeline: 'security-scan' });
  });

  it('rejects an unknown pipeline and filters a ticket that carries no trigger', () => {
    expect(decideTicketState(Platform.GitHub, polled(null, 'broken'), shop, config)).toEqual({ verdict: 'rejected', reason: RejectReason.UnknownPipeline });
    expect(decideTicketState(Platform.GitHub, polled(null, 'bug'), shop, config).verdict).toBe('filtered');
    expect(decideTicketState(Platform.Jira, polled('In Review'), billing, config).verdict).toBe('filtered');
    expect(decideTicketState(Platform.GitHub, polled(null), shop, config).verdict).toBe('filtered');
  });

  it('does not read a tag as a status on Azure DevOps', () => {
    expect(decideTicketState(Platform.AzureDevOps, polled('Active', 'Approved'), billing, config).verdict).toBe('filtered');
  });
});
