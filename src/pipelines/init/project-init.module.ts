import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../../workspaces/workspaces.module.js';
import { CONTEXT_WRITERS } from './context-writer.js';
import { ProjectInitController } from './project-init.controller.js';
import { ProjectInitService } from './project-init.service.js';
import { TemplateContextWriters } from './template-context.writer.js';

/**
 * Project initialisation: `POST /api/projects/:name/init` and the service behind it. The context
 * writer is the template writer; an agent writer replaces CONTEXT_WRITERS' provider.
 */
@Module({
  imports: [WorkspacesModule],
  controllers: [ProjectInitController],
  providers: [ProjectInitService, { provide: CONTEXT_WRITERS, useClass: TemplateContextWriters }],
  exports: [ProjectInitService],
})
export class ProjectInitModule {}
