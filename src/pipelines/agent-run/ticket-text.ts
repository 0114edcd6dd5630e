import { parseTicketCriteria } from '../../platforms/ticket-criteria.js';
import type { TrackerClient } from '../../platforms/tracker-client.js';
import type { TicketText } from './agent-support.js';

/** The ticket's title, description, acceptance criteria and comments, read through its tracker's client. */
export async function readTicketText(client: TrackerClient, ticket: string): Promise<TicketText> {
  const [snapshot, comments] = await Promise.all([client.readTicket(ticket), client.listComments(ticket)]);
  return {
    ticket,
    platform: client.platform,
    title: snapshot.title,
    description: snapshot.description,
    comments: comments.map((c) => ({ author: c.author, body: c.body })),
    criteria: parseTicketCriteria(client.platform, snapshot),
  };
}
