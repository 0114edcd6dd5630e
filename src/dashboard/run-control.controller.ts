import {
  Body, ConflictException, Controller, Delete, HttpCode, Param, Post, Query, ServiceUnavailableException, UseFilters, UsePipes,
} from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { attributionOf } from '../auth/principal.js';
import { CurrentAuth, type RequestAuth } from '../auth/request-auth.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import {
  ApiAcceptedResponse, ApiBadRequestResponse, ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation,
  ApiServiceUnavailableResponse, ApiTags,
} from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import { AnswerSource } from '../conversations/run-conversation.js';
import { HandBackAnswers } from '../conversations/hand-back/hand-back-answers.service.js';
import { requestValidation } from '../common/request-validation.js';
import { ApiErrorFilter } from './api-error.filter.js';
import { RunControlService } from '../runs/control/run-control.service.js';
import { RunDeletionService } from '../runs/control/run-deletion.service.js';
import type { Run } from '../runs/resource/run-resource.js';
import { AnswerRunBody } from './dto/answer-run.dto.js';
import { ClearRunsQuery } from './dto/clear-runs.query.js';
import { DeletedCountDto, RunEnvelopeDto } from './dto/run-control.dto.js';
import { RunIdParams } from './dto/run-id.params.js';
import { runNotFound } from './runs.controller.js';

/**
 * Run control (contract "Runs API details"): cancel, answer a parked run and retry (runs.control), delete one run
 * and clear finished runs (runs.delete). Who acts is the caller's name claim, or `dashboard`
 * (spec "Attribution"); nothing of it comes from the request.
 */
@ApiTags('runs')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed or unknown parameter, named in `error`' })
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database (or, for retry, the store) is away: try again' })
@Controller('api/runs')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class RunControlController {
  constructor(
    private readonly control: RunControlService,
    private readonly deletion: RunDeletionService,
    private readonly answers: HandBackAnswers,
  ) {}

  /** 202 `{run}` (now `cancelled`; its sandboxes go within 10 s); 409 when it had ended. */
  @Post(':id/cancel')
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel a run', description: 'A queued run leaves the queues; a running run\'s sandboxes are destroyed within 10 s, on whichever replica runs it. The ticket ends Failed with "cancelled by <caller>".' })
  @ApiAcceptedResponse({ type: RunEnvelopeDto, description: 'the run, now cancelled' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'the run has already ended' })
  @RequirePermissions(Permission.RunsControl)
  async cancel(@Param() params: RunIdParams, @CurrentAuth() auth: RequestAuth): Promise<{ run: Run }> {
    const result = await this.control.cancel(params.id, attributionOf(auth.principal));
    switch (result.outcome) {
      case 'cancelled': return { run: result.run };
      case 'not-found': throw runNotFound(params.id);
      case 'ended': throw new ConflictException({ error: `run ${params.id} has already ended (${result.state}): only a queued, running or parked run can be cancelled` });
    }
  }

  /** 202 `{run}` of the new run; 409 when not retryable or another run is live on the ticket; 503 without the store. */
  @Post(':id/retry')
  @HttpCode(202)
  @ApiOperation({ summary: 'Retry a run', description: 'Claims the ticket of a failed, cancelled or parked run again, like any trigger.' })
  @ApiAcceptedResponse({ type: RunEnvelopeDto, description: 'the new run' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'the run cannot be retried, or another run is live on its ticket' })
  @RequirePermissions(Permission.RunsControl)
  async retry(@Param() params: RunIdParams, @CurrentAuth() auth: RequestAuth): Promise<{ run: Run }> {
    const result = await this.control.retry(params.id, attributionOf(auth.principal));
    switch (result.outcome) {
      case 'retried': return { run: result.run };
      case 'not-found': throw runNotFound(params.id);
      case 'refused': throw new ConflictException({ error: result.reason });
      case 'unavailable': throw new ServiceUnavailableException({ error: result.reason });
    }
  }

  /** 202 `{run}` of the run the answer starts; 409 for a second answer, a run not parked, or a not-implementable verdict; 503 without the store. */
  @Post(':id/answer')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Answer a parked run',
    description: 'Answers the question of a run that handed its ticket back: the parked run ends (cancelled, "answered by <caller>") and the ticket is claimed again; '
      + 'the new run reads the answer. The first answer wins. A not-implementable verdict takes no answer: retry the run instead.',
  })
  @ApiAcceptedResponse({ type: RunEnvelopeDto, description: 'the new run' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'the run is not parked, was answered already, judged the ticket not implementable (use POST /api/runs/:id/retry), or another run took the ticket' })
  @RequirePermissions(Permission.RunsControl)
  async answer(@Param() params: RunIdParams, @Body() body: AnswerRunBody, @CurrentAuth() auth: RequestAuth): Promise<{ run: Run }> {
    const result = await this.answers.answerRun(params.id, body.answer.trim(), attributionOf(auth.principal), AnswerSource.Dashboard);
    switch (result.outcome) {
      case 'resumed': return { run: result.run };
      case 'not-found': throw runNotFound(params.id);
      case 'conflict': throw new ConflictException({ error: result.reason });
      case 'unavailable': throw new ServiceUnavailableException({ error: result.reason });
    }
  }

  /** 204; 409 while the run is live. */
  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a finished run', description: 'With its events, sandboxes and steps.' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'the run is live: cancel it first' })
  @RequirePermissions(Permission.RunsDelete)
  async remove(@Param() params: RunIdParams, @CurrentAuth() auth: RequestAuth): Promise<void> {
    const result = await this.deletion.delete(params.id, attributionOf(auth.principal));
    if (result.outcome === 'not-found') throw runNotFound(params.id);
    if (result.outcome === 'live') throw new ConflictException({ error: `run ${params.id} is ${result.state}: cancel it before deleting it` });
  }

  /** `?finished=true` → 200 `{deleted: n}`; anything else is a 400. */
  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete every finished run', description: 'Needs `finished=true`; deletes in batches.' })
  @ApiOkResponse({ type: DeletedCountDto, description: 'how many were deleted' })
  @RequirePermissions(Permission.RunsDelete)
  async clear(@Query() _query: ClearRunsQuery, @CurrentAuth() auth: RequestAuth): Promise<{ deleted: number }> {
    return { deleted: await this.deletion.clearFinished(attributionOf(auth.principal)) };
  }
}
