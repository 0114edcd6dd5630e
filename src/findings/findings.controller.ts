import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/public.decorator.js';
import { FindingsService, type FindingsResponse } from './findings.service.js';

@Controller('api/config/findings')
export class FindingsController {
  constructor(private readonly findings: FindingsService) {}

  /** Public: the channel that reports a broken authority cannot depend on it. */
  @Public()
  @Get()
  list(): FindingsResponse {
    return this.findings.response();
  }
}
