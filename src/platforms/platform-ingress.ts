import type { IncomingHttpHeaders } from 'node:http';
import type { ServiceConfig } from '../config/service-config.js';
import type { InboundEvent } from './inbound-event.js';
import type { Platform } from './platform.js';
import type { SignatureVerdict } from './webhook-signature.js';

/**
 * What the webhook receiver needs from a platform. A platform is added by adding a folder with
 * one of these; the receiver never learns platform names.
 */
export interface PlatformIngress {
  readonly platform: Platform;
  eventName(headers: IncomingHttpHeaders, body: unknown): string | null;
  deliveryId(headers: IncomingHttpHeaders, body: unknown): string | null;
  parse(eventName: string | null, body: unknown, headers: IncomingHttpHeaders): InboundEvent;
  /**
   * The secret a delivery must be signed with, null when none is configured. Decided before the
   * body is parsed (platform D keeps its secret per project and reads the project from the raw
   * body itself).
   */
  secretFor(config: ServiceConfig, body: unknown): string | null;
  verify(headers: IncomingHttpHeaders, rawBody: Buffer, secret: string | null): SignatureVerdict;
  /**
   * How the generic `POST /webhook` recognises this platform's deliveries: by an event header
   * (two platforms' headers on one delivery is ambiguous), or by the body's envelope, asked only
   * when no header matched. Absent: served only on `/webhook/<id>`.
   */
  readonly detection?: { by: 'event-header' | 'envelope'; matches(headers: IncomingHttpHeaders, body: unknown): boolean };
}
