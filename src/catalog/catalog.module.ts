import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { CatalogController } from './catalog.controller.js';
import { RepositorySkillsService } from './repository-skills.service.js';
import { SkillCatalogService } from './skill-catalog.service.js';

/** Skills: the catalog (built-in, configured and repository skills), its routes, and what runs are offered. */
@Module({
  imports: [WorkspacesModule],
  controllers: [CatalogController],
  providers: [RepositorySkillsService, SkillCatalogService],
  exports: [SkillCatalogService],
})
export class CatalogModule {}
