import { Module } from '@nestjs/common';
import { HandBackModule } from '../conversations/hand-back/hand-back.module.js';
import { ReworkModule } from '../conversations/rework/rework.module.js';
import { PipelinesModule } from '../pipelines/pipelines.module.js';
import { PullRequestRunsModule } from '../runs/pull-request-runs.module.js';
import { RunEngineModule } from '../runs/run-engine.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { WriteAccessModule } from '../write-access/write-access.module.js';
import { CommandInterpreter } from './command-interpreter.service.js';
import { CommandReceiptsService } from './command-receipts.service.js';
import { CommandReplier } from './command-replier.service.js';
import { CommandRunsService } from './command-runs.service.js';
import { PullRequestActsService } from './pull-request-acts.service.js';
import { PullRequestFactsService } from './pull-request-facts.service.js';

/** Pull-request comment commands, review acts and their answers (issue 15). */
@Module({
  imports: [RunEngineModule, PipelinesModule, WorkspacesModule, WriteAccessModule, HandBackModule, ReworkModule, PullRequestRunsModule],
  providers: [PullRequestActsService, CommandInterpreter, CommandRunsService, PullRequestFactsService, CommandReceiptsService, CommandReplier],
  exports: [PullRequestActsService, CommandReplier],
})
export class CommandsModule {}
