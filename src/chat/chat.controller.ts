import { Controller, HttpCode, Param, Post, type RawBodyRequest, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '../common/api-docs.js';
import { ChatBotService } from './chat-bot.service.js';
import { CHAT_PLATFORMS } from './chat-platforms.js';

/**
 * `POST /chat/<platform>` (contract "Chat"): public to the token guard, since each platform
 * proves its requests its own way (Slack's signing secret, the Bot Framework's and Google's
 * signed tokens), checked over the raw bytes before anything is read.
 */
@ApiTags('chat')
@Public()
@Controller('chat')
export class ChatController {
  constructor(private readonly bot: ChatBotService) {}

  @Post(':platform')
  @HttpCode(200)
  @ApiOperation({ summary: 'Receive a chat platform\'s request', description: 'Events, interactivity and commands; acknowledged at once, the work continues in the background.' })
  @ApiParam({ name: 'platform', enum: CHAT_PLATFORMS.map((p) => p.name) })
  @ApiResponse({ status: 200, description: 'received (a redelivered event is received and ignored)' })
  @ApiResponse({ status: 401, description: 'the platform\'s signature or token does not verify (or is outside its replay window)' })
  @ApiResponse({ status: 404, description: 'the platform is not configured here' })
  @ApiResponse({ status: 503, description: 'store_unavailable: the platform retries' })
  async receive(@Param('platform') platform: string, @Req() req: RawBodyRequest<FastifyRequest>, @Res() reply: FastifyReply): Promise<void> {
    const answer = await this.bot.handle(platform, req.headers, req.rawBody ?? Buffer.alloc(0), `${req.protocol}://${req.host || 'localhost'}${req.url}`);
    await reply.code(answer.status).headers(answer.headers).send(answer.body);
  }
}
