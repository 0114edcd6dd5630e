/** Where a skill was found (contract: `source`). */
export const SkillSource = { Builtin: 'builtin', Configured: 'configured', Repository: 'repository' } as const;
export type SkillSource = (typeof SkillSource)[keyof typeof SkillSource];

/**
 * One skill in the open Agent Skills format: a folder holding `SKILL.md` (YAML front matter with
 * `name` and `description`, optional `pipelines`, then a Markdown body) and its resource files.
 */
export interface Skill {
  name: string;
  description: string;
  source: SkillSource;
  /** The project whose repository holds it (repository skills), else null. */
  project: string | null;
  /** The repository's configured name (repository skills), else null. */
  repository: string | null;
  /** The pipelines it is offered to; null: every agent pipeline. */
  pipelines: string[] | null;
  /** The Markdown after the front matter. */
  body: string;
  /** The other files of the folder, relative to it, `/`-separated and sorted. */
  files: string[];
  /** Where it was read: a folder on disk, or `<repository>@<commit>:.service/skills/<name>` for a repository skill. */
  path: string;
}

/** Limits a skill must keep to; what goes past one is a finding. */
export const SKILL_LIMITS = {
  /** Bytes of `SKILL.md`. */
  skillFileBytes: 256 * 1024,
  /** Resource files listed per skill. */
  resources: 100,
  /** Skills read from one source (the package's folder, one `skills.paths` folder, one repository). */
  skillsPerSource: 200,
  /** Folder depth searched for resources. */
  resourceDepth: 8,
} as const;

/** The folder a repository keeps its skills in. */
export const REPOSITORY_SKILLS_DIR = '.service/skills';
export const SKILL_FILE = 'SKILL.md';
