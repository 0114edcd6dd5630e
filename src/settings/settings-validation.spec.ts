import { describe, expect, it } from 'vitest';
import { readEnvironment } from '../config/environment.js';
import { validateSettings } from './settings-validation.js';

const env = readEnvironment({});

describe('validateSettings', () => {
  it('refuses a bad value and an unknown key under the changed key, like the loader reads them', () => {
    const bad = validateSettings(env, {}, {}, {}, { 'queue.max_parallel_runs': 'many' }, ['queue.max_parallel_runs']);
    expect(bad.problems.map((f) => f.field)).toEqual(['queue.max_parallel_runs']);
    const typo = validateSettings(env, {}, {}, {}, { queue: { max_parralel_runs: 3 } }, ['queue']);
    expect(typo.problems.map((f) => f.field)).toEqual(['queue.max_parralel_runs']);
    expect(validateSettings(env, {}, {}, {}, { 'queue.max_parallel_runs': 3 }, ['queue.max_parallel_runs']).problems).toEqual([]);
  });

  it('does not blame a save for what was already wrong in the file', () => {
    const file = { queue: { max_parallel_runs: 'many' } };
    const verdict = validateSettings(env, file, {}, {}, { observation_retention_days: 30 }, ['observation_retention_days']);
    expect(verdict.problems).toEqual([]);
  });
});
