import { Module } from '@nestjs/common';
import { RunChangesModule } from './changes/run-changes.module.js';
import { PullRequestRunsService } from './pull-request-runs.service.js';

/** Runs that target a pull request (label trigger, ticket-less commands). */
@Module({ imports: [RunChangesModule], providers: [PullRequestRunsService], exports: [PullRequestRunsService] })
export class PullRequestRunsModule {}
