import { describe, expect, it } from 'vitest';
import { hasReference, isReferenceOnly, referenceSources, resolveReferences } from './secret-references.js';

describe('resolveReferences', () => {
  it('resolves against secrets first, then the environment', () => {
    expect(resolveReferences('${A}', { A: 'secret' }, { A: 'env' })).toEqual({ value: 'secret' });
    expect(resolveReferences('${A}', {}, { A: 'env' })).toEqual({ value: 'env' });
  });

  it('resolves several references inside one string', () => {
    expect(resolveReferences('${USER}:${TOKEN}@x', { USER: 'bot' }, { TOKEN: 't' })).toEqual({ value: 'bot:t@x' });
  });

  it('names every reference that resolves to nothing', () => {
    expect(resolveReferences('${A}-${B}-${C}', {}, { B: 'b', C: '' })).toEqual({ unresolved: ['A', 'C'] });
  });

  it('leaves text without references alone', () => {
    expect(resolveReferences('plain $HOME {x}', {}, {})).toEqual({ value: 'plain $HOME {x}' });
    expect(hasReference('plain')).toBe(false);
    expect(hasReference('a ${B}')).toBe(true);
    expect(hasReference('a ${B}')).toBe(true); // the global regex keeps no state between calls
  });

  it('never resolves a name to a member of Object.prototype', () => {
    expect(resolveReferences('${toString}', {}, {})).toEqual({ unresolved: ['toString'] });
    expect(resolveReferences('${constructor}-${hasOwnProperty}', {}, { PATH: '/bin' })).toEqual({ unresolved: ['constructor', 'hasOwnProperty'] });
    // …while a real variable or secret of such a name still resolves.
    expect(resolveReferences('${constructor}', {}, { constructor: 'from-env' })).toEqual({ value: 'from-env' });
    expect(resolveReferences('${toString}', { toString: 'from-secrets' }, {})).toEqual({ value: 'from-secrets' });
  });
});

describe('isReferenceOnly', () => {
  it('holds for references alone, not for a literal beside them', () => {
    for (const ok of ['${A}', ' ${A} ', '${USER}${TOKEN}']) expect(isReferenceOnly(ok)).toBe(true);
    for (const literal of ['ghp_abc', 'bot:${TOKEN}', '${A}x', '$A', '${1A}', '']) expect(isReferenceOnly(literal)).toBe(false);
  });
});

describe('referenceSources', () => {
  it('tells where resolveReferences finds each name: the file block, then stored secrets, then a non-empty variable', () => {
    const file = { FILE_TOKEN: 'v', BLANK: '' };
    const stored = { REPO_TOKEN: 'v', BLANK: 'stored' };
    const env = { ENV_TOKEN: 'v', EMPTY: '', BLANK: 'env' };
    const sourceOf = referenceSources(file, stored, env);
    const names = ['FILE_TOKEN', 'REPO_TOKEN', 'ENV_TOKEN', 'EMPTY', 'BLANK', 'toString'];
    expect(names.map(sourceOf)).toEqual(['file', 'stored', 'environment', 'unresolved', 'unresolved', 'unresolved']);
    // The loader's own answer agrees name by name (stored secrets merged under the file's block, as the loader passes them).
    const merged = { ...stored, ...file };
    for (const name of names) expect('value' in resolveReferences(`\${${name}}`, merged, env), name).toBe(sourceOf(name) !== 'unresolved');
  });
});
