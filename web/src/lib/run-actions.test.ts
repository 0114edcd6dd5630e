import { describe, expect, it } from 'vitest';
import { RUN_STATES } from '../api/types';
import { cancelRefusal, deleteRefusal, retryRefusal } from './run-actions';

describe('which run controls a state allows (and why not)', () => {
  const allowed = (rule: (s: (typeof RUN_STATES)[number]) => string | null) => RUN_STATES.filter((s) => rule(s) === null);
  it('cancel: queued, running, parked', () => expect(allowed(cancelRefusal)).toEqual(['queued', 'running', 'parked']));
  it('retry: failed, cancelled, parked', () => expect(allowed(retryRefusal).sort()).toEqual(['cancelled', 'failed', 'parked']));
  it('delete: not while live', () => expect(allowed(deleteRefusal).sort()).toEqual(['cancelled', 'failed', 'succeeded']));
  it('a refusal says why, naming the state', () => {
    expect(cancelRefusal('succeeded')).toMatch(/ended \(succeeded\)/);
    expect(deleteRefusal('running')).toMatch(/cancel it before deleting/);
  });
});
