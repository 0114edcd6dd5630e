import { BadGatewayException, BadRequestException, Body, ConflictException, Controller, ForbiddenException, Get, HttpCode, Param, Post, UseFilters, UsePipes } from '@nestjs/common';
import { AuthenticationService } from '../auth/authentication.service.js';
import { Permission } from '../auth/permission.js';
import { permissionDeniedBody } from '../auth/permission-denied.js';
import { attributionOf, missingPermissions } from '../auth/principal.js';
import { CurrentAuth, type RequestAuth } from '../auth/request-auth.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import { ApiBadGatewayResponse, ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import { requestValidation } from '../common/request-validation.js';
import { ApiErrorFilter } from '../dashboard/api-error.filter.js';
import { DialogFilingService, type FiledTicket, type FilingProblem } from './dialog-filing.service.js';
import { DialogStoreService } from './dialog-store.service.js';
import type { Conversation, ConversationSummary, DialogReply } from './dialog-types.js';
import { DialogService, conversationNotFound } from './dialog.service.js';
import { DialogFileBody, DialogIdParams, DialogMessageBody } from './dto/dialog.dto.js';

/**
 * The design dialogue (contract "The design dialogue", dialog.write): talk with the model about
 * a project, read your conversations, file the drafts you choose. Conversations are their
 * owner's alone: another caller gets 404 as for one that does not exist.
 */
@ApiTags('dialog')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed body or id' })
@Controller('api/dialog')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class DialogController {
  constructor(
    private readonly dialog: DialogService,
    private readonly store: DialogStoreService,
    private readonly filing: DialogFilingService,
    private readonly authn: AuthenticationService,
  ) {}

  @Post()
  @HttpCode(200)
  @RequirePermissions(Permission.DialogWrite)
  @ApiOperation({
    summary: 'Send a message',
    description: 'Starts a conversation about `project`, or continues yours (`conversationId`). The model reads the project\'s repositories read-only and answers, '
      + 'or proposes ticket drafts (`kind: proposal`, `tickets` with their conversation-wide `index`).',
  })
  @ApiOkResponse({ description: '`{conversationId, reply: {kind, text, tickets}}`' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no such project, or no such conversation of yours' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'the project has no model, agents may not run on this sandbox backend, or the conversation\'s budget is spent' })
  @ApiBadGatewayResponse({ type: ErrorBodyDto, description: 'a repository could not be read or the model did not answer (the message is kept: `conversationId` says where)' })
  async send(@Body() body: DialogMessageBody, @CurrentAuth() auth: RequestAuth): Promise<{ conversationId: string; reply: DialogReply }> {
    return this.dialog.converse(attributionOf(auth.principal), { project: body.project.trim(), message: body.message, conversationId: body.conversationId });
  }

  @Get()
  @RequirePermissions(Permission.DialogWrite)
  @ApiOperation({ summary: 'Your conversations', description: 'The caller\'s conversations, most recently active first (at most 100), and the projects a conversation may be about.' })
  @ApiOkResponse({ description: '`{items: [{id, project, title, createdAt, updatedAt}], projects: [name]}`' })
  async list(@CurrentAuth() auth: RequestAuth): Promise<{ items: ConversationSummary[]; projects: string[] }> {
    return { items: await this.store.list(attributionOf(auth.principal)), projects: this.dialog.projectNames() };
  }

  @Get(':id')
  @RequirePermissions(Permission.DialogWrite)
  @ApiOperation({ summary: 'One of your conversations', description: 'Its messages, every draft with its index and, once filed, its ticket, and the usage so far.' })
  @ApiOkResponse({ description: '`{id, project, title, createdAt, updatedAt, messages, drafts, usage}`' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no such conversation of yours' })
  async get(@Param() params: DialogIdParams, @CurrentAuth() auth: RequestAuth): Promise<Conversation> {
    const found = await this.store.get(attributionOf(auth.principal), params.id);
    if (!found) throw conversationNotFound(params.id);
    return found;
  }

  @Post(':id/file')
  @HttpCode(201)
  @RequirePermissions(Permission.DialogWrite)
  @ApiOperation({
    summary: 'File drafts as tickets',
    description: 'Files the chosen drafts in the project\'s tracker with their acceptance criteria. A draft filed before is answered with its ticket (`alreadyFiled`), never filed twice. '
      + '`start: true` (needs runs.control as well: 403 naming it otherwise) also puts each new ticket into the trigger block\'s first trigger status, from where it starts like any ticket.',
  })
  @ApiCreatedResponse({ description: '`{filed: [{index, ticket, url, started, alreadyFiled}], errors: [{index, error}]}`' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no such conversation of yours' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'the tracker cannot be reached from the configuration, or start has no trigger status to use' })
  @ApiBadGatewayResponse({ type: ErrorBodyDto, description: 'no draft could be filed (each error named)' })
  async file(@Param() params: DialogIdParams, @Body() body: DialogFileBody, @CurrentAuth() auth: RequestAuth): Promise<{ filed: FiledTicket[]; errors: FilingProblem[] }> {
    const start = body.start === true;
    // A second permission only this variant needs: refused as the guard refuses, naming it.
    if (start && this.authn.enforce && missingPermissions(auth.principal, [Permission.RunsControl]).length > 0) {
      throw new ForbiddenException(permissionDeniedBody([Permission.RunsControl]));
    }
    const owner = attributionOf(auth.principal);
    const conversation = await this.store.get(owner, params.id);
    if (!conversation) throw conversationNotFound(params.id);
    const project = this.dialog.projectOf(conversation.project);
    const result = await this.filing.file(owner, conversation.id, project, body.tickets, start, owner);
    switch (result.outcome) {
      case 'not-found':
        throw conversationNotFound(params.id);
      case 'bad-request':
        throw new BadRequestException({ error: result.error });
      case 'refused':
        throw new ConflictException({ error: result.error });
      case 'filed':
        if (result.filed.length === 0) throw new BadGatewayException({ error: result.errors.map((e) => e.error).join('; '), errors: result.errors });
        return { filed: result.filed, errors: result.errors };
    }
  }
}
