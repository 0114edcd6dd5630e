import { ApiProperty, ApiPropertyOptional, ApiSchema } from '../../../common/api-docs.js';
import { InitStatus } from '../project-initializer.js';

@ApiSchema({ name: 'InitPullRequest' })
export class InitPullRequestDto {
  @ApiProperty({ example: 'https://github.com/acme/shop-web/pull/7' }) url: string;
  @ApiProperty({ example: 7 }) number: number;
}

/** One repository's outcome. */
@ApiSchema({ name: 'InitRepositoryResult' })
export class InitRepositoryResultDto {
  @ApiProperty({ example: 'shop-web' }) repo: string;
  @ApiProperty({
    enum: Object.values(InitStatus),
    description: '`opened`: a new pull request on `service/init`; `updated`: its open pull request was found and brought up to date; `complete`: every context has both files, no pull request; `failed`: see `error`',
  })
  status: InitStatus;
  @ApiPropertyOptional({ type: InitPullRequestDto }) pullRequest?: InitPullRequestDto;
  @ApiProperty({ type: [String], description: 'the files the pull request adds (those the base branch lacks)', example: ['.service/contexts/default/context.yaml', '.service/contexts/default/principles.md'] })
  files: string[];
  @ApiPropertyOptional({
    type: [String],
    description: 'what the context writer (the model) changed besides the missing files, `path (status)`, dropped from the pull request: initialisation never overwrites an existing file; absent when it changed nothing else',
    example: ['.service/contexts/default/context.yaml (modified)'],
  })
  discarded?: string[];
  @ApiPropertyOptional({ description: 'why this repository failed (what to do about it)' }) error?: string;
}

/** The answer of `POST /api/projects/:name/init`. */
@ApiSchema({ name: 'ProjectInitResult' })
export class ProjectInitResultDto {
  @ApiProperty({ example: 'shop' }) project: string;
  @ApiProperty({ type: [InitRepositoryResultDto] }) repositories: InitRepositoryResultDto[];
}
