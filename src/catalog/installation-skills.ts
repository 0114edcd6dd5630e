import { isAbsolute, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import { readFolderSkills } from './folder-skills.reader.js';
import { offeredTo } from './skill-document.js';
import type { SkillRead } from './skill-read.js';
import { type Skill, SkillSource } from './skill-types.js';

/** The skills shipped with the package (the Dockerfile copies `skills/` beside `dist/`). */
export const BUILT_IN_SKILLS_DIR = join(PACKAGE_ROOT, 'skills');

/**
 * The installation's skills: the package's own with the `skills.paths` folders' over them by
 * name (among the paths the first wins). Relative paths are taken from `baseDir`, the bootstrap
 * file's folder. Never throws.
 */
export async function readInstallationSkills(paths: readonly string[], baseDir: string, builtInDir = BUILT_IN_SKILLS_DIR): Promise<SkillRead> {
  const roots = paths.map((p) => (isAbsolute(p) ? p : resolve(baseDir, p)));
  const [builtIn, ...configured] = await Promise.all([
    readFolderSkills({ root: builtInDir, source: SkillSource.Builtin, field: null }),
    ...roots.map((root) => readFolderSkills({ root, source: SkillSource.Configured, field: 'skills.paths' })),
  ]);
  let skills = builtIn!.skills;
  for (const read of [...configured].reverse()) skills = mergeSkills(skills, read.skills);
  return { skills, findings: [builtIn!, ...configured].flatMap((r) => r.findings) };
}

/** `base` with `over` laid on it by name. */
export function mergeSkills(base: readonly Skill[], over: readonly Skill[]): Skill[] {
  const out = new Map(base.map((s) => [s.name, s]));
  for (const skill of over) out.set(skill.name, skill);
  return [...out.values()];
}

/** The skills of `skills` offered to `pipeline`, by name. */
export function skillsOfferedTo(skills: readonly Skill[], pipeline: string): Skill[] {
  return skills.filter((s) => offeredTo(s.pipelines, pipeline)).sort((a, b) => a.name.localeCompare(b.name));
}
