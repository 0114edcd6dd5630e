import { BadGatewayException, BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import type { ProjectConfig } from '../config/service-config.js';
import { DialogStoreService } from './dialog-store.service.js';
import { DialogTurnService, DialogUnavailableError } from './dialog-turn.service.js';
import { type DialogReply, ReplyKind } from './dialog-types.js';

/**
 * The design dialogue's use cases. A conversation belongs to its owner (the caller's name-claim
 * value): anyone else is told it does not exist. The person's message is stored before the
 * model is asked, so a failed turn loses nothing: the next message carries on from it.
 */
@Injectable()
export class DialogService {
  constructor(
    private readonly config: ConfigService,
    private readonly store: DialogStoreService,
    private readonly turns: DialogTurnService,
  ) {}

  /** The configured projects, by name (a person chooses which one to talk about). */
  projectNames(): string[] {
    return Object.keys(this.config.config.projects).sort();
  }

  projectOf(name: string): ProjectConfig {
    const projects = this.config.config.projects;
    const project = Object.hasOwn(projects, name) ? projects[name] : undefined;
    if (!project) throw new NotFoundException({ error: `no project ${name}: configured are ${Object.keys(projects).join(', ') || 'none'}` });
    return project;
  }

  async converse(owner: string, input: { project: string; message: string; conversationId?: string }): Promise<{ conversationId: string; reply: DialogReply }> {
    const project = this.projectOf(input.project);
    const earlier = input.conversationId === undefined ? null : await this.store.get(owner, input.conversationId);
    if (input.conversationId !== undefined && !earlier) throw conversationNotFound(input.conversationId);
    if (earlier && earlier.project !== project.name) {
      throw new BadRequestException({ error: `conversation ${earlier.id} is about project ${earlier.project}, not ${project.name}` });
    }
    const used = DialogStoreService.usageOf(earlier);
    const refusal = this.turns.unavailable(project, used);
    if (refusal) throw new ConflictException({ error: refusal });
    let id: string;
    if (earlier) {
      if (!(await this.store.addPersonMessage(owner, earlier.id, input.message))) throw conversationNotFound(earlier.id);
      id = earlier.id;
    } else {
      id = await this.store.create(owner, project.name, input.message);
    }
    let turn;
    try {
      turn = await this.turns.run({ project, history: earlier?.messages ?? [], drafts: earlier?.drafts ?? [], message: input.message, used });
    } catch (error) {
      if (!(error instanceof DialogUnavailableError)) throw error;
      const body = { error: error.message, conversationId: id };
      throw error.reason === 'upstream' ? new BadGatewayException(body) : new ConflictException(body);
    }
    const { outcome, drafts, usage } = turn;
    let text: string;
    switch (outcome.kind) {
      case 'finished':
        text = outcome.summary;
        break;
      case 'budget':
        text = `(The answer was cut short: ${outcome.reason}.)`;
        break;
      case 'asked':
        text = outcome.question;
        break;
      case 'cancelled':
      case 'failed': {
        await this.store.noteUsage(id, usage);
        const reason = outcome.kind === 'failed' ? outcome.error : outcome.reason;
        if (drafts.length === 0) throw new BadGatewayException({ error: `the model did not answer: ${reason}`, conversationId: id });
        text = `(The answer was cut short: ${reason}.)`;
        break;
      }
    }
    const kind = drafts.length > 0 ? ReplyKind.Proposal : ReplyKind.Answer;
    const indices = await this.store.addReply(id, kind, text, drafts, outcome.kind === 'cancelled' || outcome.kind === 'failed' ? { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 } : usage);
    return { conversationId: id, reply: { kind, text, tickets: drafts.map((d, i) => ({ ...d, index: indices[i]! })) } };
  }
}

export function conversationNotFound(id: string): NotFoundException {
  return new NotFoundException({ error: `no conversation ${id}` });
}
