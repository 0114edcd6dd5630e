import { expect } from 'vitest';
import type { FindingsBody, HealthBody } from './response-bodies.js';

/** The spec's background subsystem names, sorted. */
export const SUBSYSTEM_NAMES = ['capacity_queue', 'housekeeping', 'poller', 'queue_consumer', 'redis'];

export function isIsoUtc(value: unknown): boolean {
  return typeof value === 'string' && /Z$/.test(value) && new Date(value).toISOString() === value;
}

/** Asserts the exact shape of the spec's "Health response", and its status rule. */
export function expectHealthShape(body: HealthBody): void {
  expect(Object.keys(body).sort()).toEqual(['preflight', 'status', 'subsystems', 'timestamp']);
  expect(['ok', 'degraded']).toContain(body.status);
  expect(isIsoUtc(body.timestamp)).toBe(true);
  expect(Object.keys(body.preflight).sort()).toEqual(['completed_at_utc', 'failed', 'failures', 'passed', 'skipped', 'status']);
  expect(['pending', 'pass', 'fail']).toContain(body.preflight.status);
  if (body.preflight.status === 'pending') expect(body.preflight.completed_at_utc).toBeNull();
  else expect(isIsoUtc(body.preflight.completed_at_utc)).toBe(true);
  for (const n of [body.preflight.passed, body.preflight.failed, body.preflight.skipped]) expect(Number.isInteger(n) && n >= 0).toBe(true);
  expect(body.preflight.failures).toHaveLength(body.preflight.failed);
  expect(body.preflight.status === 'fail').toBe(body.preflight.failed > 0);
  for (const f of body.preflight.failures) {
    expect(Object.keys(f).sort()).toEqual(['fix_hint', 'message', 'name']);
    for (const v of Object.values(f)) expect(typeof v).toBe('string');
  }
  expect(body.subsystems.map((s) => s.name).sort()).toEqual(SUBSYSTEM_NAMES);
  for (const s of body.subsystems) {
    expect(Object.keys(s).sort()).toEqual(['last_changed_utc', 'name', 'reason', 'state']);
    expect(['up', 'degraded', 'down', 'disabled']).toContain(s.state);
    expect(typeof s.reason).toBe('string');
    expect(isIsoUtc(s.last_changed_utc)).toBe(true);
  }
  // The status rule: degraded while any subsystem is down or degraded; disabled does not count.
  const counting = body.subsystems.some((s) => s.state === 'down' || s.state === 'degraded');
  expect(body.status).toBe(counting ? 'degraded' : 'ok');
}

/** Asserts the exact shape of the spec's "Findings response" and that its counts agree with its list. */
export function expectFindingsShape(body: FindingsBody): void {
  expect(Object.keys(body).sort()).toEqual(['advisory', 'blocking', 'degraded', 'findings']);
  for (const f of body.findings) {
    expect(Object.keys(f).sort()).toEqual(['field', 'project', 'reason', 'severity', 'subsystem', 'trigger']);
    expect(['blocking', 'advisory']).toContain(f.severity);
    expect(typeof f.subsystem).toBe('string');
    expect(typeof f.reason).toBe('string');
    for (const k of ['project', 'trigger', 'field'] as const) expect(f[k] === null || typeof f[k] === 'string').toBe(true);
  }
  const blocking = body.findings.filter((f) => f.severity === 'blocking').length;
  expect(body.blocking).toBe(blocking);
  expect(body.advisory).toBe(body.findings.length - blocking);
  expect(body.degraded).toBe(blocking > 0);
}

export function subsystem(body: HealthBody, name: string): HealthBody['subsystems'][number] {
  const found = body.subsystems.find((s) => s.name === name);
  if (!found) throw new Error(`no subsystem ${name} in /health`);
  return found;
}
