import type { IncomingHttpHeaders } from 'node:http';
import type { Platform } from './platform.js';
import { registeredPlatforms } from './platform-registry.js';

/**
 * Platform of a delivery to the generic `POST /webhook` (contract, "Platforms"), by each
 * platform's `ingress.detection`: A by `X-PlatformA-Event`/`X-GitHub-Event`, B by
 * `X-PlatformB-Event`/`X-Gitlab-Event`, C by the service-hook envelope (string `publisherId` and
 * `eventType` in the body). D is never detected: it has no reliable event header and is served
 * only on `/webhook/platform-d`. A delivery that carries two platforms' event headers is
 * ambiguous and yields null, as does anything unrecognised; the caller answers without running
 * a handler.
 */
export function detectPlatform(headers: IncomingHttpHeaders, body: unknown): Platform | null {
  const ingresses = registeredPlatforms().map((d) => d.ingress);
  const byHeader = ingresses.filter((i) => i.detection?.by === 'event-header' && i.detection.matches(headers, body));
  if (byHeader.length > 1) return null;
  if (byHeader.length === 1) return byHeader[0]!.platform;
  return ingresses.find((i) => i.detection?.by === 'envelope' && i.detection.matches(headers, body))?.platform ?? null;
}
