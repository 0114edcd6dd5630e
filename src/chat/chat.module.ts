import { Module } from '@nestjs/common';
import { HandBackModule } from '../conversations/hand-back/hand-back.module.js';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { RunChangesModule } from '../runs/changes/run-changes.module.js';
import { RunControlModule } from '../runs/control/run-control.module.js';
import { RunResourceModule } from '../runs/resource/run-resource.module.js';
import { RunEngineModule } from '../runs/run-engine.module.js';
import { ChatAccessService } from './chat-access.service.js';
import { ChatBotService } from './chat-bot.service.js';
import { ChatDesignTurns } from './chat-design-turns.service.js';
import { ChatFollower } from './chat-follower.service.js';
import { ChatFollowsService } from './chat-follows.service.js';
import { ChatInstanceHolder } from './chat-instance.holder.js';
import { ChatIntentsService } from './chat-intents.service.js';
import { ChatRunViews } from './chat-run-views.service.js';
import { ChatController } from './chat.controller.js';
import { CHAT_DESIGN_DIALOG } from './chat-design-dialog.js';
import { DialogDesignAdapter } from './dialog-design.adapter.js';
import { DialogModule } from '../dialog/dialog.module.js';
import { CHAT_INTENT_CLASSIFIER } from './chat-intent-classifier.js';
import { ModelIntentClassifier } from './model-intent-classifier.js';

/**
 * Chat ingress (issue 30) through the Chat SDK: `/chat/<platform>`, chat principals and their
 * permissions, intents carried out by the services the API uses, and runs followed in threads.
 * The design dialogue (src/dialog/, through DialogDesignAdapter) and the model's reading of free
 * text come in through narrow seams (CHAT_DESIGN_DIALOG, CHAT_INTENT_CLASSIFIER).
 */
@Module({
  imports: [DialogModule, HandBackModule, ConversationsModule, RunControlModule, RunResourceModule, RunEngineModule, RunChangesModule],
  controllers: [ChatController],
  providers: [ChatBotService, ChatAccessService, ChatIntentsService, ChatDesignTurns, ChatFollower, ChatFollowsService, ChatInstanceHolder, ChatRunViews,
    { provide: CHAT_INTENT_CLASSIFIER, useClass: ModelIntentClassifier },
    { provide: CHAT_DESIGN_DIALOG, useClass: DialogDesignAdapter }],
  exports: [ChatBotService],
})
export class ChatModule {}
