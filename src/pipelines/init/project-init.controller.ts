import { Controller, HttpCode, NotFoundException, Param, Post, UnprocessableEntityException, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../../auth/permission.js';
import { RequirePermissions } from '../../auth/require-permissions.decorator.js';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse } from '../../common/api-docs.js';
import { ErrorBodyDto } from '../../common/dto/error-body.dto.js';
import { requestValidation } from '../../common/request-validation.js';
import { ApiErrorFilter } from '../../dashboard/api-error.filter.js';
import { ProjectInitResultDto } from './dto/project-init.dto.js';
import { ProjectNameParams } from './dto/project-name.params.js';
import type { InitRepositoryResult } from './project-initializer.js';
import { ProjectInitService } from './project-init.service.js';

/** Project initialisation (contract "Contexts and the bootstrap gate"), projects.init. */
@ApiTags('projects')
@Controller('api/projects')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class ProjectInitController {
  constructor(private readonly init: ProjectInitService) {}

  /** 200 with each repository's outcome (a failed repository is in the list, not an error status). */
  @Post(':name/init')
  @HttpCode(200)
  @RequirePermissions(Permission.ProjectsInit)
  @ApiOperation({
    summary: 'Initialise a project',
    description: 'For each repository of the project, adds the context files its base branch lacks (`.service/contexts/<name>/context.yaml` and `principles.md`, the `default` context when it has none) on branch `service/init` and opens one pull request (a repeat updates the open one). Existing files are never overwritten; a complete repository gets no pull request.',
  })
  @ApiOkResponse({ type: ProjectInitResultDto, description: 'each repository\'s outcome' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no project with this name' })
  @ApiUnprocessableEntityResponse({ type: ErrorBodyDto, description: 'the project declares no repositories' })
  async initialise(@Param() params: ProjectNameParams): Promise<{ project: string; repositories: InitRepositoryResult[] }> {
    const result = await this.init.initialise(params.name);
    switch (result.outcome) {
      case 'initialised': return { project: result.project, repositories: result.repositories };
      case 'not-found': throw new NotFoundException({ error: `no project ${params.name}; configured: ${result.configured.join(', ') || 'none'}` });
      case 'no-repositories': throw new UnprocessableEntityException({ error: `project ${params.name} declares no repositories: there is nothing to initialise; add repos: to it` });
    }
  }
}
