import { describe, expect, it } from 'vitest';
import { parseSkillSearch, pipelinesText, skillPath } from './skills-types';

describe('the skill page\'s URL state', () => {
  it('keeps a project and a repository when they are non-empty strings, cut to 200 characters', () => {
    expect(parseSkillSearch({ project: 'shop', repository: 'shop-web', other: 'x' })).toEqual({ project: 'shop', repository: 'shop-web' });
    expect(parseSkillSearch({ project: '', repository: 7 })).toEqual({});
    expect(parseSkillSearch({ project: 'p'.repeat(300) }).project).toHaveLength(200);
  });

  it('asks the API for the skill of that scope, its name and the query encoded', () => {
    expect(skillPath('deploy-notes', {})).toBe('/api/catalog/skills/deploy-notes');
    expect(skillPath('deploy-notes', { project: 'a b', repository: 'x&y' })).toBe('/api/catalog/skills/deploy-notes?project=a+b&repository=x%26y');
    expect(skillPath('../config', {})).toBe('/api/catalog/skills/..%2Fconfig');
  });

  it('says which pipelines a skill is offered to', () => {
    expect(pipelinesText(null)).toBe('all agent pipelines');
    expect(pipelinesText(['pr-review', 'security-scan'])).toBe('pr-review, security-scan');
  });
});
