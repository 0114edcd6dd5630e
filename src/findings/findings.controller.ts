import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/public.decorator.js';
import { ApiOkResponse, ApiOperation, ApiTags } from '../common/api-docs.js';
import { FindingsResponseDto } from './dto/findings-response.dto.js';
import { FindingsService, type FindingsResponse } from './findings.service.js';

@ApiTags('health')
@Controller('api/config/findings')
export class FindingsController {
  constructor(private readonly findings: FindingsService) {}

  /** Public: the channel that reports a broken authority cannot depend on it. */
  @Public()
  @Get()
  @ApiOperation({ summary: 'What is wrong, and where', description: 'Findings of the configuration, the dependencies and the token authority.' })
  @ApiOkResponse({ type: FindingsResponseDto, description: 'the standing findings' })
  list(): FindingsResponse {
    return this.findings.response();
  }
}
