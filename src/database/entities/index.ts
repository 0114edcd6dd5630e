import { RunArtifactEntity } from './run-artifact.entity.js';
import { RunEventEntity } from './run-event.entity.js';
import { RunSandboxEntity } from './run-sandbox.entity.js';
import { RunEntity } from './run.entity.js';
import { TicketCommentEntity } from './ticket-comment.entity.js';
import { TicketEntity } from './ticket.entity.js';

/** Every entity the data source knows. A module adding a table adds its entity here. */
export const ENTITIES = [TicketEntity, RunEntity, RunEventEntity, RunSandboxEntity, TicketCommentEntity, RunArtifactEntity];
