import { Module } from '@nestjs/common';
import { RunResourceModule } from '../resource/run-resource.module.js';
import { RunChangeAudience } from './run-change-audience.js';
import { RunChangeNotifier } from './run-change-notifier.js';

/** `run.changed` on the store feed: import it to call `RunChangeNotifier.changed(runId)` after a write. */
@Module({ imports: [RunResourceModule], providers: [RunChangeNotifier, RunChangeAudience], exports: [RunChangeNotifier, RunChangeAudience] })
export class RunChangesModule {}
