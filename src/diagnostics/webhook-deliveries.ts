import type { ServiceConfig } from '../config/service-config.js';
import type { DatabaseService } from '../database/database.service.js';
import { ALL_PLATFORMS, type Platform } from '../platforms/platform.js';

export interface WebhookStatus {
  platform: Platform;
  secretConfigured: boolean;
  lastDelivery: { at: string; outcome: string } | null;
}

/** `platform-a` → `platform_a_secret`. */
const secretKeyOf = (platform: Platform) => `platform_${platform.slice(-1)}_secret` as keyof ServiceConfig['webhooks'];

/**
 * Per platform: whether deliveries are verified (a webhook secret is configured: the platform's
 * own, or for platform-d any project's Jira `secret`) and the last delivery the trigger log holds
 * with its outcome. Reads the database only; while it is away, no delivery is known.
 */
export async function webhookStatuses(config: ServiceConfig, db: DatabaseService): Promise<WebhookStatus[]> {
  const last = await lastDeliveries(db);
  return ALL_PLATFORMS.map((platform) => ({
    platform,
    secretConfigured: Boolean(config.webhooks[secretKeyOf(platform)])
      || Object.values(config.projects).some((p) => Boolean(p.triggers[platform]?.secret)),
    lastDelivery: last.get(platform) ?? null,
  }));
}

async function lastDeliveries(db: DatabaseService): Promise<Map<string, { at: string; outcome: string }>> {
  const found = new Map<string, { at: string; outcome: string }>();
  if (!db.isReady) return found;
  // One index walk per platform (trigger_log_received_at, newest first) rather than a scan of the log.
  // A database that fails now leaves the panel without deliveries: the connections are what matter then.
  const rows = await db.dataSource.query<{ platform: string; received_at: Date; outcome: string }[]>(
    `SELECT p.platform, l.received_at, l.outcome FROM unnest($1::text[]) AS p(platform)
       JOIN LATERAL (SELECT received_at, outcome FROM trigger_log t
                      WHERE t.platform = p.platform AND t.source = 'webhook' ORDER BY received_at DESC LIMIT 1) l ON true`,
    [ALL_PLATFORMS],
  ).catch(() => []);
  for (const row of rows) found.set(row.platform, { at: new Date(row.received_at).toISOString(), outcome: row.outcome });
  return found;
}
