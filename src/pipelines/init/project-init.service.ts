import { Inject, Injectable, Logger } from '@nestjs/common';
import { collectSecrets } from '../../common/secret-scrubber.js';
import { ConfigService } from '../../config/config.service.js';
import type { SandboxBackend } from '../../sandbox/sandbox-backend.js';
import { SANDBOX_BACKEND } from '../../sandbox/sandbox.tokens.js';
import { WorkspacesService } from '../../workspaces/workspaces.service.js';
import { CONTEXT_WRITERS, type ContextWriters } from './context-writer.js';
import { type InitRepositoryResult, ProjectInitializer } from './project-initializer.js';

export type ProjectInitOutcome =
  | { outcome: 'initialised'; project: string; repositories: InitRepositoryResult[] }
  | { outcome: 'not-found'; project: string; configured: string[] }
  | { outcome: 'no-repositories'; project: string };

/**
 * Project initialisation in the server (`POST /api/projects/:name/init`): the configured
 * sandbox backend, the runs' mirror cache and code-host clients, the project's context writer.
 * Two initialisations of one project on this replica run one after the other (the second then
 * finds the first's pull requests instead of racing its pushes).
 */
@Injectable()
export class ProjectInitService {
  private readonly logger = new Logger('ProjectInit');
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    private readonly config: ConfigService,
    private readonly workspaces: WorkspacesService,
    @Inject(SANDBOX_BACKEND) private readonly backend: SandboxBackend,
    @Inject(CONTEXT_WRITERS) private readonly writers: ContextWriters,
  ) {}

  async initialise(name: string): Promise<ProjectInitOutcome> {
    const { config } = this.config;
    const project = Object.hasOwn(config.projects, name) ? config.projects[name] : undefined;
    if (!project) return { outcome: 'not-found', project: name, configured: Object.keys(config.projects) };
    if (project.repos.length === 0) return { outcome: 'no-repositories', project: name };
    const initializer = new ProjectInitializer({
      git: this.workspaces.repositories,
      backend: this.backend,
      hostFor: (repo) => this.workspaces.hostFor(repo),
      writer: this.writers.forProject(project),
      identity: config.git,
      secrets: collectSecrets(config, this.config.env),
      log: (line) => this.logger.log(`project ${name}: ${line}`),
    });
    const previous = this.tails.get(name) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(() => initializer.initialise(project));
    this.tails.set(name, mine);
    try {
      return { outcome: 'initialised', project: name, repositories: await mine };
    } finally {
      if (this.tails.get(name) === mine) this.tails.delete(name);
    }
  }
}
