import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiProduces, ApiResponse } from '../common/api-docs.js';

const text = (example: string) => ({ content: { 'text/plain': { schema: { type: 'string' }, example } } });

/**
 * OpenAPI of a webhook route: the platform's own payload in, one plain-text line out (spec
 * "Response to a ticket trigger"). Authenticated by the platform's secret, not by a token.
 */
export const ApiWebhookAnswers = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    ApiConsumes('application/json', 'application/x-www-form-urlencoded'),
    ApiBody({ schema: { type: 'object' }, description: 'the platform\'s webhook payload, as it sends it; signatures are checked over the raw bytes' }),
    ApiProduces('text/plain'),
    ApiResponse({ status: 202, description: 'a run was claimed for the ticket', ...text('Accepted: BILL-12 in billing') }),
    ApiResponse({ status: 200, description: 'nothing to do: already claimed, rejected or filtered, with the reason', ...text('Filtered: label service:run not added') }),
    ApiResponse({ status: 400, description: 'a malformed payload (after its signature held)', ...text('Bad request: the payload field is not valid JSON') }),
    ApiResponse({ status: 401, description: 'the platform\'s signature or secret did not match', ...text('Unauthorized: signature mismatch') }),
    ApiResponse({ status: 415, description: 'a body that is neither JSON nor form-encoded', ...text('Unsupported Media Type: send application/json or application/x-www-form-urlencoded') }),
    ApiResponse({ status: 500, description: 'the claim failed', ...text('Claim failed: database unavailable') }),
    ApiResponse({ status: 503, description: 'the store is unavailable, or the same delivery is in progress: retry later', ...text('store_unavailable') }),
  );
