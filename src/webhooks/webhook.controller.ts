import { Controller, HttpCode, NotFoundException, Param, Post, type RawBodyRequest, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { ApiNotFoundResponse, ApiOperation, ApiParam, ApiTags } from '../common/api-docs.js';
import { ALL_PLATFORMS, isPlatform } from '../platforms/platform.js';
import { ApiWebhookAnswers } from './webhook-api-docs.js';
import { type WebhookAnswer, answer } from './webhook-answer.js';
import { MalformedBody } from './webhook-body-parser.js';
import { type Delivery, WebhookService } from './webhook.service.js';

/**
 * `POST /webhook` (platform detected) and `POST /webhook/platform-a|b|c|d`. Public to the token
 * guard: each platform's own secret authenticates its deliveries, over the raw request bytes.
 */
@ApiTags('webhooks')
@Public()
@Controller('webhook')
export class WebhookController {
  constructor(private readonly webhooks: WebhookService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Receive a delivery', description: 'The platform is detected from the delivery\'s headers.' })
  @ApiWebhookAnswers()
  async detect(@Req() req: RawBodyRequest<FastifyRequest>, @Res() reply: FastifyReply): Promise<void> {
    await this.handle(null, req, reply);
  }

  @Post(':platform')
  @HttpCode(200)
  @ApiOperation({ summary: 'Receive a delivery from one platform' })
  @ApiParam({ name: 'platform', enum: ALL_PLATFORMS, description: 'platform-a GitHub, platform-b GitLab, platform-c Azure DevOps, platform-d Jira' })
  @ApiWebhookAnswers()
  @ApiNotFoundResponse({ description: 'not one of the platforms' })
  async platform(@Param('platform') platform: string, @Req() req: RawBodyRequest<FastifyRequest>, @Res() reply: FastifyReply): Promise<void> {
    if (!isPlatform(platform)) throw new NotFoundException(`no webhook route for ${platform}; use ${ALL_PLATFORMS.join(', ')}`);
    await this.handle(platform, req, reply);
  }

  private async handle(platform: Delivery['platform'], req: RawBodyRequest<FastifyRequest>, reply: FastifyReply): Promise<void> {
    const result = await this.answer(platform, req);
    await reply.code(result.status).type('text/plain; charset=utf-8').send(result.body);
  }

  private async answer(platform: Delivery['platform'], req: RawBodyRequest<FastifyRequest>): Promise<WebhookAnswer> {
    // Only the JSON and form parsers keep the raw bytes (server.ts, `rawBody: true`); any other
    // parsed body (text/plain) would be verified over no bytes at all, so it is refused instead.
    if (req.rawBody === undefined && !isEmptyBody(req.body)) {
      return answer.unsupportedMediaType(`send ${JSON_TYPE} or ${FORM_TYPE}; signatures are checked over the raw body, which is kept only for those`);
    }
    return this.webhooks.receive({ platform, headers: req.headers, rawBody: req.rawBody ?? Buffer.alloc(0), body: formPayload(req) });
  }
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

function isEmptyBody(body: unknown): boolean {
  return body === undefined || body === null || body === '';
}

/** `Application/X-WWW-Form-Urlencoded; charset=utf-8` → `application/x-www-form-urlencoded` (RFC 9110: case-insensitive). */
function mediaType(req: FastifyRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * GitHub can deliver `application/x-www-form-urlencoded` with the JSON in a `payload` field. A
 * form without one is a MalformedBody: refused with 400 only once its signature held.
 */
function formPayload(req: FastifyRequest): unknown {
  const body = req.body as Record<string, unknown> | undefined;
  if (mediaType(req) !== FORM_TYPE) return body;
  if (typeof body?.payload !== 'string') return new MalformedBody('a form-encoded delivery needs a payload field');
  try {
    return JSON.parse(body.payload);
  } catch (error) {
    return new MalformedBody(`the payload field is not valid JSON: ${(error as Error).message}`);
  }
}
