import { describe, expect, it } from 'vitest';
import { readEnvironment } from '../config/environment.js';
import { buildConfig } from '../config/load-service-config.js';
import { firstRunAdvice } from './first-run-advice.js';

const env = readEnvironment({}, false);
const load = (raw: unknown) => buildConfig(raw, env, []);
const repo = { name: 'w', platform: 'platform-a', url: 'https://github.com/acme/w', auth_secret: 'ghp_x' };

describe("doctor's advice before a first run", () => {
  it('on built-in defaults: no project, no store', () => {
    const advice = firstRunAdvice(load({}), { kvstoreUrl: null });
    expect(advice).toHaveLength(2);
    expect(advice[0]).toMatch(/^No project is configured.*Projects → Add project/);
    expect(advice[1]).toMatch(/^No store is set \(KVSTORE_URL\).*KVSTORE_URL=embedded/);
  });

  it('names the projects whose triggers start a pipeline that needs a model while none is configured', () => {
    const config = load({
      pipelines: { hello: { commands: ['true'] } },
      projects: {
        shop: { tracker: 'platform-a', repos: [repo], platform_a_trigger: { trigger_statuses: ['go'], default_pipeline: 'code' } },
        ops: { tracker: 'platform-a', repos: [repo], platform_a_trigger: { trigger_statuses: ['go'], pipeline_from_label: { x: 'hello' } } },
      },
    });
    const advice = firstRunAdvice(config, { kvstoreUrl: '/data/store/redis.sock' });
    expect(advice).toEqual([expect.stringMatching(/^No model is configured .* but project shop starts pipelines that need one/)]);
  });

  it('says nothing when a labelled ticket can become a run', () => {
    const config = load({
      agent: { provider: 'openai', model: 'gpt-5.1', api_key: 'sk-x' },
      projects: { shop: { tracker: 'platform-a', repos: [repo], platform_a_trigger: { trigger_statuses: ['go'], default_pipeline: 'code' } } },
    });
    expect(firstRunAdvice(config, { kvstoreUrl: 'redis://kv:6379/0' })).toEqual([]);
  });
});
