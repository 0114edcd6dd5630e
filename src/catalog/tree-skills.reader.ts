import type { Finding } from '../findings/finding.js';
import { parseSkillDocument } from './skill-document.js';
import { type SkillRead, skillFinding, sourceFinding } from './skill-read.js';
import { REPOSITORY_SKILLS_DIR, SKILL_FILE, SKILL_LIMITS, type Skill } from './skill-types.js';

/** A read-only git command against the server's mirror (RepositoryWorkspaces.committedTree). */
export interface MirrorTree {
  commit: string;
  git(args: readonly string[]): { stdout: NodeJS.ReadableStream; done: Promise<void>; stop(): void };
}

interface TreeEntry {
  mode: string;
  type: string;
  object: string;
  size: number | null;
  path: string;
}

/** Listing output kept at most (ls-tree of `.service/skills` only, so far more than any real folder). */
const LISTING_BYTES = 8 * 1024 * 1024;

/**
 * The skills of a repository at a commit, read from the server's mirror with git plumbing only
 * (`ls-tree` for the folder, `cat-file blob` for each `SKILL.md`): nothing is checked out and
 * nothing from the repository runs. A skill's path in findings is `<repository>:<path>`.
 */
export async function readTreeSkills(tree: MirrorTree, where: { project: string; repository: string }): Promise<SkillRead> {
  const at = { project: where.project };
  const listing = await collect(tree.git(['ls-tree', '-r', '-l', '-z', '--full-tree', tree.commit, '--', REPOSITORY_SKILLS_DIR]), LISTING_BYTES);
  const folders = new Map<string, TreeEntry[]>();
  for (const entry of parseListing(listing.toString('utf8'))) {
    const rest = entry.path.slice(REPOSITORY_SKILLS_DIR.length + 1);
    const slash = rest.indexOf('/');
    if (slash <= 0) continue; // a file beside the skill folders (a README) is no skill
    const name = rest.slice(0, slash);
    const list = folders.get(name) ?? [];
    list.push({ ...entry, path: rest.slice(slash + 1) });
    folders.set(name, list);
  }
  const skills: Skill[] = [];
  const findings: Finding[] = [];
  for (const name of [...folders.keys()].sort()) {
    const path = `${where.repository}:${REPOSITORY_SKILLS_DIR}/${printable(name)}`;
    if (skills.length >= SKILL_LIMITS.skillsPerSource) {
      findings.push(sourceFinding(`repository ${where.repository} holds more than ${SKILL_LIMITS.skillsPerSource} skills; the rest are left out`, at));
      break;
    }
    const entries = folders.get(name)!;
    const skillFile = entries.find((e) => e.path === SKILL_FILE);
    const problem = skillFileProblem(skillFile);
    if (problem) {
      findings.push(skillFinding(path, problem, at));
      continue;
    }
    const text = (await collect(tree.git(['cat-file', 'blob', skillFile!.object]), SKILL_LIMITS.skillFileBytes + 1)).toString('utf8');
    const parsed = parseSkillDocument(text, name);
    if (!parsed.ok) {
      findings.push(skillFinding(path, parsed.problem, at));
      continue;
    }
    const resources = entries.filter((e) => e !== skillFile && e.type === 'blob').map((e) => e.path).sort();
    if (resources.length > SKILL_LIMITS.resources) {
      findings.push(sourceFinding(`skill ${path} has more than ${SKILL_LIMITS.resources} resource files; only the first ${SKILL_LIMITS.resources} are listed`, at));
    }
    skills.push({
      ...parsed.skill,
      source: 'repository',
      project: where.project,
      repository: where.repository,
      files: resources.slice(0, SKILL_LIMITS.resources),
      path: `${path} (${tree.commit.slice(0, 12)})`,
    });
  }
  return { skills, findings };
}

function skillFileProblem(entry: TreeEntry | undefined): string | null {
  if (!entry) return `the folder has no ${SKILL_FILE}`;
  if (entry.type !== 'blob' || entry.mode === '120000') return `${SKILL_FILE} is not a regular file (a link or a submodule)`;
  if (entry.size === null || entry.size > SKILL_LIMITS.skillFileBytes) return `${SKILL_FILE} is ${entry.size ?? 'of unknown size, over'} bytes; at most ${SKILL_LIMITS.skillFileBytes} are allowed`;
  return null;
}

/** A folder name as a finding shows it: anyone may name a folder, so control and invisible characters become `?` and it is cut at 100. */
function printable(name: string): string {
  const shown = name.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g, '?');
  return shown.length > 100 ? `${shown.slice(0, 100)}…` : shown;
}

/** `git ls-tree -l -z`: `<mode> SP <type> SP <object> SP+ <size> TAB <path> NUL`. */
function parseListing(text: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of text.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab === -1) continue;
    const [mode, type, object, size] = record.slice(0, tab).trim().split(/\s+/);
    if (!mode || !type || !object) continue;
    const bytes = Number(size);
    entries.push({ mode, type, object, size: Number.isSafeInteger(bytes) ? bytes : null, path: record.slice(tab + 1) });
  }
  return entries;
}

/** Reads git's output whole, at most `max` bytes (git is stopped past that), and waits for it to exit. */
async function collect(run: ReturnType<MirrorTree['git']>, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of run.stdout as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > max) {
        run.stop();
        throw new Error(`git's output passed ${max} bytes`);
      }
      chunks.push(bytes);
    }
    await run.done;
  } catch (error) {
    run.stop();
    throw error;
  }
  return Buffer.concat(chunks);
}
