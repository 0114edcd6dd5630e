import { Logger, Module } from '@nestjs/common';
import type { ProviderGate } from '../../agent/provider-gate.js';
import { collectSecrets } from '../../common/secret-scrubber.js';
import { agentsRefusedBy } from '../../config/agent-config.reader.js';
import { ConfigService } from '../../config/config.service.js';
import { PROVIDER_GATE } from '../pipeline.tokens.js';
import { PipelinesModule } from '../pipelines.module.js';
import { AgentContextWriters } from './agent-context.writer.js';
import { WorkspacesModule } from '../../workspaces/workspaces.module.js';
import { CONTEXT_WRITERS } from './context-writer.js';
import { ProjectInitController } from './project-init.controller.js';
import { ProjectInitService } from './project-init.service.js';

function contextWriters(config: ConfigService, gate: ProviderGate): AgentContextWriters {
  const logger = new Logger('ProjectInit');
  return new AgentContextWriters({ gate, agentsAllowed: () => !agentsRefusedBy(config.config.sandbox), secrets: () => collectSecrets(config.config, config.env), log: (line) => logger.log(line) });
}

/**
 * Project initialisation: `POST /api/projects/:name/init` and the service behind it. A project
 * with a model has its context files written by the agent; any other gets the template.
 */
@Module({
  imports: [WorkspacesModule, PipelinesModule],
  controllers: [ProjectInitController],
  providers: [ProjectInitService, { provide: CONTEXT_WRITERS, useFactory: contextWriters, inject: [ConfigService, PROVIDER_GATE] }],
  exports: [ProjectInitService],
})
export class ProjectInitModule {}
