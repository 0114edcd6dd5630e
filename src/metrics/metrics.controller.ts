import { Controller, Get, NotFoundException, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { MetricsService } from './metrics.service.js';

/** `GET /metrics`: the Prometheus exposition. Public like /health; 404 with `metrics.enabled: false`. */
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly service: MetricsService) {}

  @Get()
  async metrics(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    if (!this.service.enabled) throw new NotFoundException('metrics are disabled (metrics.enabled: false)');
    // Collectors that read a dependency are time-bounded and never throw: a scrape always answers.
    const text = await this.service.registry.metrics();
    reply.header('content-type', this.service.registry.contentType);
    return text;
  }
}
