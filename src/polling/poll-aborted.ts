/** The poller lost its lease (or the project's task was replaced) during a cycle: it stops there, storing nothing. */
export class PollAborted extends Error {
  override readonly name = 'PollAborted';
}

/** Between two steps of a cycle: go on only while this replica still polls the project. */
export function ensureActive(active: () => boolean): void {
  if (!active()) throw new PollAborted('polling stopped during the cycle');
}
