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

describe('validateSettings: what a save must not hold', () => {
  const repo = (auth_secret: unknown) => ({ tracker: 'platform-a', repos: [{ name: 'web', platform: 'platform-a', url: 'https://github.com/acme/web', auth_secret }] });

  it('names a literal value at a field the loader reads as a secret, and accepts a ${NAME} reference there', () => {
    const literal = validateSettings(env, {}, {}, {}, { 'projects.shop': repo('ghp_literal') }, ['projects.shop']);
    expect(literal.literalSecrets).toEqual(['projects.shop.repos[0].auth_secret']);
    const webhook = validateSettings(env, {}, {}, {}, { 'webhooks.platform_a_secret': 12345 }, ['webhooks.platform_a_secret']);
    expect(webhook.literalSecrets).toEqual(['webhooks.platform_a_secret']);
    const agent = validateSettings(env, {}, {}, {}, { agent: { api_key: 'sk-1', model: 'm' } }, ['agent']);
    expect(agent.literalSecrets).toEqual(['agent.api_key']);
    const tracker = validateSettings(env, {}, {}, {}, { 'projects.bill': { tracker: 'platform-d', platform_d_trigger: { credentials: 'bot:api-token', secret: '${HMAC}' } } }, ['projects.bill']);
    expect(tracker.literalSecrets).toEqual(['projects.bill.platform_d_trigger.credentials']);
    const registry = validateSettings(env, {}, {}, {}, { 'sandbox.registry': { server: 'r.example', username: 'u', password: 'pw' } }, ['sandbox.registry']);
    expect(registry.literalSecrets).toEqual(['sandbox.registry.password']);
    const reference = validateSettings(env, {}, { TOKEN: 'x' }, {}, { 'projects.shop': repo('${TOKEN}') }, ['projects.shop']);
    expect(reference.literalSecrets).toEqual([]);
  });

  it('leaves a literal the file holds outside the changed key to the file', () => {
    const file = { projects: { shop: repo('ghp_in_the_file') } };
    expect(validateSettings(env, file, {}, {}, { 'projects.shop.pr_commands': { enabled: true } }, ['projects.shop.pr_commands']).literalSecrets).toEqual([]);
  });

  it('refuses an unknown key saved below an unknown block (the loader names the block)', () => {
    const verdict = validateSettings(env, {}, {}, {}, { 'nonsense.key': 1 }, ['nonsense.key']);
    expect(verdict.problems.map((f) => f.field)).toEqual(['nonsense']);
  });
});

describe('validateSettings: a reference that resolves to nothing', () => {
  const repo = (auth_secret: unknown) => ({ tracker: 'platform-a', repos: [{ name: 'web', platform: 'platform-a', url: 'https://github.com/acme/web', auth_secret }] });
  const field = 'projects.shop.repos[0].auth_secret';

  it('refuses a new one by default (a single save names a secret that exists), and names it either way', () => {
    const verdict = validateSettings(env, {}, {}, {}, { 'projects.shop': repo('${MISSING}') }, ['projects.shop']);
    expect(verdict.problems.map((f) => f.field)).toEqual([field]);
    expect(verdict.unresolved.map(({ path, names }) => ({ path, names }))).toEqual([{ path: field, names: ['MISSING'] }]);
  });

  it('is unconfigured and not a problem when asked to report it (an import), while a bad value beside it still refuses', () => {
    const candidate = { 'projects.shop': repo('${MISSING}'), 'queue.max_parallel_runs': 'many' };
    const verdict = validateSettings(env, {}, {}, {}, candidate, Object.keys(candidate), { unresolved: 'report' });
    expect(verdict.problems.map((f) => f.field)).toEqual(['queue.max_parallel_runs']);
    expect(verdict.warnings).toEqual([]);
    expect(verdict.unresolved).toEqual([{ path: field, names: ['MISSING'], finding: expect.objectContaining({ field, severity: 'blocking' }) }]);
  });

  it('lists one the settings in force already had too, and none once it resolves', () => {
    const current = { 'projects.shop': repo('${MISSING}') };
    const again = validateSettings(env, {}, {}, current, current, ['projects.shop'], { unresolved: 'report' });
    expect(again.unresolved.map((u) => u.names)).toEqual([['MISSING']]);
    expect(validateSettings(env, {}, { MISSING: 'now-set' }, {}, current, ['projects.shop'], { unresolved: 'report' }).unresolved).toEqual([]);
  });
});
