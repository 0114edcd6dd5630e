/**
 * The store stream of `run.changed` (key parts under the store prefix: `svc:feed:run-changes`):
 * each entry is `id` (the run id) and `run` (the contract's Run as JSON), read by the replica
 * that made the change and relayed as it is by every replica's hub. Separate from the event feed
 * `svc:feed:runs`: a Run is larger than an event line, so it keeps fewer entries.
 */
export const RUN_CHANGES_STREAM = ['feed', 'run-changes'] as const;

/** Entries kept on the stream (approximate trim); readers only ever read new entries. */
export const RUN_CHANGES_MAX_LENGTH = 1_000;

/** Per run, the order of the last Run published (`<final 0|1>:<snapshot xmax>`). */
export const runVersionKey = (runId: string): string[] => ['feed', 'run-version', runId];

/** How long a run's last published order is kept: far longer than any read may lag behind. */
export const RUN_VERSION_TTL_SECONDS = 600;

/**
 * Appends a Run to the stream unless a newer one of the same run was appended already (two
 * replicas that change one run may publish their reads out of order). Order: a finished Run
 * beats a live one (a run never becomes live again), then the later database snapshot (its
 * xmax only grows) wins. KEYS: stream, version key. ARGV: final (0|1), xmax, ttl, maxlen, id, run.
 * Returns 1 when appended, 0 when refused as stale.
 */
export const PUBLISH_RUN_CHANGE_LUA = `
local last = redis.call('GET', KEYS[2])
local final = tonumber(ARGV[1])
local xmax = tonumber(ARGV[2])
if last then
  local sep = string.find(last, ':', 1, true)
  local lastFinal = tonumber(string.sub(last, 1, sep - 1))
  local lastXmax = tonumber(string.sub(last, sep + 1))
  if final < lastFinal or (final == lastFinal and xmax < lastXmax) then return 0 end
end
redis.call('SET', KEYS[2], ARGV[1] .. ':' .. ARGV[2], 'EX', ARGV[3])
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], '*', 'id', ARGV[5], 'run', ARGV[6])
return 1
`;
