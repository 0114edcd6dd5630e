import { Controller, HttpCode, NotFoundException, Param, Post, type RawBodyRequest, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { isPlatform } from '../platforms/platform.js';
import type { WebhookAnswer } from './webhook-answer.js';
import { answer } from './webhook-answer.js';
import { WebhookService } from './webhook.service.js';

/**
 * `POST /webhook` (platform detected) and `POST /webhook/platform-a|b|c|d`. Public to the token
 * guard: each platform's own secret authenticates its deliveries, over the raw request bytes.
 */
@Public()
@Controller('webhook')
export class WebhookController {
  constructor(private readonly webhooks: WebhookService) {}

  @Post()
  @HttpCode(200)
  async detect(@Req() req: RawBodyRequest<FastifyRequest>, @Res() reply: FastifyReply): Promise<void> {
    await this.handle(null, req, reply);
  }

  @Post(':platform')
  @HttpCode(200)
  async platform(@Param('platform') platform: string, @Req() req: RawBodyRequest<FastifyRequest>, @Res() reply: FastifyReply): Promise<void> {
    if (!isPlatform(platform)) throw new NotFoundException(`no webhook route for ${platform}; use platform-a, platform-b, platform-c or platform-d`);
    await this.handle(platform, req, reply);
  }

  private async handle(platform: Parameters<WebhookService['receive']>[0]['platform'], req: RawBodyRequest<FastifyRequest>, reply: FastifyReply): Promise<void> {
    const body = formPayload(req);
    const result: WebhookAnswer = body.ok
      ? await this.webhooks.receive({ platform, headers: req.headers, rawBody: req.rawBody ?? Buffer.alloc(0), body: body.value })
      : answer.badRequest(body.error);
    await reply.code(result.status).type('text/plain; charset=utf-8').send(result.body);
  }
}

/** GitHub can deliver `application/x-www-form-urlencoded` with the JSON in a `payload` field. */
function formPayload(req: FastifyRequest): { ok: true; value: unknown } | { ok: false; error: string } {
  const type = req.headers['content-type'] ?? '';
  const body = req.body as Record<string, unknown> | undefined;
  if (!type.startsWith('application/x-www-form-urlencoded')) return { ok: true, value: body };
  if (typeof body?.payload !== 'string') return { ok: false, error: 'a form-encoded delivery needs a payload field' };
  try {
    return { ok: true, value: JSON.parse(body.payload) };
  } catch {
    return { ok: false, error: 'the payload field is not JSON' };
  }
}
