import { Platform } from '../../../src/platforms/platform.js';
import type { TicketKey } from '../../../src/tickets/ticket-key.js';
import type { Trackers } from './trackers.js';

/** One tracker seen the same way by every test: make a ticket, read its labels, status and comments. */
export interface TrackerCase {
  name: string;
  platform: Platform;
  project: string;
  /** Status the project's `done_status` names. */
  doneStatus: string;
  key(n: number): TicketKey;
  add(n: number, foreign: string[]): void;
  labels(n: number): string[];
  /** The status the tracker shows (A/B: whether the done label is there). */
  status(n: number): string | null;
  comments(n: number): string[];
}

export function trackerCases(t: Trackers): TrackerCase[] {
  const key = (platform: Platform, project: string, ticket: string): TicketKey => ({ platform, project, ticket });
  return [
    {
      name: 'platform A (GitHub)', platform: Platform.GitHub, project: 'shop', doneStatus: 'done',
      key: (n) => key(Platform.GitHub, 'shop', String(n)),
      add: (n, foreign) => void t.github.addIssue(n, [...foreign, 'ready-for-agent']),
      labels: (n) => [...(t.github.issues.get(n)?.labels ?? [])],
      status: (n) => (t.github.issues.get(n)?.labels.includes('done') ? 'done' : null),
      comments: (n) => (t.github.issues.get(n)?.comments ?? []).map((c) => c.body),
    },
    {
      name: 'platform B (GitLab)', platform: Platform.GitLab, project: 'billing', doneStatus: 'done',
      key: (n) => key(Platform.GitLab, 'billing', String(n)),
      add: (n, foreign) => void t.gitlab.addIssue(n, [...foreign, 'ready-for-agent']),
      labels: (n) => [...(t.gitlab.issues.get(n)?.labels ?? [])],
      status: (n) => (t.gitlab.issues.get(n)?.labels.includes('done') ? 'done' : null),
      comments: (n) => (t.gitlab.issues.get(n)?.notes ?? []).filter((note) => !note.system).map((note) => note.body),
    },
    {
      name: 'platform C (Azure DevOps)', platform: Platform.AzureDevOps, project: 'fabrikam', doneStatus: 'Resolved',
      key: (n) => key(Platform.AzureDevOps, 'fabrikam', String(n)),
      add: (n, foreign) => void t.ado.addWorkItem(n, 'Ready for Agent', foreign),
      labels: (n) => t.ado.tagsOf(n),
      status: (n) => t.ado.items.get(n)?.fields['System.State'] ?? null,
      comments: (n) => (t.ado.items.get(n)?.comments ?? []).map((c) => c.text),
    },
    {
      name: 'platform D (Jira)', platform: Platform.Jira, project: 'jiraproj', doneStatus: 'Done',
      key: (n) => key(Platform.Jira, 'jiraproj', `BILL-${n}`),
      add: (n, foreign) => void t.jira.addIssue(`BILL-${n}`, 'Ready for Agent', foreign),
      labels: (n) => [...(t.jira.issues.get(`BILL-${n}`)?.labels ?? [])],
      status: (n) => t.jira.issues.get(`BILL-${n}`)?.status ?? null,
      comments: (n) => (t.jira.issues.get(`BILL-${n}`)?.comments ?? []).map((c) => c.body),
    },
  ];
}

/** The `service:` labels among `labels`. */
export function lifecycleLabels(labels: readonly string[]): string[] {
  return labels.filter((l) => l.startsWith('service:'));
}
