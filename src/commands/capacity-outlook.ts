import type { DatabaseService } from '../database/database.service.js';
import { LIVE_RUN_STATES } from '../database/entities/run.entity.js';
import type { ServiceConfig } from '../config/service-config.js';
import { type Footprint, exceedsCapacity, fits, footprintOf, sandboxCount } from '../runs/capacity/footprint.js';

/**
 * Whether a run just claimed starts now or waits for capacity (spec rule 4: the pull request is
 * told "admitted, queued for capacity or refused"): it waits when runs claimed before it still
 * wait, or when it does not fit beside what admitted runs hold. A reading, not a promise: the
 * capacity leader decides a moment later.
 */
export async function waitsForCapacity(db: DatabaseService, config: ServiceConfig, runId: string, project: string): Promise<boolean> {
  const capacity = config.capacity;
  if (capacity === null) return false;
  const [row] = await db.dataSource.query(
    `SELECT
       (SELECT COUNT(*) FROM runs w WHERE w.state = 'queued' AND w.admitted_at IS NULL
          AND w.queue_seq < (SELECT queue_seq FROM runs WHERE id = $1)) AS ahead,
       (SELECT COALESCE(SUM(cpu_request), 0) FROM runs WHERE admitted_at IS NOT NULL AND state = ANY($2::text[])) AS cpu,
       (SELECT COALESCE(SUM(memory_request), 0) FROM runs WHERE admitted_at IS NOT NULL AND state = ANY($2::text[])) AS memory`,
    [runId, LIVE_RUN_STATES]) as { ahead: string; cpu: string; memory: string }[];
  if (Number(row?.ahead ?? 0) > 0) return true;
  const used: Footprint = { cpu: Number(row?.cpu ?? 0), memory: Number(row?.memory ?? 0) };
  return !fits(used, footprintFor(config, project), capacity);
}

/** A run of `project` could never fit: more than the whole capacity. */
export function neverFits(config: ServiceConfig, project: string): boolean {
  return exceedsCapacity(footprintFor(config, project), config.capacity);
}

function footprintFor(config: ServiceConfig, project: string): Footprint {
  return footprintOf(sandboxCount(config.projects[project]), config.sandbox);
}
