import { Module } from '@nestjs/common';
import { RunQuestionsService } from './hand-back/run-questions.service.js';
import { ReworkModule } from './rework/rework.module.js';
import { RunConversationService } from './run-conversation.service.js';

/**
 * The records of conversations and what a run's model reads of them (with the rework feedback of
 * ReworkModule, which stands on the global core only), so the run engine, the pipelines and run
 * control can all import it without a cycle.
 */
@Module({
  imports: [ReworkModule],
  providers: [RunQuestionsService, RunConversationService],
  exports: [RunQuestionsService, RunConversationService],
})
export class ConversationsModule {}
