import { Logger, type LoggerService } from '@nestjs/common';
import pg from 'pg';
import { DatabaseService } from '../../../src/database/database.service.js';
import type { TriggerLogEntry } from '../../../src/webhooks/trigger-log.service.js';
import { testEnvironment } from '../../support/test-env.js';

/** Trigger-log service tests: the real DatabaseService on a test database, and what got logged. */

/** A DatabaseService on `url` (opened; its state is whatever the database allows). */
export async function openDatabase(url: string): Promise<DatabaseService> {
  const db = new DatabaseService(testEnvironment({ DATABASE_URL: url }));
  await db.open();
  return db;
}

/** A delivery's entry; `deliveryId` tells rows apart. */
export function entry(deliveryId: string, fields: Partial<TriggerLogEntry> = {}): TriggerLogEntry {
  return {
    receivedAt: new Date(), platform: 'platform-a', event: 'issues', deliveryId, project: 'demo', ticket: '42',
    outcome: 'filtered', reason: null, statusCode: 202, ...fields,
  };
}

export interface StoredRow {
  event: string | null;
  delivery_id: string;
  ticket: string | null;
  reason: string | null;
  status_code: number;
}

/** Rows whose delivery id starts with `prefix`, in insertion order. */
export async function storedRows(pool: pg.Pool, prefix: string): Promise<StoredRow[]> {
  const { rows } = await pool.query<StoredRow>(
    'SELECT event, delivery_id, ticket, reason, status_code FROM trigger_log WHERE starts_with(delivery_id, $1) ORDER BY id', [prefix]);
  return rows;
}

/** Collects every Nest log line (the service's warnings are part of the contract: losses must show). */
export function captureLogs(): string[] {
  const lines: string[] = [];
  const push = (message: unknown): void => void lines.push(String(message));
  const logger: LoggerService = { log: push, warn: push, error: push, debug: push, verbose: push, fatal: push };
  Logger.overrideLogger(logger);
  return lines;
}
