import type { IncomingHttpHeaders } from 'node:http';
import type { ServiceConfig, TriggerConfig } from '../../../src/config/service-config.js';
import { NO_CRITERIA } from '../../../src/criteria/criteria.js';
import { MARKDOWN_COMMENT_MARKUP } from '../../../src/platforms/comment-markup.js';
import { type InboundEvent, ignored, ticketEvent } from '../../../src/platforms/inbound-event.js';
import type { Platform } from '../../../src/platforms/platform.js';
import type { PlatformDescriptor } from '../../../src/platforms/platform-descriptor.js';
import {
  type LabelReplaceResult, type TicketComment, type TicketSnapshot, type TrackerClient, TrackerError, assertLifecycleLabel, withLifecycleLabel,
} from '../../../src/platforms/tracker-client.js';
import { hmacSha256Hex, secretUnset, verifySha256Header } from '../../../src/platforms/webhook-signature.js';

/**
 * A fifth platform that exists only in this folder: its tracker speaks a small JSON API
 * (fifth-tracker-stand-in.ts), its deliveries are `{ event, project, ticket, labels }` signed
 * with `X-Fifth-Signature: sha256=<hex>` under the project's `secret`. Nothing in `src/` knows
 * it; registering this descriptor is all it takes for the server to serve it.
 */
export const FIFTH = 'platform-e' as Platform;

const header = (headers: IncomingHttpHeaders, name: string): string | null => {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
};
const field = (body: unknown, key: string): unknown => (body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined);

/** The project whose `platform_e_trigger.project_key` the delivery names; its secret. */
function secretFor(config: Pick<ServiceConfig, 'projects'>, body: unknown): string | null {
  const key = String(field(body, 'project') ?? '').toLowerCase();
  const project = Object.values(config.projects).find((p) => p.triggers[FIFTH]?.project_key?.toLowerCase() === key);
  return project?.triggers[FIFTH]?.secret ?? null;
}

function parse(eventName: string | null, body: unknown): InboundEvent {
  const ticket = field(body, 'ticket');
  const labels = field(body, 'labels');
  if (eventName !== 'ticket.labeled' || typeof ticket !== 'string' || !Array.isArray(labels)) {
    return ignored(`not a labelled ticket: ${eventName}`);
  }
  return ticketEvent(
    { platform: FIFTH, eventName, deliveryId: null, route: { projectKey: String(field(body, 'project')) }, ticket },
    [{ type: 'labels-added', labels: labels.map(String) }],
  );
}

/** The tracker client: GET a ticket, PUT its labels under If-Match, comments. */
export class FifthTrackerClient implements TrackerClient {
  readonly platform = FIFTH;

  constructor(private readonly baseUrl: string, private readonly token: string) {}

  private async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(`${this.baseUrl}/api${path}`, {
      method, headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok && res.status !== 412) throw new TrackerError(`${method} ${path}: ${res.status}`, FIFTH, res.status, res.status >= 500);
    return res;
  }

  async readTicket(ticket: string): Promise<TicketSnapshot> {
    const t = await (await this.call('GET', `/tickets/${ticket}`)).json() as { labels: string[]; status: string; title: string; version: number };
    return { ticket, status: t.status, labels: t.labels, title: t.title, description: null, url: null, concurrencyToken: String(t.version) };
  }

  async replaceLifecycleLabel(ticket: string, next: string | null, read: TicketSnapshot): Promise<LabelReplaceResult> {
    assertLifecycleLabel(FIFTH, next);
    const res = await this.call('PUT', `/tickets/${ticket}/labels`, { labels: withLifecycleLabel(read.labels, next) }, { 'if-match': read.concurrencyToken ?? '' });
    return res.status === 412 ? { outcome: 'PreconditionFailed' } : { outcome: 'Updated' };
  }

  async setStatus(ticket: string, status: string): Promise<void> {
    await this.call('PUT', `/tickets/${ticket}`, { status });
  }

  async postComment(ticket: string, body: string): Promise<string> {
    return ((await (await this.call('POST', `/tickets/${ticket}/comments`, { body })).json()) as { id: string }).id;
  }

  async listComments(ticket: string): Promise<TicketComment[]> {
    const comments = await (await this.call('GET', `/tickets/${ticket}/comments`)).json() as { id: string; body: string }[];
    return comments.map((c) => ({ ...c, author: null }));
  }

  async listTickets(): Promise<TicketSnapshot[]> {
    return [];
  }
}

const needs = (trigger: TriggerConfig | undefined) => Boolean(trigger?.site_url && trigger.credentials);

export const FIFTH_PLATFORM: PlatformDescriptor = {
  id: FIFTH,
  product: 'Fifth',
  traits: {
    writeRate: { perMinute: 600, burst: 20 },
    gitUsername: 'fifth',
    conditionalLabelWrites: true,
    statusesAreLabels: false,
    labelEventsCarryAllLabels: false,
    ticketReference: 'key',
  },
  ingress: {
    platform: FIFTH,
    eventName: (headers) => header(headers, 'x-fifth-event'),
    deliveryId: (headers) => header(headers, 'x-fifth-delivery'),
    parse: (eventName, body) => parse(eventName, body),
    secretFor,
    verify: (headers, rawBody, secret) => (secretUnset(secret) ? 'skipped' : verifySha256Header(header(headers, 'x-fifth-signature'), secret, rawBody)),
  },
  commentMarkup: MARKDOWN_COMMENT_MARKUP,
  criteria: { parse: () => NO_CRITERIA },
  routing: { by: 'trigger-field', field: 'project_key', route: 'projectKey' },
  ticketUrl: (project, ticket) => {
    const site = project.triggers[FIFTH]?.site_url;
    return site ? `${site}/tickets/${ticket}` : null;
  },
  tracker: {
    missingSettings: (project) => (needs(project.triggers[FIFTH]) ? null : 'platform_e_trigger needs site_url and credentials'),
    create: (project) => {
      const trigger = project.triggers[FIFTH]!;
      return { client: new FifthTrackerClient(trigger.site_url!, trigger.credentials!), host: new URL(trigger.site_url!).origin };
    },
  },
  codeHost: null,
};

/** A signed delivery's headers for `raw`. */
export function fifthHeaders(raw: string, secret: string, delivery: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-fifth-event': 'ticket.labeled',
    'x-fifth-delivery': delivery,
    'x-fifth-signature': `sha256=${hmacSha256Hex(secret, Buffer.from(raw))}`,
  };
}
