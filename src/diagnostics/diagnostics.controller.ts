import { Body, Controller, Get, HttpCode, NotFoundException, Post, UseFilters, UsePipes } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '../common/api-docs.js';
import { clipText } from '../common/clip-text.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import type { ErrorBody } from '../common/error-body.js';
import { requestValidation } from '../common/request-validation.js';
import { ApiErrorFilter } from '../dashboard/api-error.filter.js';
import { DiagnosticsService } from './diagnostics.service.js';
import { CandidateProbeBody, CandidateProbeResultDto, DiagnosticsSnapshotDto, ProbeBody, ProbeResultDto } from './dto/diagnostics.dto.js';

/** Which of the service's connections work (contract "Diagnostics"). */
@ApiTags('diagnostics')
@Controller('api/diagnostics')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class DiagnosticsController {
  constructor(private readonly diagnostics: DiagnosticsService) {}

  @Get('connections')
  @ApiOperation({
    summary: 'Connection snapshot',
    description: 'Every connection of the server (trackers, repositories, model endpoints, the store, the database, the sandbox backend, the token authority) with when it last worked and its last error as this replica saw them, and per platform whether a webhook secret is configured and the last delivery. Makes no outbound call.',
  })
  @ApiOkResponse({ type: DiagnosticsSnapshotDto })
  @RequirePermissions(Permission.DiagnosticsRead)
  snapshot(): Promise<DiagnosticsSnapshotDto> {
    return this.diagnostics.snapshot();
  }

  @Post('probe')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Probe a connection',
    description: 'One read-only authenticated round trip to the named connection (at most the probe timeout, 30 s); a second probe of the same connection while one runs shares its answer. The result becomes the connection\'s last success or failure.',
  })
  @ApiOkResponse({ type: ProbeResultDto, description: 'the probe ran; `ok` says whether the connection works' })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed body' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no connection of that name' })
  @RequirePermissions(Permission.DiagnosticsProbe)
  async probe(@Body() body: ProbeBody): Promise<ProbeResultDto> {
    const answer = this.diagnostics.probe(body.name);
    if (answer === null) throw new NotFoundException({ error: `no connection named ${JSON.stringify(clipText(body.name, 100))}` } satisfies ErrorBody);
    return answer;
  }

  @Post('probe-candidate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Probe a connection before saving it',
    description: 'One read-only authenticated round trip to a tracker or repository described in the body (as "Add project" does before saving), bounded like a probe. Nothing is stored or remembered; the token is used for this request only and never answered. Needs config.write as well, since it sends a credential to an address the caller chooses.',
  })
  @ApiOkResponse({ type: CandidateProbeResultDto, description: 'the probe ran; `ok` says whether the connection works' })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed body' })
  @RequirePermissions(Permission.DiagnosticsProbe, Permission.ConfigWrite)
  probeCandidate(@Body() body: CandidateProbeBody): Promise<CandidateProbeResultDto> {
    return this.diagnostics.probeCandidate({ kind: body.kind, platform: body.platform, url: body.url, api_url: body.api_url ?? null, token: body.token });
  }
}
