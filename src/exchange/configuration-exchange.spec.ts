import { describe, expect, it } from 'vitest';
import { readEnvironment } from '../config/environment.js';
import { buildConfig } from '../config/load-service-config.js';
import { withSettings } from '../settings/settings-document.js';
import { referenceSources } from '../config/secret-references.js';
import { exportedConfiguration, importedSettings, secretReferences, unresolvedSecrets } from './configuration-exchange.js';

const file = {
  auth: { authority: 'https://idp.example', audience: 'svc', name_claim: 'email' },
  secrets: { FILE_TOKEN: 'file-value' },
  queue: { max_parallel_runs: 2, lease_ttl_seconds: 30 },
  capacity: { cpu: 8 },
  projects: { shop: { tracker: 'platform-a', repos: [{ name: 'web', platform: 'platform-a', url: 'https://github.com/a/web', auth_secret: '${REPO_TOKEN}' }] } },
  runs: null,
};

describe('the exported configuration', () => {
  it('is the file with the stored settings over it, references as written, without auth, secrets or absent blocks, keys sorted', () => {
    const exported = exportedConfiguration(file, { 'queue.max_parallel_runs': 6, observation_retention_days: 30 });
    expect(exported).toEqual({
      capacity: { cpu: 8 },
      observation_retention_days: 30,
      projects: file.projects,
      queue: { lease_ttl_seconds: 30, max_parallel_runs: 6 },
    });
    expect(Object.keys(exported)).toEqual(['capacity', 'observation_retention_days', 'projects', 'queue']);
    expect(Object.keys(exported.queue as object)).toEqual(['lease_ttl_seconds', 'max_parallel_runs']);
    expect(JSON.stringify(exported)).not.toContain('file-value');
  });

  it('imported as settings over another file reads as the source did: blocks the source lacks are masked with null', () => {
    const source = exportedConfiguration(file, {});
    const otherFile = { auth: { authority: 'https://other.example' }, sandbox: { backend: 'container-engine' }, capacity: { cpu: 1 }, 'bad key': 1 };
    const settings = importedSettings(source, otherFile);
    expect(settings).toEqual({ ...source, sandbox: null });
    const env = readEnvironment({ REPO_TOKEN: 'x' });
    const read = (doc: unknown) => buildConfig(doc, env, []);
    const there = read(withSettings(otherFile, settings));
    const here = read(withSettings(file, {}));
    expect({ ...there, auth: null, secrets: {} }).toEqual({ ...here, auth: null, secrets: {} });
    expect(exportedConfiguration(otherFile, settings)).toEqual({ ...source, 'bad key': 1 });
  });
});

describe('secret references', () => {
  const sourceOf = referenceSources({ FILE_TOKEN: 'v' }, { REPO_TOKEN: 'v', SPARE: 'v' }, { ENV_TOKEN: 'v', EMPTY: '' });

  it('list every referenced or stored name with its uses, never a value', () => {
    const configuration = { a: '${REPO_TOKEN}', b: ['${MISSING}', 'x-${ENV_TOKEN}-${MISSING}'] };
    expect(secretReferences(configuration, ['SPARE'], sourceOf)).toEqual([
      { name: 'ENV_TOKEN', source: 'environment', used_by: ['b[1]'] },
      { name: 'MISSING', source: 'unresolved', used_by: ['b[0]', 'b[1]'] },
      { name: 'REPO_TOKEN', source: 'stored', used_by: ['a'] },
      { name: 'SPARE', source: 'stored', used_by: [] },
    ]);
  });

  it('left unresolved are named once each, with every key using them', () => {
    const fields = [{ path: 'b[1]', names: ['MISSING', 'OTHER'] }, { path: 'b[0]', names: ['MISSING'] }, { path: 'b[1]', names: ['MISSING'] }];
    expect(unresolvedSecrets(fields)).toEqual([{ name: 'MISSING', used_by: ['b[0]', 'b[1]'] }, { name: 'OTHER', used_by: ['b[1]'] }]);
  });
});
