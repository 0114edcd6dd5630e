import { IsOptional, IsString, Length } from 'class-validator';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '../../common/api-docs.js';
import { FindingDto } from '../../findings/dto/finding.dto.js';
import { SkillSource } from '../skill-types.js';

const SOURCES = Object.values(SkillSource);

@ApiSchema({ name: 'CatalogSkill' })
export class CatalogSkillDto {
  @ApiProperty({ example: 'pull-request-description', description: 'lowercase letters, digits and hyphens; the folder\'s name' }) name: string;
  @ApiProperty({ description: 'what the skill is for and when to use it (at most 1024 characters)' }) description: string;
  @ApiProperty({ enum: SOURCES, description: '`builtin` (the package\'s skills/), `configured` (a `skills.paths` folder) or `repository` (a repository\'s .service/skills/)' })
  source: SkillSource;
  @ApiProperty({ type: String, nullable: true, description: 'the repository holding it (repository skills), else null' }) repository: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the project whose repository holds it (repository skills; it is offered only to that project\'s runs), else null' })
  project: string | null;
  @ApiProperty({ type: [String], nullable: true, description: 'the pipelines it is offered to; null: every agent pipeline' }) pipelines: string[] | null;
}

@ApiSchema({ name: 'Catalog' })
export class CatalogDto {
  @ApiProperty({ type: [CatalogSkillDto], description: 'sorted by name; without `project`, every project\'s repository skills are listed beside the installation\'s, each with its project and repository' })
  skills: CatalogSkillDto[];
  @ApiProperty({ type: [FindingDto], description: 'an advisory `skills` finding per skill left out (naming its path) and per source that could not be read' })
  findings: FindingDto[];
}

@ApiSchema({ name: 'CatalogSkillDetail' })
export class CatalogSkillDetailDto extends CatalogSkillDto {
  @ApiProperty({ description: 'the Markdown of SKILL.md after its front matter' }) body: string;
  @ApiProperty({ type: [String], description: 'its resource files, relative to its folder, sorted (at most 100)' }) files: string[];
}

/** `?project=`: the skills that project's runs get (its repositories' skills over the installation's). */
export class CatalogQuery {
  @ApiPropertyOptional({ description: 'a configured project: the set its runs are offered, repository skills winning by name' })
  @IsOptional() @IsString({ message: 'project must be a string' }) @Length(1, 200, { message: 'project must be 1 to 200 characters' })
  project?: string;
}

export class CatalogSkillQuery extends CatalogQuery {
  @ApiPropertyOptional({ description: 'a repository of the project (or, without project, of any project): that repository\'s skill of the name' })
  @IsOptional() @IsString({ message: 'repository must be a string' }) @Length(1, 200, { message: 'repository must be 1 to 200 characters' })
  repository?: string;
}
