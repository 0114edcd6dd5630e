import { describe, expect, it } from 'vitest';
import { offeredTo, parseSkillDocument, skillNameProblem } from './skill-document.js';

const doc = (front: string, body = '# Body\n\nDo the thing.\n') => `---\n${front}\n---\n${body}`;
const problemOf = (text: string, folder = 'my-skill') => {
  const parsed = parseSkillDocument(text, folder);
  return parsed.ok ? null : parsed.problem;
};

describe('parseSkillDocument', () => {
  it('reads name, description, pipelines and the body after the front matter', () => {
    const parsed = parseSkillDocument(doc('name: my-skill\ndescription: "Does: the thing."\npipelines: [code, pr-review]\nlicense: MIT'), 'my-skill');
    expect(parsed).toEqual({ ok: true, skill: { name: 'my-skill', description: 'Does: the thing.', pipelines: ['code', 'pr-review'], body: '# Body\n\nDo the thing.' } });
  });

  it('offers a skill without pipelines to every pipeline, and accepts a single name, a BOM and CRLF line ends', () => {
    const all = parseSkillDocument(doc('name: my-skill\ndescription: d'), 'my-skill');
    expect(all.ok && all.skill.pipelines).toBeNull();
    const one = parseSkillDocument('\uFEFF---\r\nname: my-skill\r\ndescription: d\r\npipelines: code\r\n---\r\nbody\r\n', 'my-skill');
    expect(one).toEqual({ ok: true, skill: { name: 'my-skill', description: 'd', pipelines: ['code'], body: 'body' } });
  });

  it('refuses a document without front matter, or whose front matter never ends', () => {
    expect(problemOf('# Just markdown\n')).toMatch(/must start with YAML front matter/);
    expect(problemOf('---\nname: my-skill\ndescription: d\n')).toMatch(/must start with YAML front matter/);
    expect(problemOf('\n---\nname: my-skill\ndescription: d\n---\n')).toMatch(/must start with YAML front matter/);
  });

  it('refuses front matter that is not YAML, or not a mapping', () => {
    expect(problemOf(doc('name: [my-skill\ndescription: d'))).toMatch(/^the front matter is not valid YAML \(/);
    expect(problemOf(doc('- name\n- description'))).toMatch(/must be a YAML mapping/);
    expect(problemOf(doc(''))).toMatch(/must be a YAML mapping/);
  });

  it('holds names to lowercase letters, digits and single inner hyphens, at most 64 characters, equal to the folder', () => {
    expect(problemOf(doc('description: d'))).toMatch(/has no name/);
    expect(problemOf(doc('name: 42\ndescription: d'))).toMatch(/has no name/);
    for (const bad of ['My-Skill', 'my_skill', '-my-skill', 'my-skill-', 'my--skill', 'my skill', 'skill.md', 'ünicode']) {
      expect(problemOf(doc(`name: "${bad}"\ndescription: d`), bad), bad).toMatch(/may hold only lowercase letters, digits and single hyphens/);
    }
    const long = 'a'.repeat(65);
    expect(problemOf(doc(`name: ${long}\ndescription: d`), long)).toBe('name is 65 characters long; at most 64 are allowed');
    expect(problemOf(doc(`name: ${'a'.repeat(64)}\ndescription: d`), 'a'.repeat(64))).toBeNull();
    expect(problemOf(doc('name: other-skill\ndescription: d'), 'my-skill')).toBe('name "other-skill" must equal the folder\'s name "my-skill"');
  });

  it('wants a description of at most 1024 characters', () => {
    expect(problemOf(doc('name: my-skill'))).toMatch(/has no description/);
    expect(problemOf(doc('name: my-skill\ndescription: "   "'))).toMatch(/has no description/);
    expect(problemOf(doc('name: my-skill\ndescription: [a, b]'))).toMatch(/has no description/);
    expect(problemOf(doc(`name: my-skill\ndescription: ${'d'.repeat(1025)}`))).toBe('description is 1025 characters long; at most 1024 are allowed');
    expect(problemOf(doc(`name: my-skill\ndescription: ${'d'.repeat(1024)}`))).toBeNull();
  });

  it('wants pipelines to be a non-empty list of pipeline names', () => {
    expect(problemOf(doc('name: my-skill\ndescription: d\npipelines: []'))).toMatch(/lists no pipeline/);
    expect(problemOf(doc('name: my-skill\ndescription: d\npipelines: {code: true}'))).toMatch(/must be a list of pipeline names/);
    expect(problemOf(doc('name: my-skill\ndescription: d\npipelines: [code, 7]'))).toMatch(/must be a list of pipeline names/);
    expect(problemOf(doc('name: my-skill\ndescription: d\npipelines: ["Code Review"]'))).toMatch(/"Code Review", which is not a pipeline name/);
  });
});

describe('skillNameProblem and offeredTo', () => {
  it('names the problem of a name', () => {
    expect(skillNameProblem('security-review')).toBeNull();
    expect(skillNameProblem('')).toBe('name is empty');
    expect(skillNameProblem('../etc')).toMatch(/may hold only/);
  });

  it('offers a skill to the pipelines it lists, or to all without a list', () => {
    expect(offeredTo(null, 'code')).toBe(true);
    expect(offeredTo(['pr-review', 'security-scan'], 'security-scan')).toBe(true);
    expect(offeredTo(['pr-review'], 'code')).toBe(false);
  });
});
