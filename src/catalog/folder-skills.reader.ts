import type { Dirent } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Finding } from '../findings/finding.js';
import { parseSkillDocument } from './skill-document.js';
import { type SkillRead, skillFinding, sourceFinding } from './skill-read.js';
import { SKILL_FILE, SKILL_LIMITS, type Skill, type SkillSource } from './skill-types.js';

export interface FolderSource {
  /** The folder whose sub-folders are skills. */
  root: string;
  source: Exclude<SkillSource, 'repository'>;
  /** The configuration field a finding names (`skills.paths`), or null (the package's own folder). */
  field: string | null;
}

/**
 * Reads the skills of a folder on the server's disk (the package's `skills/`, a `skills.paths`
 * entry): each sub-folder holding `SKILL.md` is one skill. Files at the top level (a README) are
 * not skills. Never throws: a folder that cannot be read is a finding.
 */
export async function readFolderSkills(folder: FolderSource): Promise<SkillRead> {
  const where = { field: folder.field };
  let entries: Dirent[];
  try {
    entries = await readdir(folder.root, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a folder' : `cannot be read (${(error as Error).message})`;
    return { skills: [], findings: [sourceFinding(`skills folder ${folder.root} ${why}; no skills are read from it`, where)] };
  }
  const folders = entries.filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => e.name).filter((n) => !n.startsWith('.')).sort();
  const skills: Skill[] = [];
  const findings: Finding[] = [];
  for (const name of folders) {
    if (skills.length >= SKILL_LIMITS.skillsPerSource) {
      findings.push(sourceFinding(`skills folder ${folder.root} holds more than ${SKILL_LIMITS.skillsPerSource} skills; the rest are left out`, where));
      break;
    }
    const dir = join(folder.root, name);
    if (!(await isDirectory(dir))) continue;
    const read = await readSkillFolder(dir, name, folder.source);
    if ('problem' in read) findings.push(skillFinding(dir, read.problem, where));
    else {
      skills.push(read.skill);
      if (read.overflow) findings.push(sourceFinding(`skill ${dir} has more than ${SKILL_LIMITS.resources} resource files; only the first ${SKILL_LIMITS.resources} are listed`, where));
    }
  }
  return { skills, findings };
}

async function readSkillFolder(dir: string, name: string, source: FolderSource['source']): Promise<{ skill: Skill; overflow: boolean } | { problem: string }> {
  const file = join(dir, SKILL_FILE);
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) return { problem: `${SKILL_FILE} is not a file` };
    size = info.size;
  } catch {
    return { problem: `the folder has no ${SKILL_FILE}` };
  }
  if (size > SKILL_LIMITS.skillFileBytes) return { problem: `${SKILL_FILE} is ${size} bytes; at most ${SKILL_LIMITS.skillFileBytes} are allowed` };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { problem: `${SKILL_FILE} cannot be read (${(error as Error).message})` };
  }
  const parsed = parseSkillDocument(text, name);
  if (!parsed.ok) return { problem: parsed.problem };
  const { files, overflow } = await listResources(dir);
  return { skill: { ...parsed.skill, source, project: null, repository: null, files, path: dir }, overflow };
}

/** The folder's files other than its `SKILL.md`, relative, sorted, at most the limit (and whether there were more). */
async function listResources(dir: string): Promise<{ files: string[]; overflow: boolean }> {
  const files: string[] = [];
  let overflow = false;
  const walk = async (at: string, prefix: string, depth: number): Promise<void> => {
    if (depth > SKILL_LIMITS.resourceDepth || overflow) return;
    const entries = await readdir(at, { withFileTypes: true }).catch(() => [] as Dirent[]);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(join(at, entry.name), relative, depth + 1);
      else if (entry.isFile() && relative !== SKILL_FILE) {
        if (files.length >= SKILL_LIMITS.resources) {
          overflow = true;
          return;
        }
        files.push(relative);
      }
    }
  };
  await walk(dir, '', 1);
  return { files: files.sort(), overflow };
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}
