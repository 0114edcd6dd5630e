import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { RunChangesModule } from '../runs/changes/run-changes.module.js';
import { DEFAULT_LABEL_PROJECTION_OPTIONS, LABEL_PROJECTION_OPTIONS } from '../tickets/label-projection/label-projection.options.js';
import { ProjectTrackerFactory } from '../tickets/label-projection/project-tracker.factory.js';
import { PullRequestRecordsService } from './publishing/pull-request-records.service.js';
import { DEFAULT_WORKSPACE_OPTIONS, WORKSPACE_OPTIONS, type WorkspaceOptions } from './workspace.options.js';
import { WorkspacesService } from './workspaces.service.js';

// Its own tracker factory (reads the ticket's title): the label projection's stays private to it.
const PROVIDERS: Provider[] = [
  { provide: LABEL_PROJECTION_OPTIONS, useValue: DEFAULT_LABEL_PROJECTION_OPTIONS },
  ProjectTrackerFactory, PullRequestRecordsService, WorkspacesService,
];

/** Repository workspaces and publishing (issue 11): trees into sandboxes, changes out as pull requests. */
@Module({
  imports: [RunChangesModule],
  providers: [{ provide: WORKSPACE_OPTIONS, useValue: DEFAULT_WORKSPACE_OPTIONS }, ...PROVIDERS],
  exports: [WorkspacesService],
})
export class WorkspacesModule {
  static withOptions(options: WorkspaceOptions): DynamicModule {
    return { module: WorkspacesModule, imports: [RunChangesModule], providers: [{ provide: WORKSPACE_OPTIONS, useValue: options }, ...PROVIDERS], exports: [WorkspacesService] };
  }
}
