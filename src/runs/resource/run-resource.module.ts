import { Module } from '@nestjs/common';
import { RunReaderService } from './run-reader.service.js';

/** The contract's Run resource, read from the database: for the dashboard API and the hub. */
@Module({ providers: [RunReaderService], exports: [RunReaderService] })
export class RunResourceModule {}
