import type { ProjectConfig, RepoConfig } from '../config/service-config.js';
import type { PullRequestConversations } from '../conversations/pull-request-conversations.js';
import type { TicketCriteriaFormat } from '../criteria/criteria.js';
import type { CommentMarkup } from './comment-markup.js';
import type { TrackerHttpOptions } from './http/tracker-http.js';
import type { EventRoute } from './inbound-event.js';
import type { Platform } from './platform.js';
import type { PlatformConnection } from './platform-connection.js';
import type { PlatformIngress } from './platform-ingress.js';
import type { PlatformTraits } from './platform-traits.js';
import type { PullRequestHost } from './pull-request-host.js';
import type { PullRequestReviews } from './pull-request-review.js';
import type { TrackerClient } from './tracker-client.js';
import type { AuthorRef, HostVerdict, WriteAccessLookup } from './write-access-lookup.js';

/**
 * Everything the service knows about one platform, said in its folder (`<name>-platform.ts`)
 * and listed once in `platform-registry.ts`. Code outside `src/platforms/` asks the registry for
 * a descriptor's part and never compares a platform's name.
 */
export interface PlatformDescriptor {
  readonly id: Platform;
  /** The product's name, for people (`GitHub`). */
  readonly product: string;
  readonly traits: PlatformTraits;
  /** Webhook deliveries: event name, delivery id, signature and payload mapping. */
  readonly ingress: PlatformIngress;
  /** How the failure, hand-back and pull-request comments are written on its tickets. */
  readonly commentMarkup: CommentMarkup;
  /** Where a ticket's acceptance criteria are written. */
  readonly criteria: TicketCriteriaFormat;
  /** How an event finds its project (contract "Platforms"). */
  readonly routing: ProjectRouting;
  /** The tracker's web page of a ticket, from the configuration alone (null: none known). */
  ticketUrl(project: ProjectConfig, ticket: string): string | null;
  readonly tracker: TrackerPart;
  /** Null for a platform that hosts no code (Jira). */
  readonly codeHost: CodeHostPart | null;
}

/**
 * Routing by the repository's web URL among the projects' `repos[].url`, or by a field of the
 * project's trigger block equal to one of the event's route fields (case-insensitive).
 */
export type ProjectRouting =
  | { by: 'repository-url' }
  | { by: 'trigger-field'; field: 'team_project' | 'project_key'; route: Exclude<keyof EventRoute, 'repositoryUrl'> };

export interface TrackerPart {
  /** What the project's configuration lacks to reach the tracker, null when nothing does. */
  missingSettings(project: ProjectConfig): string | null;
  /** The client with `http`, and the origin of its API (the write budget's key). Called once settings are complete. */
  create(project: ProjectConfig, http: TrackerHttpOptions): { client: TrackerClient; host: string };
  /**
   * The diagnostics' probe of a tracker configured in the trigger block: the key holding its URL
   * and the connection at that URL with a token. Absent where the tracker is the repository's
   * issues: the repository's code host is probed instead.
   */
  readonly probe?: { urlKey: 'organization_url' | 'site_url'; connect(url: string, token: string, http: TrackerHttpOptions): PlatformConnection };
}

export interface CodeHostPart {
  pullRequests(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestHost;
  reviews(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestReviews;
  conversations(repo: RepoConfig, http?: TrackerHttpOptions): PullRequestConversations;
  /** The diagnostics' probe of the repository's API with its token. */
  connection(repo: RepoConfig & { auth_secret: string }, http: TrackerHttpOptions): PlatformConnection;
  /**
   * Whether a pull-request author may command the service: decided from the payload alone
   * (GitHub's author_association), or asked of the host with the repository's token.
   */
  readonly writeAccess:
    | { from: 'payload'; verdict(association: string | null, author: AuthorRef): HostVerdict }
    | { from: 'host'; lookup(repo: RepoConfig, http?: TrackerHttpOptions): WriteAccessLookup };
  /**
   * A pull request's update event may carry a reviewer's request for changes, read back through
   * the conversations API (GitLab's merge-request hook).
   */
  readonly updatesCarryChangeRequests: boolean;
  /** What a person does on a pull request to answer a parked run (Markdown), where the service hears it. */
  readonly answerAct: string;
}
