import { Body, Controller, HttpCode, NotFoundException, Param, Post, ServiceUnavailableException, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { attributionOf } from '../auth/principal.js';
import { CurrentAuth, type RequestAuth } from '../auth/request-auth.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import type { ErrorBody } from '../common/error-body.js';
import { requestValidation } from '../common/request-validation.js';
import { clipText } from '../common/clip-text.js';
import { RunEventKind } from '../pipelines/run-event-kind.js';
import { RunEventsService } from '../runs/run-events.service.js';
import { RunCriteriaService } from '../runs/criteria/run-criteria.service.js';
import { RunReaderService } from '../runs/resource/run-reader.service.js';
import type { Run } from '../runs/resource/run-resource.js';
import { ApiErrorFilter } from './api-error.filter.js';
import { CriterionParams, JudgeCriterionBody } from './dto/judge-criterion.dto.js';
import { RunEnvelopeDto } from './dto/run-control.dto.js';
import { runNotFound } from './runs.controller.js';

/**
 * A person's judgement of one acceptance criterion of a run (runs.control): recorded with who
 * judged (the name claim, or `dashboard`), when and why, beside the agent's verdict. It changes
 * no run state: a failed run stays failed (retry it to run again), a succeeded one succeeded.
 */
@ApiTags('runs')
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
@Controller('api/runs')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class RunCriteriaController {
  constructor(
    private readonly criteria: RunCriteriaService,
    private readonly runs: RunReaderService,
    private readonly events: RunEventsService,
  ) {}

  @Post(':id/criteria/:criterion/judge')
  @HttpCode(200)
  @RequirePermissions(Permission.RunsControl)
  @ApiOperation({
    summary: 'Judge an acceptance criterion',
    description: 'Records a person\'s verdict on one criterion of the run, with a required reason; a later judgement replaces it. The run\'s state does not change.',
  })
  @ApiOkResponse({ type: RunEnvelopeDto, description: 'the run, its criterion now carrying the judgement' })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'no reason, an unknown verdict, or a malformed id' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id, or no such criterion in it' })
  async judge(@Param() params: CriterionParams, @Body() body: JudgeCriterionBody, @CurrentAuth() auth: RequestAuth): Promise<{ run: Run }> {
    const by = attributionOf(auth.principal);
    const result = await this.criteria.judge(params.id, params.criterion, body.verdict, body.reason.trim(), by);
    if (result.outcome === 'no-run') throw runNotFound(params.id);
    if (result.outcome === 'no-criterion') throw new NotFoundException({ error: `run ${params.id} has no criterion ${params.criterion}` } satisfies ErrorBody);
    // The run's log says who judged what, and why (best effort: the judgement is recorded already).
    const line = `${params.criterion} judged ${body.verdict} by ${by}: ${clipText(body.reason.replace(/\s+/g, ' ').trim(), 300)}`;
    await this.events.append(params.id, RunEventKind.Criteria, line).catch(() => undefined);
    const run = await this.runs.get(params.id);
    if (!run) throw new ServiceUnavailableException({ error: `run ${params.id} could not be read back` } satisfies ErrorBody);
    return { run };
  }
}
