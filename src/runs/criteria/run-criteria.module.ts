import { Module } from '@nestjs/common';
import { RunChangesModule } from '../changes/run-changes.module.js';
import { RunCriteriaService } from './run-criteria.service.js';

/** A run's acceptance criteria, verdicts and judgements in the database. */
@Module({ imports: [RunChangesModule], providers: [RunCriteriaService], exports: [RunCriteriaService] })
export class RunCriteriaModule {}
