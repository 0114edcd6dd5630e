import { type Finding, FindingSubsystem, finding } from '../findings/finding.js';
import type { Skill } from './skill-types.js';

/** What reading one source of skills gave: the valid skills, and a finding per skill left out. */
export interface SkillRead {
  skills: Skill[];
  findings: Finding[];
}

export const EMPTY_READ: SkillRead = Object.freeze({ skills: [], findings: [] }) as SkillRead;

/** The advisory finding of a skill left out, naming its path and what to fix. */
export function skillFinding(path: string, problem: string, where: { project?: string | null; field?: string | null } = {}): Finding {
  return finding(FindingSubsystem.Skills, 'advisory', `skill ${path} is left out: ${problem}`, where);
}

/** The advisory finding of a source that could not be read at all. */
export function sourceFinding(reason: string, where: { project?: string | null; field?: string | null } = {}): Finding {
  return finding(FindingSubsystem.Skills, 'advisory', reason, where);
}
