import { describe, expect, it } from 'vitest';
import { readChoice } from './model-intent-classifier.js';

const PIPELINES = new Set(['code', 'security-scan']);

describe('the model\'s choice of an intent', () => {
  it('is read back through the ticket rules and the pipelines configured', () => {
    expect(readChoice({ intent: 'start', ticket: 'shop#4' }, PIPELINES, 't')).toEqual({ kind: 'start', pipeline: null, ref: { kind: 'number', project: 'shop', ticket: '4' } });
    expect(readChoice({ intent: 'start', pipeline: 'Security-Scan', ticket: 'BILL-2' }, PIPELINES, 't')).toEqual({ kind: 'start', pipeline: 'security-scan', ref: { kind: 'key', key: 'BILL-2' } });
    expect(readChoice({ intent: 'state' }, PIPELINES, 't')).toEqual({ kind: 'state', ref: null });
  });

  it('can never widen the intents: an unknown pipeline, intent or ticket is no intent', () => {
    expect(readChoice({ intent: 'start', pipeline: 'deploy', ticket: 'shop#4' }, PIPELINES, 't').kind).toBe('unknown');
    expect(readChoice({ intent: 'start', ticket: 'the billing one' }, PIPELINES, 't').kind).toBe('unknown');
    expect(readChoice({ intent: 'delete_everything' }, PIPELINES, 't').kind).toBe('unknown');
    expect(readChoice({ intent: 'cancel' }, PIPELINES, 't').kind).toBe('unknown');
    expect(readChoice({}, PIPELINES, 't').kind).toBe('unknown');
  });
});
