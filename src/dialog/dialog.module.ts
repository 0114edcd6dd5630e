import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { PipelinesModule } from '../pipelines/pipelines.module.js';
import { DEFAULT_LABEL_PROJECTION_OPTIONS, LABEL_PROJECTION_OPTIONS } from '../tickets/label-projection/label-projection.options.js';
import { ProjectTrackerFactory } from '../tickets/label-projection/project-tracker.factory.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { DialogFilingService } from './dialog-filing.service.js';
import { DialogStoreService } from './dialog-store.service.js';
import { DialogTurnService } from './dialog-turn.service.js';
import { DialogController } from './dialog.controller.js';
import { DialogService } from './dialog.service.js';

/**
 * The design dialogue (issue 29): conversations with the model about a project, and filing the
 * drafts it proposes. Skills come from the catalog: those
 * offered to every agent pipeline and those whose `pipelines` name `dialog`.
 * Its own tracker factory (files tickets): the label projection's stays private to it.
 */
@Module({
  imports: [WorkspacesModule, PipelinesModule, CatalogModule],
  controllers: [DialogController],
  providers: [
    DialogService, DialogStoreService, DialogTurnService, DialogFilingService,
    { provide: LABEL_PROJECTION_OPTIONS, useValue: DEFAULT_LABEL_PROJECTION_OPTIONS },
    ProjectTrackerFactory,
  ],
  // Chat holds the same dialogue in a thread (src/chat/dialog-design.adapter.ts).
  exports: [DialogService, DialogStoreService, DialogFilingService],
})
export class DialogModule {}
