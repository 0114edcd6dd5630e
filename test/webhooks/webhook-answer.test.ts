import { describe, expect, it } from 'vitest';
import { clipText } from '../../src/common/clip-text.js';
import { MAX_ANSWER_TEXT, answer } from '../../src/webhooks/webhook-answer.js';

const clip = (text: string): string => clipText(text, MAX_ANSWER_TEXT);

describe('webhook answers', () => {
  it('keep the spec\'s exact bodies for normal inputs', () => {
    expect(answer.accepted('BILL-12', 'billing')).toEqual({ status: 202, body: 'Accepted: BILL-12 in billing' });
    expect(answer.alreadyClaimed('42')).toEqual({ status: 200, body: 'Already claimed: 42' });
    expect(answer.rejected('UnknownProject')).toEqual({ status: 200, body: 'Rejected: UnknownProject' });
    expect(answer.claimFailed('database unavailable')).toEqual({ status: 500, body: 'Claim failed: database unavailable' });
    expect(answer.storeUnavailable()).toEqual({ status: 503, body: 'store_unavailable' });
    expect(answer.filtered('x'.repeat(MAX_ANSWER_TEXT))).toEqual({ status: 200, body: `Filtered: ${'x'.repeat(200)}` });
  });

  it('cut longer text to 200 characters, "…" included', () => {
    expect(clip('y'.repeat(201))).toBe(`${'y'.repeat(199)}…`);
    expect(answer.rejected('r'.repeat(1_000_000)).body).toBe(`Rejected: ${'r'.repeat(199)}…`);
    expect(answer.claimFailed('e'.repeat(5000)).body).toBe(`Claim failed: ${'e'.repeat(199)}…`);
    expect(answer.accepted('T'.repeat(300), 'p').body).toBe(`Accepted: ${'T'.repeat(199)}… in p`);
  });

  it('never split a surrogate pair at the cut', () => {
    const text = `${'a'.repeat(198)}😀${'b'.repeat(10)}`; // the emoji is UTF-16 units 199 and 200
    expect(clip(text)).toBe(`${'a'.repeat(198)}…`);
    expect(clip(`${'a'.repeat(197)}😀${'b'.repeat(10)}`)).toBe(`${'a'.repeat(197)}😀…`);
  });
});
