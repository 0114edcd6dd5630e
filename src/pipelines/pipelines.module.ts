import { Module } from '@nestjs/common';
import { PipelineCatalogService } from './pipeline-catalog.service.js';
import { StepRunner } from './step-runner.js';

@Module({
  providers: [PipelineCatalogService, { provide: StepRunner, useValue: new StepRunner() }],
  exports: [PipelineCatalogService, StepRunner],
})
export class PipelinesModule {}
