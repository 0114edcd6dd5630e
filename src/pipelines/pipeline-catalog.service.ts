import { Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import type { Pipeline } from './pipeline.js';
import { resolvePipeline } from './pipeline-catalog.js';

/** Resolves pipeline names against the current (live-reloaded) configuration. */
@Injectable()
export class PipelineCatalogService {
  constructor(private readonly config: ConfigService) {}

  resolve(name: string): Pipeline {
    return resolvePipeline(this.config.config, name);
  }
}
