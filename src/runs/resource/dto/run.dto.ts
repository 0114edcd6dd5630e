import { ApiProperty, ApiSchema } from '../../../common/api-docs.js';
import { RunState } from '../../../database/entities/run.entity.js';
import { ALL_PLATFORMS, type Platform } from '../../../platforms/platform.js';
import type { Run } from '../run-resource.js';
import { RunCriterionDto } from './run-criterion.dto.js';
import { RunPullRequestDto } from './run-pull-request.dto.js';
import { RunSandboxDto } from './run-sandbox.dto.js';
import { RunStepDto } from './run-step.dto.js';
import { RunTargetDto } from './run-target.dto.js';
import { RunUsageDto } from './run-usage.dto.js';

/** OpenAPI schema of the contract's Run resource (the `Run` interface stays the source of truth). */
@ApiSchema({ name: 'Run' })
export class RunDto implements Run {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() project: string;
  @ApiProperty({ type: String, nullable: true, example: 'BILL-12' }) ticket: string | null;
  @ApiProperty({ type: String, format: 'uri', nullable: true, example: 'https://github.com/acme/shop-web/issues/12', description: 'the ticket\'s web page on the tracker (GitHub or GitLab issue, Azure DevOps work item, Jira issue), built from the project\'s configuration; null without a ticket or a configured place for it' }) ticketUrl: string | null;
  @ApiProperty({ enum: ALL_PLATFORMS }) platform: Platform;
  @ApiProperty() pipeline: string;
  @ApiProperty({ enum: Object.values(RunState), description: '`queued`: claimed, not started yet (waiting for a consumer or for capacity); `parked`: waiting for an answer' }) state: RunState;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) startedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finishedAt: string | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: [RunSandboxDto] }) sandboxes: RunSandboxDto[];
  @ApiProperty({ type: [RunStepDto], description: 'in order' }) steps: RunStepDto[];
  @ApiProperty({ type: RunUsageDto }) usage: RunUsageDto;
  @ApiProperty({ type: [RunPullRequestDto] }) pullRequests: RunPullRequestDto[];
  @ApiProperty({ type: RunTargetDto, nullable: true, description: 'the pull request a ticket-less run works on (the label trigger); null for ticket runs' }) target: RunTargetDto | null;
  @ApiProperty({ type: [RunCriterionDto], description: 'the ticket\'s acceptance criteria as the run read them, with verdicts and judgements, in order; empty when it has none' }) criteria: RunCriterionDto[];
}
