/**
 * What the rest of the service must know about a platform's behaviour, said once in the
 * platform's folder (`<name>-traits.ts`) and read through `traitsOf` — never by comparing a
 * platform's name outside `src/platforms/`.
 */
export interface PlatformTraits {
  /** Write budget per API host: a burst beyond it queues instead of meeting 403/429. */
  writeRate: { perMinute: number; burst: number };
  /** The user name git sends with the repository's `auth_secret` over smart HTTP. */
  gitUsername: string;
  /**
   * Whether a ticket's labels can be replaced conditionally (a version or etag the tracker
   * checks). Without (Jira), lifecycle label writes of one ticket are serialised by a lock.
   */
  conditionalLabelWrites: boolean;
  /** Tickets have no status: a trigger status is modelled as a label (GitHub, GitLab issues). */
  statusesAreLabels: boolean;
  /**
   * A pull request's label event names every current label, not the ones just added (GitLab's
   * merge-request hook): a trigger label is looked for among all of them.
   */
  labelEventsCarryAllLabels: boolean;
  /** How a ticket is written in a command: a key like `BILL-12`, or a number (`#42`, `AB#42`). */
  ticketReference: 'key' | 'number';
}
