import type { Observation } from '../auth/access-rules.js';
import type { Query } from './access-snapshot.js';

/** The callers seen inside the observation window, newest first. */
export async function readObservations(query: Query, windowDays: number): Promise<Observation[]> {
  const rows = (await query(
    `SELECT subject, name_claim, name_value, role_values, group_values, last_seen FROM access_observations
     WHERE last_seen > now() - make_interval(days => $1) ORDER BY last_seen DESC`,
    [windowDays],
  )) as { subject: string; name_claim: string; name_value: string | null; role_values: string[]; group_values: string[]; last_seen: Date }[];
  return rows.map((r) => ({
    subject: r.subject, nameClaim: r.name_claim, nameClaimValue: r.name_value,
    roleClaimValues: r.role_values, groupClaimValues: r.group_values, lastSeen: r.last_seen,
  }));
}
