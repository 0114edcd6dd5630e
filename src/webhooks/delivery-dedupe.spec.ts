import { describe, expect, it } from 'vitest';
import { deliveryFingerprint } from './delivery-dedupe.service.js';

describe('deliveryFingerprint', () => {
  const body = Buffer.from('{"issue":{"number":1}}');

  it('is the same for the same id and bytes, and differs when either differs', () => {
    expect(deliveryFingerprint('d-1', body)).toBe(deliveryFingerprint('d-1', Buffer.from(body)));
    expect(deliveryFingerprint('d-1', body)).not.toBe(deliveryFingerprint('d-2', body));
    expect(deliveryFingerprint('d-1', body)).not.toBe(deliveryFingerprint('d-1', Buffer.from('{"issue":{"number":2}}')));
  });

  it('does not confuse where the id ends and the body begins', () => {
    expect(deliveryFingerprint('ab', Buffer.from('c'))).not.toBe(deliveryFingerprint('a', Buffer.from('bc')));
  });

  it('is 64 hex characters whatever the size of the id and body', () => {
    expect(deliveryFingerprint('x'.repeat(1_000_000), Buffer.alloc(5_000_000, 1))).toMatch(/^[0-9a-f]{64}$/);
    expect(deliveryFingerprint('', Buffer.alloc(0))).toMatch(/^[0-9a-f]{64}$/);
  });
});
