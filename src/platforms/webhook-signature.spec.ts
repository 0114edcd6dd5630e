import { describe, expect, it } from 'vitest';
import { constantTimeEquals, hmacSha256Hex, signatureAccepted } from './webhook-signature.js';

describe('constantTimeEquals', () => {
  it('is true only for identical strings', () => {
    expect(constantTimeEquals('abc', 'abc')).toBe(true);
    expect(constantTimeEquals('abc', 'abd')).toBe(false);
    expect(constantTimeEquals('abc', 'abcd')).toBe(false);
    expect(constantTimeEquals('', 'a')).toBe(false);
    expect(constantTimeEquals('', '')).toBe(true);
  });

  it('compares inputs of any lengths without throwing (timingSafeEqual needs equal lengths)', () => {
    expect(() => constantTimeEquals('x'.repeat(10_000), 'y')).not.toThrow();
  });
});

describe('hmacSha256Hex', () => {
  it('matches GitHub’s documented test vector', () => {
    expect(hmacSha256Hex("It's a Secret to Everybody", Buffer.from('Hello, World!'))).toBe(
      '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });
});

describe('signatureAccepted', () => {
  it('lets ok and skipped through, refuses missing and invalid', () => {
    expect(signatureAccepted('ok')).toBe(true);
    expect(signatureAccepted('skipped')).toBe(true);
    expect(signatureAccepted('missing')).toBe(false);
    expect(signatureAccepted('invalid')).toBe(false);
  });
});
