import { Controller, Get, Param, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import { requestValidation } from '../common/request-validation.js';
import { RunQuestionsService } from '../conversations/hand-back/run-questions.service.js';
import { RunReaderService } from '../runs/resource/run-reader.service.js';
import { ApiErrorFilter } from './api-error.filter.js';
import { RunQuestionEnvelopeDto } from './dto/run-question.dto.js';
import { RunIdParams } from './dto/run-id.params.js';
import { runNotFound } from './runs.controller.js';

/**
 * The question a parked run asked (runs.read): the dashboard shows it whole above the answer box.
 * The run's `error` carries only its first line, and the events only a clipped brief.
 */
@ApiTags('runs')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'an id that is not a UUID' })
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
@Controller('api/runs')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class RunQuestionController {
  constructor(
    private readonly questions: RunQuestionsService,
    private readonly runs: RunReaderService,
  ) {}

  @Get(':id/question')
  @RequirePermissions(Permission.RunsRead)
  @ApiOperation({
    summary: 'A run\'s hand-back question',
    description: 'The question the run\'s agent handed the ticket back with (`kind`, the whole text, when) and its answer once given; `{question: null}` for a run that asked none.',
  })
  @ApiOkResponse({ type: RunQuestionEnvelopeDto, description: 'the question, or null' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id' })
  async get(@Param() params: RunIdParams): Promise<RunQuestionEnvelopeDto> {
    const found = await this.questions.find(params.id);
    if (found) {
      const { kind, question, askedAt, answer, answeredBy, answerSource, answeredAt, resumedRunId } = found;
      return { question: { kind, question, askedAt, answer, answeredBy, answerSource, answeredAt, resumedRunId } };
    }
    // No row: a run that asked nothing, or no run at all (the row's foreign key makes the order safe).
    if (!(await this.runs.get(params.id))) throw runNotFound(params.id);
    return { question: null };
  }
}
