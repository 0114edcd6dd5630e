import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { registerArchiveBodyParser } from './archive-body-parser.js';
import { ArchiveController } from './archive.controller.js';
import { ArchiveExporter } from './archive-export.service.js';
import { ArchiveImporter } from './archive-import.service.js';

/** The whole-database archive: `GET /api/archive` and `POST /api/archive`, and the body parser the restore streams through. */
@Module({
  controllers: [ArchiveController],
  providers: [ArchiveExporter, ArchiveImporter],
})
export class ArchiveModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify) registerArchiveBodyParser(fastify);
  }
}
