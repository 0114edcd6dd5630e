import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Permission } from '../auth/permission.js';
import { ConfigService } from '../config/config.service.js';
import { type ChatCaller, missing } from './chat-access.service.js';
import { CHAT_DESIGN_DIALOG, type ChatDesignDialog, type DesignTurn } from './chat-design-dialog.js';
import { ChatFollowsService } from './chat-follows.service.js';
import { refusal } from './chat-replies.js';
import type { ChatTurn } from './chat-turn.js';
import { FILE_DRAFTS_ACTION } from './run-status-text.js';

const text = (t: string) => ({ text: t, buttons: [] });

/**
 * A design dialogue held in a thread (`spec …`, "let's design …", dialog.write): each message in
 * the thread is a turn of one conversation; drafts the model proposes are listed with a "File
 * these tickets" button, and only that confirmation files them.
 */
@Injectable()
export class ChatDesignTurns {
  private readonly logger = new Logger('ChatDesign');

  constructor(
    private readonly config: ConfigService,
    private readonly follows: ChatFollowsService,
    @Optional() @Inject(CHAT_DESIGN_DIALOG) private readonly dialog: ChatDesignDialog | null,
  ) {}

  owns(actionId: string): boolean {
    return actionId.startsWith(FILE_DRAFTS_ACTION);
  }

  async isDesignThread(threadId: string): Promise<boolean> {
    return (await this.follows.designOf(threadId).catch(() => null)) !== null;
  }

  async start(turn: ChatTurn, caller: ChatCaller, said: string): Promise<void> {
    if (!(await this.allowed(turn, caller, 'hold a design dialogue'))) return;
    const projects = Object.keys(this.config.config.projects);
    const named = /^(?:for|in)\s+([A-Za-z0-9._-]+)\s*[:,-]?\s*([\s\S]*)$/i.exec(said);
    const project = named && projects.includes(named[1]!) ? named[1]! : projects.length === 1 ? projects[0]! : null;
    if (!project) return void (await turn.replies.post(text(`Which project? Say \`spec for <project>: …\` (${projects.join(', ') || 'no project is configured'}).`)));
    const message = named && project === named[1] ? named[2]!.trim() : said;
    await this.converse(turn, caller, project, message || 'Let us design something together.', null);
  }

  async turn(turn: ChatTurn, caller: ChatCaller, said: string): Promise<void> {
    const record = turn.replies.threadId ? await this.follows.designOf(turn.replies.threadId) : null;
    if (!record || !(await this.allowed(turn, caller, 'hold a design dialogue'))) return;
    await this.converse(turn, caller, record.project, said, record.conversationId, record.drafts);
  }

  /** The confirmation button: files every draft proposed in the thread. */
  async confirm(turn: ChatTurn, caller: ChatCaller, value: string | undefined): Promise<void> {
    if (!(await this.allowed(turn, caller, 'file tickets from a design dialogue')) || !this.dialog) return;
    const record = turn.replies.threadId ? await this.follows.designOf(turn.replies.threadId) : null;
    if (!record || record.conversationId !== value || record.drafts === 0) return void (await turn.replies.post(text('Nothing to file in this thread.')));
    try {
      const { filed } = await this.dialog.file({ owner: caller.principal, conversationId: record.conversationId, start: false });
      await this.follows.setDesign(turn.replies.threadId!, { ...record, drafts: 0 });
      await turn.replies.post(text(`Filed by ${caller.principal}: ${filed.map((f) => `[${f.ticket}](${f.url})`).join(', ')}`));
    } catch (error) {
      await turn.replies.post(text(`Not filed: ${(error as Error).message}`));
    }
  }

  private async converse(turn: ChatTurn, caller: ChatCaller, project: string, message: string, conversationId: string | null, draftsBefore = 0): Promise<void> {
    if (!this.dialog) return void (await turn.replies.post(text('The design dialogue is not available on this server.')));
    let reply: DesignTurn;
    try {
      reply = await this.dialog.turn({ owner: caller.principal, project, message, conversationId });
    } catch (error) {
      this.logger.warn(`design turn of ${caller.principal} failed: ${(error as Error).message}`);
      return void (await turn.replies.post(text(`The design dialogue failed: ${(error as Error).message}`)));
    }
    const drafts = draftsBefore + reply.reply.tickets.length;
    const lines = [reply.reply.text];
    for (const [i, t] of reply.reply.tickets.entries()) lines.push(`**Draft ${draftsBefore + i + 1}: ${t.title}**`, ...t.criteria.map((c) => `- [ ] ${c}`));
    const buttons = drafts > 0 ? [{ label: `File ${drafts === 1 ? 'this ticket' : `these ${drafts} tickets`}`, value: reply.conversationId, action: FILE_DRAFTS_ACTION }] : [];
    const sent = await turn.replies.post({ text: lines.join('\n'), buttons });
    await this.follows.setDesign(sent.threadId, { conversationId: reply.conversationId, project, drafts });
    await turn.replies.subscribe(sent.threadId).catch(() => undefined);
  }

  private async allowed(turn: ChatTurn, caller: ChatCaller, act: string): Promise<boolean> {
    const lacking = missing(caller, Permission.DialogWrite);
    if (lacking.length === 0) return true;
    await turn.replies.post(text(refusal(caller, lacking, act)));
    return false;
  }
}
