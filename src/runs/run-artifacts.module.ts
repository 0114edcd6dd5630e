import { Module } from '@nestjs/common';
import { RunArtifactsService } from './run-artifacts.service.js';

/** A run's artifacts: saved by the run engine's steps, read by the dashboard API. */
@Module({ providers: [RunArtifactsService], exports: [RunArtifactsService] })
export class RunArtifactsModule {}
