import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTreeSkills } from '../../src/catalog/tree-skills.reader.js';
import { SKILL_LIMITS } from '../../src/catalog/skill-types.js';
import { GitCli } from '../../src/workspaces/git/git-command.js';
import { type FileSpec, createBareRepository } from '../stand-ins/git-repositories.js';

/** A repository's `.service/skills/` read from a real bare repository with git plumbing, as from the server's mirror. */
let root: string;
let cli: GitCli;

const skillMd = (name: string, extra = '') => `---\nname: ${name}\ndescription: The ${name} skill.\n${extra}---\n# ${name}\n\nBODY-OF-${name}\n`;

function treeOf(files: Record<string, FileSpec>) {
  const bare = join(root, `repo-${Math.random().toString(36).slice(2)}.git`);
  const commit = createBareRepository(bare, { files });
  return { commit, git: (args: readonly string[]) => cli.stream(args, { variables: { GIT_DIR: bare }, timeoutMs: 30_000 }) };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tree-skills-'));
  cli = new GitCli({ home: root, path: '/usr/local/bin:/usr/bin:/bin' });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('readTreeSkills', () => {
  it('reads each .service/skills/<name>/SKILL.md at the commit, with its resources, and names each malformed one by path', async () => {
    const tree = treeOf({
      'README.md': '# app\n',
      '.service/skills/README.md': 'not a skill',
      '.service/skills/deploy-notes/SKILL.md': skillMd('deploy-notes', 'pipelines: [code]\n'),
      '.service/skills/deploy-notes/scripts/check.sh': { content: 'echo never run\n', executable: true },
      '.service/skills/deploy-notes/reference.md': 'ref',
      '.service/skills/broken/SKILL.md': 'no front matter here\n',
      '.service/skills/no-file/notes.md': 'notes',
      '.service/skills/linked/SKILL.md': { symlink: '../deploy-notes/SKILL.md' },
      '.service/skills/huge/SKILL.md': skillMd('huge') + 'x'.repeat(SKILL_LIMITS.skillFileBytes),
      '.service/skills/line\nbreak\u202e/SKILL.md': skillMd('line-break'),
    });
    const read = await readTreeSkills(tree, { project: 'shop', repository: 'shop-web' });
    expect(read.skills).toEqual([{
      name: 'deploy-notes', description: 'The deploy-notes skill.', source: 'repository', project: 'shop', repository: 'shop-web',
      pipelines: ['code'], body: '# deploy-notes\n\nBODY-OF-deploy-notes', files: ['reference.md', 'scripts/check.sh'],
      path: `shop-web:.service/skills/deploy-notes (${tree.commit.slice(0, 12)})`,
    }]);
    expect(read.findings.every((f) => f.subsystem === 'skills' && f.severity === 'advisory' && f.project === 'shop')).toBe(true);
    expect(read.findings.map((f) => f.reason).sort()).toEqual([
      'skill shop-web:.service/skills/broken is left out: SKILL.md must start with YAML front matter between two `---` lines',
      `skill shop-web:.service/skills/huge is left out: SKILL.md is ${skillMd('huge').length + SKILL_LIMITS.skillFileBytes} bytes; at most ${SKILL_LIMITS.skillFileBytes} are allowed`,
      'skill shop-web:.service/skills/line?break? is left out: name "line-break" must equal the folder\'s name "line\\nbreak\\u202e"',
      'skill shop-web:.service/skills/linked is left out: SKILL.md is not a regular file (a link or a submodule)',
      'skill shop-web:.service/skills/no-file is left out: the folder has no SKILL.md',
    ]);
  });

  it('answers no skills and no findings for a repository without the folder', async () => {
    const read = await readTreeSkills(treeOf({ 'README.md': '# app\n' }), { project: 'shop', repository: 'shop-web' });
    expect(read).toEqual({ skills: [], findings: [] });
  });
});
