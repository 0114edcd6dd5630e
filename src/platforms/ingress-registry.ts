import type { PlatformIngress } from './platform-ingress.js';
import { platformOf } from './platform-registry.js';

/** The webhook ingress of a platform the receiver serves, null for another name. */
export function ingressOf(platform: string): PlatformIngress | null {
  return platformOf(platform)?.ingress ?? null;
}
