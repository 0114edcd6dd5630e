import { describe, expect, it } from 'vitest';
import { type ConfigDocument, renderConfigDocument } from './config-document.js';
import { parseConfigText, readConfigDocument } from './config-document.reader.js';

const document: ConfigDocument = {
  format: 'pipeline-service-config',
  version: 1,
  exported_at: '2025-01-02T03:04:05.000Z',
  exported_by: 'root@example.test',
  configuration: { queue: { max_parallel_runs: 3 }, projects: { shop: { repos: [{ auth_secret: '${REPO_TOKEN}' }] } } },
  access: {
    claim_names: { role_claim: 'roles', group_claim: 'groups', name_claim: 'email' },
    people: [{ claim: 'email', value: 'ann@example.test', roles: ['admin'] }],
    groups: { ops: ['operator'] },
    roles: { auditor: ['runs.read'] },
  },
  secrets: [{ name: 'REPO_TOKEN', source: 'stored', used_by: ['projects.shop.repos[0].auth_secret'] }],
};

describe('the configuration document', () => {
  it('renders as YAML that reads back as itself, with no problem', () => {
    const text = renderConfigDocument(document);
    expect(text.startsWith('# pipeline-service-config version 1')).toBe(true);
    expect(text).toContain('auth_secret: ${REPO_TOKEN}');
    const parsed = parseConfigText(text);
    expect(parsed).toEqual({ value: document });
    expect(readConfigDocument((parsed as { value: unknown }).value)).toEqual({ parts: { configuration: document.configuration, access: document.access }, problems: [] });
  });

  it('lists every shape problem, each at its path', () => {
    const bad = {
      format: 'other', version: 2, extra: true,
      configuration: { auth: { enforce: false }, secrets: { A: 'b' }, queue: {} },
      access: {
        claim_names: { role_claim: 'roles', group_claim: '', name_claim: 'sub', more: 'x' },
        people: [{ claim: 'sub', value: 'a', roles: ['reader'] }, { claim: 'sub', value: 'a', roles: [] }, 'nobody'],
        groups: { '/ops': ['operator'], ops: ['reader'] },
        roles: { Auditor: ['runs.read'], auditor: 'runs.read' },
      },
      secrets: [{ name: 'OK' }, { name: 'A', value: 'leaked' }, { name: '1bad' }],
    };
    const { parts, problems } = readConfigDocument(bad);
    expect(parts).toEqual({ configuration: { queue: {} }, access: null });
    expect(problems.map((p) => p.path)).toEqual([
      'extra', 'format', 'version', 'secrets[1].value', 'secrets[2].name', 'configuration.auth', 'configuration.secrets',
      'access.claim_names.more', 'access.claim_names.group_claim', 'access.people[1]', 'access.people[2]', 'access.groups.ops', 'access.roles.auditor',
    ]);
    expect(problems.find((p) => p.path === 'configuration.auth')?.error).toContain('claim names travel in access.claim_names');
    expect(JSON.stringify(problems)).not.toContain('leaked');
  });

  it('refuses a body that is not YAML, or not a mapping, at the root', () => {
    expect(parseConfigText('a: [1')).toMatchObject({ problem: { path: '' } });
    expect(parseConfigText('a: 1\na: 2')).toMatchObject({ problem: { path: '', error: expect.stringContaining('unique') } });
    expect(readConfigDocument(null).problems).toEqual([{ path: '', error: expect.stringContaining('must be a mapping') }]);
  });
});
