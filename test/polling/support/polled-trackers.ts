import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Platform } from '../../../src/platforms/platform.js';
import { AzureDevOpsStandIn } from '../../stand-ins/azure-devops-stand-in.js';
import { JiraStandIn } from '../../stand-ins/jira-stand-in.js';
import type { GitHubStandIn } from '../../stand-ins/github-stand-in.js';
import type { GitLabStandIn } from '../../stand-ins/gitlab-stand-in.js';
import type { StandInServer } from '../../stand-ins/stand-in-server.js';
import { startCodeHost } from '../../workspaces/support/code-hosts.js';

/** The polled project's triggers: a label mapped to a pipeline, and one mapped to no pipeline. */
export const MAPPED = 'lint-me';
export const BROKEN = 'broken-map';
export const PIPELINES = { instant: { commands: ['true'], timeout_seconds: 60 } };

/**
 * A tracker stand-in as the polling tests drive it: someone moves a ticket into the trigger status
 * (GitHub, GitLab: adds the status label), or puts a mapped label (Azure DevOps: a tag) on or off.
 * GitHub and GitLab are also the project's git remote (their tracker needs the repository); Azure
 * DevOps and Jira projects have no repository (a run gets one empty sandbox).
 */
export interface PolledTracker {
  platform: Platform;
  standIn: StandInServer;
  /** The trigger status, as configured (A/B: a label). */
  ready: string;
  /** Project `shop` on this tracker with polling as given. */
  project(polling: Record<string, unknown>): Record<string, unknown>;
  /** The ticket id the service sees for issue `n`. */
  id(n: number): string;
  trigger(n: number): void;
  mapLabel(n: number, on: boolean, label?: string): void;
  /** Its labels (tags) now. */
  labels(n: number): string[];
  stop(): Promise<void>;
}

export type TrackerKind = 'github' | 'gitlab' | 'azure-devops' | 'jira';

const trigger = (ready: string, done: string, extra: Record<string, unknown> = {}) => ({
  trigger_statuses: [ready], pipeline_from_label: { [MAPPED]: 'instant', [BROKEN]: 'no-such-pipeline' },
  default_pipeline: 'instant', done_status: done, ...extra,
});

export async function startPolledTracker(kind: TrackerKind): Promise<PolledTracker> {
  switch (kind) {
    case 'github':
    case 'gitlab': {
      const root = mkdtempSync(join(tmpdir(), 'poll-host-'));
      const platform = kind === 'github' ? Platform.GitHub : Platform.GitLab;
      const host = await startCodeHost(platform, root, kind === 'github' ? 'ghp_poll_token' : 'glpat-poll-token', 'shop-web');
      const issues = host.standIn as GitHubStandIn | GitLabStandIn;
      const ensure = (n: number) => {
        if (!issues.issues.has(n)) issues.addIssue(n, []);
      };
      const ready = 'ready-for-agent';
      return {
        platform, standIn: host.standIn, ready,
        project: (polling) => ({ tracker: platform, repos: [host.repoEntry()], [`platform_${kind === 'github' ? 'a' : 'b'}_trigger`]: trigger(ready, 'done', { polling }) }),
        id: (n) => String(n),
        trigger: (n) => {
          ensure(n);
          issues.addLabel(n, ready);
        },
        mapLabel: (n, on, label = MAPPED) => {
          ensure(n);
          if (on) issues.addLabel(n, label);
          else issues.removeLabel(n, label);
        },
        labels: (n) => [...(issues.issues.get(n)?.labels ?? [])],
        stop: async () => {
          await host.stop();
          rmSync(root, { recursive: true, force: true });
        },
      };
    }
    case 'azure-devops': {
      const ado = await new AzureDevOpsStandIn('ado-poll-pat').start();
      const ensure = (n: number) => {
        if (!ado.items.has(n)) ado.addWorkItem(n, 'New');
      };
      const ready = 'Ready for Agent';
      return {
        platform: Platform.AzureDevOps, standIn: ado, ready,
        project: (polling) => ({
          tracker: Platform.AzureDevOps,
          platform_c_trigger: trigger(ready, 'Resolved', { organization_url: ado.organizationUrl, team_project: 'Shop', credentials: 'ado-poll-pat', polling }),
        }),
        id: (n) => String(n),
        trigger: (n) => {
          ensure(n);
          ado.setState(n, ready);
        },
        mapLabel: (n, on, label = MAPPED) => {
          ensure(n);
          ado.editTags(n, on ? { add: [label] } : { remove: [label] });
        },
        labels: (n) => ado.tagsOf(n),
        stop: () => ado.stop(),
      };
    }
    case 'jira': {
      const jira = await new JiraStandIn('bot@acme.example', 'jira-poll-token').start();
      const key = (n: number) => `BILL-${n}`;
      const ensure = (n: number) => {
        if (!jira.issues.has(key(n))) jira.addIssue(key(n), 'To Do');
      };
      const ready = 'Ready for Agent';
      return {
        platform: Platform.Jira, standIn: jira, ready,
        project: (polling) => ({
          tracker: Platform.Jira,
          platform_d_trigger: trigger(ready, 'Done', { site_url: jira.siteUrl, project_key: 'BILL', credentials: 'bot@acme.example:jira-poll-token', polling }),
        }),
        id: key,
        trigger: (n) => {
          ensure(n);
          jira.transitionIssue(key(n), ready);
        },
        mapLabel: (n, on, label = MAPPED) => {
          ensure(n);
          jira.editLabels(key(n), on ? { add: [label] } : { remove: [label] });
        },
        labels: (n) => [...(jira.issues.get(key(n))?.labels ?? [])],
        stop: () => jira.stop(),
      };
    }
  }
}
