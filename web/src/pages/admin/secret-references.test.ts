import { describe, expect, it } from 'vitest';
import type { ConfigOverview } from './admin-types';
import { secretReferences } from './secret-references';

describe('the secrets the configuration references', () => {
  it('collects each name once with every key using it, unresolved first, the secrets block left out', () => {
    const config: ConfigOverview = {
      file: { path: '/x', present: true }, revision: '1', bootstrap: [], secrets: { file: ['A'], stored: [] },
      keys: [
        { key: 'agent.api_key', value: '${A}', source: 'file', references: [{ name: 'A', from: 'secrets-block' }] },
        { key: 'projects.shop.repos[0].auth_secret', value: '${SHOP}', source: 'store', references: [{ name: 'SHOP', from: 'unresolved' }] },
        { key: 'projects.shop.repos[1].auth_secret', value: '${SHOP}', source: 'store', references: [{ name: 'SHOP', from: 'unresolved' }] },
        { key: 'secrets.A', value: '***', source: 'file', references: [{ name: 'A', from: 'secrets-block' }] },
        { key: 'queue.max_parallel_runs', value: 4, source: 'default' },
      ],
    };
    expect(secretReferences(config)).toEqual([
      { name: 'SHOP', from: 'unresolved', usedBy: ['projects.shop.repos[0].auth_secret', 'projects.shop.repos[1].auth_secret'] },
      { name: 'A', from: 'secrets-block', usedBy: ['agent.api_key'] },
    ]);
  });
});
