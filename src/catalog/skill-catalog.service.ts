import { dirname } from 'node:path';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import type { Finding } from '../findings/finding.js';
import { FindingsService } from '../findings/findings.service.js';
import { mergeSkills, readInstallationSkills, skillsOfferedTo } from './installation-skills.js';
import { RepositorySkillsService } from './repository-skills.service.js';
import type { SkillRead } from './skill-read.js';
import { type Skill, SkillSource } from './skill-types.js';

/** Folders on disk are read again at most this often (an operator may edit a `skills.paths` folder). */
const LOCAL_REFRESH_MS = 30_000;
const FINDINGS_SOURCE = 'skills';

/** Who asks: a run or a conversation of `project` (and, optionally, of one of its repositories). */
export interface SkillQuery {
  project: string;
  /** Only this repository's skills among the project's (null or absent: every repository's). */
  repository?: string | null;
  pipeline: string;
}

export interface Catalog {
  skills: Skill[];
  findings: Finding[];
}

const byName = (a: Skill, b: Skill) => a.name.localeCompare(b.name) || (a.project ?? '').localeCompare(b.project ?? '') || (a.repository ?? '').localeCompare(b.repository ?? '');

/**
 * The skills catalog: the package's `skills/`, the folders of `skills.paths` (a configured skill
 * wins over a built-in one of the same name; among the paths, the first wins) and each
 * repository's `.service/skills/`. A repository's skills are offered only to its own project,
 * and there one of the same name wins over an installation-wide one. Every skill left out is an
 * advisory `skills` finding, on the findings endpoint as in the catalog's answer.
 */
@Injectable()
export class SkillCatalogService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Skills');
  private local: { at: number; read: Promise<SkillRead> } | null = null;
  private localFindings: Finding[] = [];
  private readonly repositoryFindings = new Map<string, Finding[]>();

  constructor(
    private readonly config: ConfigService,
    private readonly findings: FindingsService,
    private readonly repositories: RepositorySkillsService,
  ) {
    config.onReload(() => {
      this.local = null;
    });
  }

  /** The built-in and configured skills are read at start, so their findings show before anyone asks. */
  onApplicationBootstrap(): void {
    void this.installation().catch((error: unknown) => this.logger.warn(`skills could not be read: ${(error as Error).message}`));
  }

  /**
   * Every skill the service knows. With `project`, the set its runs are offered (before the
   * pipeline filter): its repositories' skills over the installation's. Without, the
   * installation's skills and every project's repository skills side by side, each of those with
   * its `project` and `repository`.
   */
  async catalog(filter: { project?: string | null } = {}): Promise<Catalog> {
    const installation = await this.installation();
    const projects = filter.project ? [filter.project] : Object.keys(this.config.config.projects).sort();
    const reads = await Promise.all(projects.map((p) => this.projectSkills(p)));
    const findings = [...installation.findings, ...reads.flatMap((r) => r.findings)];
    if (filter.project) return { skills: mergeSkills(installation.skills, reads[0]!.skills).sort(byName), findings };
    return { skills: [...installation.skills, ...reads.flatMap((r) => r.skills)].sort(byName), findings };
  }

  /** The skills a run of `pipeline` in `project` may load, by name. */
  async skillsFor(query: SkillQuery): Promise<Skill[]> {
    const installation = await this.installation();
    const project = await this.projectSkills(query.project);
    const own = query.repository ? project.skills.filter((s) => s.repository === query.repository) : project.skills;
    return skillsOfferedTo(mergeSkills(installation.skills, own), query.pipeline);
  }

  /**
   * One skill by name: with `project` (and `repository`), the one that project's runs get; without,
   * the installation's, else the first repository skill of that name. Null when none.
   */
  async skill(name: string, where: { project?: string | null; repository?: string | null } = {}): Promise<Skill | null> {
    if (where.project) {
      const installation = await this.installation();
      const project = await this.projectSkills(where.project);
      const own = where.repository ? project.skills.filter((s) => s.repository === where.repository) : project.skills;
      return mergeSkills(where.repository ? [] : installation.skills, own).find((s) => s.name === name) ?? null;
    }
    const { skills } = await this.catalog();
    const matches = skills.filter((s) => s.name === name && (!where.repository || s.repository === where.repository));
    return matches.find((s) => s.source !== SkillSource.Repository) ?? matches[0] ?? null;
  }

  /** The built-in skills with the configured ones over them, read at most every 30 s. */
  private installation(): Promise<SkillRead> {
    if (this.local && Date.now() - this.local.at < LOCAL_REFRESH_MS) return this.local.read;
    const read = this.readInstallation();
    this.local = { at: Date.now(), read };
    read.catch(() => {
      this.local = null;
    });
    return read;
  }

  private async readInstallation(): Promise<SkillRead> {
    const read = await readInstallationSkills(this.config.config.skills.paths, dirname(this.config.file.path));
    this.localFindings = read.findings;
    this.publishFindings();
    return read;
  }

  /** Every repository of the project, in declared order: the first holding a name wins. */
  private async projectSkills(project: string): Promise<SkillRead> {
    const repos = this.config.config.projects[project]?.repos ?? [];
    const reads = await Promise.all(repos.map((repo) => this.repositories.skillsOf(project, repo)));
    const skills = new Map<string, Skill>();
    for (const read of reads) for (const skill of read.skills) if (!skills.has(skill.name)) skills.set(skill.name, skill);
    repos.forEach((repo, i) => this.repositoryFindings.set(`${project}\u0000${repo.name}`, reads[i]!.findings));
    this.publishFindings();
    return { skills: [...skills.values()], findings: reads.flatMap((r) => r.findings) };
  }

  /** The findings endpoint shows the latest of each source, for the repositories still configured. */
  private publishFindings(): void {
    const { projects } = this.config.config;
    const current = new Set(Object.values(projects).flatMap((p) => p.repos.map((r) => `${p.name}\u0000${r.name}`)));
    for (const key of this.repositoryFindings.keys()) if (!current.has(key)) this.repositoryFindings.delete(key);
    this.findings.set(FINDINGS_SOURCE, [...this.localFindings, ...[...this.repositoryFindings.values()].flat()]);
  }
}
