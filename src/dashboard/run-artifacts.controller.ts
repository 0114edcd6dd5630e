import { Controller, Get, Header, NotFoundException, Param, StreamableFile, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import type { ErrorBody } from '../common/error-body.js';
import { requestValidation } from '../common/request-validation.js';
import { RunArtifactsService, type RunArtifactSummary } from '../runs/run-artifacts.service.js';
import { ApiErrorFilter } from './api-error.filter.js';
import { RunArtifactListDto } from './dto/run-artifact.dto.js';
import { RunArtifactParams } from './dto/run-artifact-params.js';
import { RunIdParams } from './dto/run-id.params.js';
import { runNotFound } from './runs.controller.js';

/** A run's artifacts (security-scan's SARIF and report): listed, and each downloaded as saved (runs.read). */
@ApiTags('runs')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'an id that is not a UUID, or a name that is not an artifact name' })
@Controller('api/runs')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
export class RunArtifactsController {
  constructor(private readonly artifacts: RunArtifactsService) {}

  @Get(':id/artifacts')
  @RequirePermissions(Permission.RunsRead)
  @ApiOperation({ summary: 'A run\'s artifacts', description: 'Name, media type, size and time of each artifact the run saved, by name.' })
  @ApiOkResponse({ type: RunArtifactListDto, description: 'the artifacts (empty when the run saved none)' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id' })
  async list(@Param() params: RunIdParams): Promise<{ items: RunArtifactSummary[] }> {
    const items = await this.artifacts.list(params.id);
    if (!items) throw runNotFound(params.id);
    return { items };
  }

  /** The content as saved, with its media type; a download (attachment), never rendered in place. */
  @Get(':id/artifacts/:name')
  @RequirePermissions(Permission.RunsRead)
  @Header('X-Content-Type-Options', 'nosniff')
  @ApiOperation({
    summary: 'One artifact of a run',
    description: 'The content as saved, with its media type as Content-Type (e.g. `application/sarif+json`, `text/markdown; charset=utf-8`) '
      + 'and `Content-Disposition: attachment; filename="<name>"`.',
  })
  @ApiOkResponse({
    description: 'the content',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    headers: {
      'Content-Disposition': { description: 'attachment; filename="<name>"', schema: { type: 'string' } },
      'X-Content-Type-Options': { description: 'nosniff', schema: { type: 'string' } },
    },
  })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no run with this id, or no artifact of this name in the run' })
  async read(@Param() params: RunArtifactParams): Promise<StreamableFile> {
    const read = await this.artifacts.read(params.id, params.name);
    if (!read.found) {
      if (!read.run) throw runNotFound(params.id);
      throw new NotFoundException({ error: `run ${params.id} has no artifact ${params.name}` } satisfies ErrorBody);
    }
    const { artifact } = read;
    // The name allows only [A-Za-z0-9._-]: nothing in it needs quoting in the header.
    return new StreamableFile(artifact.content, {
      type: artifact.mediaType, disposition: `attachment; filename="${artifact.name}"`, length: artifact.sizeBytes,
    });
  }
}
