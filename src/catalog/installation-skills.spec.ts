import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFolderSkills } from './folder-skills.reader.js';
import { BUILT_IN_SKILLS_DIR, readInstallationSkills, skillsOfferedTo } from './installation-skills.js';
import { SKILL_LIMITS } from './skill-types.js';

let root: string;

function skill(dir: string, name: string, extra = '', body = 'Body.', folder = name): string {
  const path = join(dir, folder);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'SKILL.md'), `---\nname: ${name}\ndescription: The ${name} skill.\n${extra}---\n${body}\n`);
  return path;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skills-spec-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the package\'s own skills', () => {
  it('are all valid, with a description and a body, and none is left out', async () => {
    const read = await readFolderSkills({ root: BUILT_IN_SKILLS_DIR, source: 'builtin', field: null });
    expect(read.findings).toEqual([]);
    expect(read.skills.map((s) => s.name)).toEqual(['acceptance-criteria', 'asking-questions', 'pull-request-description', 'security-review', 'writing-tickets']);
    for (const s of read.skills) {
      expect(s.source).toBe('builtin');
      expect(s.body.length, s.name).toBeGreaterThan(200);
    }
    expect(skillsOfferedTo(read.skills, 'pr-review').map((s) => s.name)).toEqual(['security-review']);
  });
});

describe('readFolderSkills', () => {
  it('reads each sub-folder with SKILL.md, lists its other files, and names the path of every skill left out', async () => {
    const dir = join(root, 'mixed');
    const good = skill(dir, 'good-one');
    mkdirSync(join(good, 'templates', 'deep'), { recursive: true });
    writeFileSync(join(good, 'templates', 'deep', 'b.txt'), 'b');
    writeFileSync(join(good, 'a.md'), 'a');
    skill(dir, 'Wrong-Name', '', 'x', 'wrong');
    mkdirSync(join(dir, 'empty-folder'));
    writeFileSync(join(dir, 'README.md'), 'not a skill');
    const big = skill(dir, 'too-big', '', 'x'.repeat(SKILL_LIMITS.skillFileBytes));
    const read = await readFolderSkills({ root: dir, source: 'configured', field: 'skills.paths' });
    expect(read.skills.map((s) => [s.name, s.source, s.files])).toEqual([['good-one', 'configured', ['a.md', 'templates/deep/b.txt']]]);
    expect(read.skills[0]!.path).toBe(good);
    expect(read.findings.map((f) => [f.subsystem, f.severity, f.field])).toEqual(Array(3).fill(['skills', 'advisory', 'skills.paths']));
    const reasons = read.findings.map((f) => f.reason);
    expect(reasons).toContainEqual(`skill ${join(dir, 'empty-folder')} is left out: the folder has no SKILL.md`);
    expect(reasons).toContainEqual(`skill ${big} is left out: SKILL.md is ${SKILL_LIMITS.skillFileBytes + 55} bytes; at most ${SKILL_LIMITS.skillFileBytes} are allowed`);
    expect(reasons.find((r) => r.startsWith(`skill ${join(dir, 'wrong')} is left out: name "Wrong-Name"`))).toBeDefined();
  });

  it('lists at most 100 resources and says so', async () => {
    const dir = join(root, 'many');
    const path = skill(dir, 'many-files');
    for (let i = 0; i <= SKILL_LIMITS.resources; i++) writeFileSync(join(path, `f${String(i).padStart(3, '0')}.txt`), '');
    const read = await readFolderSkills({ root: dir, source: 'configured', field: 'skills.paths' });
    expect(read.skills[0]!.files).toHaveLength(SKILL_LIMITS.resources);
    expect(read.findings.map((f) => f.reason)).toEqual([`skill ${path} has more than 100 resource files; only the first 100 are listed`]);
  });

  it('makes a missing folder a finding, not an error', async () => {
    const read = await readFolderSkills({ root: join(root, 'absent'), source: 'configured', field: 'skills.paths' });
    expect(read).toEqual({ skills: [], findings: [expect.objectContaining({ subsystem: 'skills', severity: 'advisory', reason: `skills folder ${join(root, 'absent')} does not exist; no skills are read from it` })] });
  });
});

describe('readInstallationSkills', () => {
  it('lays configured folders over the built-in skills by name, the first path winning, relative paths from the base folder', async () => {
    const base = join(root, 'config');
    skill(join(base, 'first'), 'security-review', 'pipelines: [code]\n', 'FIRST');
    skill(join(base, 'second'), 'security-review', '', 'SECOND');
    skill(join(base, 'second'), 'house-style', '', 'STYLE');
    symlinkSync(join(base, 'second', 'house-style'), join(base, 'first', 'linked-style'));
    const read = await readInstallationSkills(['first', join(base, 'second')], base);
    const byName = Object.fromEntries(read.skills.map((s) => [s.name, s]));
    expect(byName['security-review']).toMatchObject({ source: 'configured', body: 'FIRST', pipelines: ['code'] });
    expect(byName['house-style']).toMatchObject({ source: 'configured', body: 'STYLE' });
    expect(byName['pull-request-description']).toMatchObject({ source: 'builtin' });
    // A linked folder is read like any other; its name must still match.
    expect(read.findings.map((f) => f.reason)).toEqual([expect.stringContaining(`${join(base, 'first', 'linked-style')} is left out: name "house-style" must equal the folder's name "linked-style"`)]);
  });
});
