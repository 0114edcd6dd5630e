import type { TriggerConfig } from '../../config/service-config.js';
import { basicAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import {
  assertLifecycleLabel,
  TrackerError,
  withLifecycleLabel,
  type LabelReplaceResult,
  type ListTicketsQuery,
  type PolledTicket,
  type PollQuery,
  type TicketComment,
  type TicketSnapshot,
  type TrackerClient,
  type TriggerSet,
} from '../tracker-client.js';
import { buildPollWiql, wiqlString } from './azure-devops-poll.js';
import { workItemTriggeredAt } from './azure-devops-work-item-updates.js';
import type { CreatedTicket, NewTicket } from '../ticket-creation.js';
import { createWorkItem } from './azure-devops-ticket-creation.js';

/**
 * Platform C: Azure DevOps Work Item Tracking REST 7.1. Tags are `System.Tags` (`; `-separated);
 * a lifecycle write is one JSON Patch: `test /rev` then `replace /fields/System.Tags` with the
 * full tag list (`add` would merge tags, not replace them). A failed test (412, or 409) is the
 * `PreconditionFailed` outcome and the whole patch is rejected atomically.
 */
export interface AzureDevOpsTrackerOptions {
  /** `https://dev.azure.com/acme` (or an Azure DevOps Server collection URL). */
  organizationUrl: string;
  teamProject: string;
  /** Personal access token, sent as Basic auth with an empty user name. */
  pat: string;
  http?: TrackerHttpOptions;
}

const API = { 'api-version': '7.1' };
const COMMENTS_API = { 'api-version': '7.1-preview.4' };
const JSON_PATCH = 'application/json-patch+json';
const BATCH_SIZE = 200;
/** The comments list's largest page (`$top`). */
const COMMENTS_PAGE = 200;
/**
 * What a batch read asks for. The Bug's `Microsoft.VSTS.TCM.ReproSteps` is not among them: a
 * batch naming a field the collection does not define fails as a whole (TF51535), and a
 * collection on a process without it exists; a single read gets every field and uses it.
 */
const LIST_FIELDS = ['System.State', 'System.Tags', 'System.Title', 'System.Description'];
/** A poll also needs when each work item last changed (the poller's cursor). */
const POLL_FIELDS = [...LIST_FIELDS, 'System.ChangedDate'];

interface WorkItem {
  id: number;
  rev: number;
  /** Absent when empty (a work item without tags has no `System.Tags`). */
  fields: {
    'System.State'?: string;
    'System.Tags'?: string;
    'System.Title'?: string;
    /** HTML. */
    'System.Description'?: string;
    /** HTML; where a Bug keeps its text in the Agile and CMMI processes (the form shows no Description). */
    'Microsoft.VSTS.TCM.ReproSteps'?: string;
    /** ISO 8601 UTC; moves on every revision. */
    'System.ChangedDate'?: string;
  };
  /** Present on a single read with `$expand=links`. */
  _links?: { html?: { href?: string } };
}
interface WorkItemComment {
  id: number;
  /** HTML. */
  text: string;
  isDeleted?: boolean;
  createdBy?: { uniqueName?: string; displayName?: string };
}
interface CommentList {
  comments: WorkItemComment[];
  continuationToken?: string | null;
}
interface WiqlResult {
  workItems: { id: number }[];
}
type PatchOp = { op: 'test' | 'add' | 'replace' | 'remove'; path: string; value?: unknown };

export class AzureDevOpsTrackerClient implements TrackerClient {
  readonly platform = Platform.AzureDevOps;
  private readonly http: TrackerHttp;
  private readonly project: string;
  /** `{org}/{project}/_workitems/edit/`: the web page of a work item is this plus its id. */
  private readonly webBase: string;

  constructor(options: AzureDevOpsTrackerOptions) {
    this.http = new TrackerHttp(this.platform, options.organizationUrl, basicAuth('', options.pat), options.http);
    this.project = encodeURIComponent(options.teamProject);
    this.webBase = `${options.organizationUrl.replace(/\/+$/, '')}/${this.project}/_workitems/edit/`;
  }

  static fromConfig(trigger: TriggerConfig, http?: TrackerHttpOptions): AzureDevOpsTrackerClient {
    const { organization_url: organizationUrl, team_project: teamProject, credentials: pat } = trigger;
    if (!organizationUrl || !teamProject || !pat) {
      throw new TrackerError('platform_c_trigger needs organization_url, team_project and credentials', Platform.AzureDevOps, null, false);
    }
    return new AzureDevOpsTrackerClient({ organizationUrl, teamProject, pat, http });
  }

  async readTicket(ticket: string): Promise<TicketSnapshot> {
    // `$expand=links` brings `_links.html`, the work item's web page as the service spells it;
    // without `fields` every field comes back, `System.Description` included.
    const res = await this.http.request<WorkItem>({ method: 'GET', path: this.itemPath(ticket), query: { ...API, $expand: 'links' } });
    return this.snapshot(res.body);
  }

  async replaceLifecycleLabel(ticket: string, next: string | null, read: TicketSnapshot): Promise<LabelReplaceResult> {
    assertLifecycleLabel(this.platform, next);
    const rev = Number(read.concurrencyToken);
    if (read.concurrencyToken === null || !Number.isInteger(rev)) {
      throw new TrackerError(`work item ${ticket}: the read carries no rev; re-read before a conditional update`, this.platform, null, false);
    }
    const res = await this.patch(ticket, [
      { op: 'test', path: '/rev', value: rev },
      { op: 'replace', path: '/fields/System.Tags', value: withLifecycleLabel(read.labels, next).join('; ') },
    ]);
    return res === 'conflict' ? { outcome: 'PreconditionFailed' } : { outcome: 'Updated' };
  }

  async setStatus(ticket: string, status: string): Promise<void> {
    const res = await this.patch(ticket, [{ op: 'add', path: '/fields/System.State', value: status }]);
    if (res === 'conflict') throw new TrackerError(`work item ${ticket}: state change conflicted`, this.platform, 409, true);
  }

  createTicket(ticket: NewTicket): Promise<CreatedTicket> {
    return createWorkItem(this.http, this.project, this.webBase, ticket);
  }

  async postComment(ticket: string, body: string): Promise<string> {
    const res = await this.http.request<WorkItemComment>({ method: 'POST', path: this.commentsPath(ticket), query: COMMENTS_API, body: { text: body } });
    return String(res.body.id);
  }

  async listComments(ticket: string): Promise<TicketComment[]> {
    const out: TicketComment[] = [];
    let continuationToken: string | undefined;
    do {
      const res = await this.http.request<CommentList>({
        method: 'GET',
        path: this.commentsPath(ticket),
        query: { ...COMMENTS_API, $top: COMMENTS_PAGE, order: 'asc', continuationToken },
      });
      // Deleted comments are left out by default (`includeDeleted=false`); the filter is a guard.
      for (const c of res.body.comments) {
        if (c.isDeleted === true) continue;
        out.push({ id: String(c.id), body: c.text, author: c.createdBy?.uniqueName ?? c.createdBy?.displayName ?? null });
      }
      continuationToken = res.body.continuationToken ?? undefined;
    } while (continuationToken);
    return out;
  }

  /** WIQL for the ids, then the work items in batches of 200 (rev included: writable snapshots). */
  async listTickets(query: ListTicketsQuery = {}): Promise<TicketSnapshot[]> {
    const items = await this.readItems(await this.queryIds(buildWiql(query), false), LIST_FIELDS);
    return items.map((item) => this.snapshot(item));
  }

  /**
   * The poller's read (see buildPollWiql): one WIQL request, then one batch read per 200 ids,
   * so a steady-state cycle with up to 200 changed work items costs two requests.
   */
  async pollTickets(query: PollQuery): Promise<PolledTicket[]> {
    const wiql = buildPollWiql(query);
    if (wiql === null) return [];
    const items = await this.readItems(await this.queryIds(wiql, query.updatedSince !== null), POLL_FIELDS);
    return items.map((item) => ({ ...this.snapshot(item), updatedAt: this.changedAt(item) }));
  }

  async triggeredAt(ticket: string, trigger: TriggerSet): Promise<Date | null> {
    return workItemTriggeredAt(this.http, `${this.project}/_apis/wit/workItems/${workItemId(ticket, this.platform)}/updates`, trigger);
  }

  /** `timePrecision`: compare dates to the second (WIQL compares by day otherwise). */
  private async queryIds(query: string, timePrecision: boolean): Promise<number[]> {
    const res = await this.http.request<WiqlResult>({
      method: 'POST',
      path: `${this.project}/_apis/wit/wiql`,
      query: timePrecision ? { ...API, timePrecision: true } : API,
      body: { query },
      idempotent: true,
    });
    return res.body.workItems.map((w) => w.id);
  }

  /** The work items in WIQL order, 200 ids per batch read; deleted meanwhile ones are left out. */
  private async readItems(ids: readonly number[], fields: readonly string[]): Promise<WorkItem[]> {
    const out: WorkItem[] = [];
    for (let i = 0; i < ids.length; i += BATCH_SIZE) {
      const res = await this.http.request<{ value: (WorkItem | null)[] }>({
        method: 'GET',
        path: `${this.project}/_apis/wit/workitems`,
        query: { ...API, ids: ids.slice(i, i + BATCH_SIZE).join(','), fields: fields.join(','), errorPolicy: 'omit' },
      });
      out.push(...res.body.value.filter((w): w is WorkItem => w !== null));
    }
    return out;
  }

  private changedAt(item: WorkItem): string {
    const at = Date.parse(item.fields['System.ChangedDate'] ?? '');
    if (!Number.isFinite(at)) throw new TrackerError(`work item ${item.id} came without System.ChangedDate`, this.platform, null, false);
    return new Date(at).toISOString();
  }

  private async patch(ticket: string, ops: PatchOp[]): Promise<'ok' | 'conflict'> {
    const res = await this.http.request<WorkItem>({
      method: 'PATCH',
      path: this.itemPath(ticket),
      query: API,
      body: ops,
      contentType: JSON_PATCH,
      passStatuses: [409, 412],
    });
    return res.status === 409 || res.status === 412 ? 'conflict' : 'ok';
  }

  /** `fields` and `$expand` exclude each other on a batch read, so a list builds the web URL. */
  private snapshot(item: WorkItem): TicketSnapshot {
    return {
      ticket: String(item.id),
      status: item.fields['System.State'] ?? null,
      labels: parseTags(item.fields['System.Tags']),
      title: item.fields['System.Title'] ?? null,
      description: item.fields['System.Description'] || item.fields['Microsoft.VSTS.TCM.ReproSteps'] || null,
      url: item._links?.html?.href ?? `${this.webBase}${item.id}`,
      concurrencyToken: String(item.rev),
    };
  }

  private itemPath(ticket: string): string {
    return `${this.project}/_apis/wit/workitems/${workItemId(ticket, this.platform)}`;
  }

  private commentsPath(ticket: string): string {
    return `${this.project}/_apis/wit/workItems/${workItemId(ticket, this.platform)}/comments`;
  }
}

function workItemId(ticket: string, platform: Platform): string {
  if (!/^\d+$/.test(ticket)) throw new TrackerError(`not a work item id: ${JSON.stringify(ticket)}`, platform, null, false);
  return ticket;
}

export function parseTags(tags: string | undefined): string[] {
  return (tags ?? '').split(';').map((t) => t.trim()).filter((t) => t.length > 0);
}

/** Statuses OR-ed, labels AND-ed, scoped to the team project. */
export function buildWiql(query: ListTicketsQuery): string {
  const where = ['[System.TeamProject] = @project'];
  if (query.statuses && query.statuses.length > 0) where.push(`[System.State] IN (${query.statuses.map(wiqlString).join(', ')})`);
  for (const label of query.labels ?? []) where.push(`[System.Tags] CONTAINS ${wiqlString(label)}`);
  return `SELECT [System.Id] FROM WorkItems WHERE ${where.join(' AND ')} ORDER BY [System.Id] ASC`;
}
