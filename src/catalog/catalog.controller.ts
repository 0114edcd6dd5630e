import { BadRequestException, Controller, Get, NotFoundException, Param, Query, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '../common/api-docs.js';
import { clipText } from '../common/clip-text.js';
import { collectSecrets, scrubSecrets } from '../common/secret-scrubber.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import type { ErrorBody } from '../common/error-body.js';
import { requestValidation } from '../common/request-validation.js';
import { ConfigService } from '../config/config.service.js';
import { ApiErrorFilter } from '../dashboard/api-error.filter.js';
import { CatalogDto, CatalogQuery, CatalogSkillDetailDto, type CatalogSkillDto, CatalogSkillQuery } from './dto/catalog.dto.js';
import { skillNameProblem } from './skill-document.js';
import { SkillCatalogService } from './skill-catalog.service.js';
import type { Skill } from './skill-types.js';

/** A skill as the API shows it; a secret value the configuration knows never leaves in one (a token committed into a SKILL.md). */
function summary(skill: Skill, secrets: readonly string[]): CatalogSkillDto {
  return { name: skill.name, description: scrubSecrets(skill.description, secrets), source: skill.source, repository: skill.repository, project: skill.project, pipelines: skill.pipelines };
}

/** The skills catalog (contract "Skills and GET /api/catalog"). */
@ApiTags('catalog')
@Controller('api/catalog')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class CatalogController {
  constructor(private readonly catalog: SkillCatalogService, private readonly config: ConfigService) {}

  @Get()
  @ApiOperation({
    summary: 'Skills catalog',
    description: 'The skills the agent pipelines may load: the package\'s own, the `skills.paths` folders\' and each repository\'s `.service/skills/` (read from the server\'s mirror of its default branch, never by running anything). A malformed skill is left out with an advisory finding naming its path.',
  })
  @ApiOkResponse({ type: CatalogDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'an unknown project' })
  @RequirePermissions(Permission.CatalogRead)
  async list(@Query() query: CatalogQuery): Promise<CatalogDto> {
    this.checkProject(query.project);
    const { skills, findings } = await this.catalog.catalog({ project: query.project ?? null });
    const secrets = this.secrets();
    return { skills: skills.map((s) => summary(s, secrets)), findings };
  }

  @Get('skills/:name')
  @ApiOperation({ summary: 'One skill', description: 'A skill\'s description, body and resource files. With `project`, the one that project\'s runs get; without, the installation\'s (else a repository\'s) of that name.' })
  @ApiOkResponse({ type: CatalogSkillDetailDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'an unknown project' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no skill of that name' })
  @RequirePermissions(Permission.CatalogRead)
  async one(@Param('name') name: string, @Query() query: CatalogSkillQuery): Promise<CatalogSkillDetailDto> {
    this.checkProject(query.project);
    const notFound = () => new NotFoundException({ error: `no skill named ${JSON.stringify(clipText(name, 100))}` } satisfies ErrorBody);
    if (skillNameProblem(name) !== null) throw notFound();
    const skill = await this.catalog.skill(name, { project: query.project ?? null, repository: query.repository ?? null });
    if (!skill) throw notFound();
    const secrets = this.secrets();
    return { ...summary(skill, secrets), body: scrubSecrets(skill.body, secrets), files: skill.files };
  }

  private secrets(): string[] {
    return collectSecrets(this.config.config, this.config.env);
  }

  private checkProject(project: string | undefined): void {
    if (project !== undefined && !Object.hasOwn(this.config.config.projects, project)) {
      throw new BadRequestException({ error: `project ${JSON.stringify(clipText(project, 100))} is not configured` } satisfies ErrorBody);
    }
  }
}
