import { HttpException, Injectable } from '@nestjs/common';
import { DialogFilingService } from '../dialog/dialog-filing.service.js';
import { DialogStoreService } from '../dialog/dialog-store.service.js';
import { DialogService, conversationNotFound } from '../dialog/dialog.service.js';
import type { ChatDesignDialog, DesignTurn } from './chat-design-dialog.js';

/**
 * The design dialogue (`src/dialog/`) behind chat's seam: the same conversations, owned by the
 * chat principal, the same model turn, and the same filing as `POST /api/dialog/:id/file`.
 * The dialogue's HTTP refusals become errors whose message is the refusal's own text.
 */
@Injectable()
export class DialogDesignAdapter implements ChatDesignDialog {
  constructor(
    private readonly dialog: DialogService,
    private readonly store: DialogStoreService,
    private readonly filing: DialogFilingService,
  ) {}

  async turn(input: { owner: string; project: string; message: string; conversationId: string | null }): Promise<DesignTurn> {
    const { conversationId, reply } = await plainErrors(() => this.dialog.converse(input.owner, {
      project: input.project, message: input.message, ...(input.conversationId ? { conversationId: input.conversationId } : {}),
    }));
    return { conversationId, reply: { kind: reply.kind, text: reply.text, tickets: reply.tickets.map(({ title, body, criteria, labels }) => ({ title, body, criteria, labels })) } };
  }

  async file(input: { owner: string; conversationId: string; start: boolean }): Promise<{ filed: { ticket: string; url: string }[] }> {
    return plainErrors(async () => {
      const conversation = await this.store.get(input.owner, input.conversationId);
      if (!conversation) throw conversationNotFound(input.conversationId);
      const indices = conversation.drafts.filter((d) => d.filed === null).map((d) => d.index);
      const project = this.dialog.projectOf(conversation.project);
      const result = await this.filing.file(input.owner, conversation.id, project, indices, input.start, input.owner);
      if (result.outcome !== 'filed') throw new Error(result.outcome === 'not-found' ? `no conversation ${input.conversationId}` : result.error);
      if (result.filed.length === 0 && result.errors.length > 0) throw new Error(result.errors.map((e) => e.error).join('; '));
      return { filed: result.filed.map(({ ticket, url }) => ({ ticket, url })) };
    });
  }
}

async function plainErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpException) {
      const body = error.getResponse() as { error?: unknown } | string;
      throw new Error(typeof body === 'string' ? body : String(body.error ?? error.message));
    }
    throw error;
  }
}
