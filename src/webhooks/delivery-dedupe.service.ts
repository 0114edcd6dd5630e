import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { StoreConnectionService } from '../store/store-connection.service.js';
import type { WebhookAnswer } from './webhook-answer.js';

/** How long a delivery's answer is remembered (platforms redeliver within hours, at most days). */
const REMEMBER_SECONDS = 7 * 24 * 3600;
/** How long an in-flight delivery holds its id before a crash frees it. */
const IN_FLIGHT_SECONDS = 60;
const WAIT_FOR_FIRST_MS = 5000;
const IN_FLIGHT = 'in-flight';

export type Reservation = { first: true } | { first: false; answer: WebhookAnswer | null };

/**
 * A delivery's identity (contract "Redelivery"): its delivery id and its body bytes; the same id
 * with other bytes is another delivery. Both are sender-controlled and unbounded (a service-hook
 * envelope id is body text), so only hashes reach the store: each part hashed on its own, so no
 * split of the same bytes between id and body can collide.
 */
export function deliveryFingerprint(deliveryId: string, rawBody: Buffer): string {
  const id = createHash('sha256').update(deliveryId, 'utf8').digest();
  const body = createHash('sha256').update(rawBody).digest();
  return createHash('sha256').update(id).update(body).digest('hex');
}

/**
 * A redelivery (same delivery id, same bytes) gets the answer decided for its first delivery
 * without the work being done again (platforms redeliver on timeouts and by hand). Kept in the
 * store beside the claim locks, under `delivery:<platform>:<fingerprint>`.
 */
@Injectable()
export class DeliveryDedupeService {
  constructor(private readonly store: StoreConnectionService) {}

  /** Reserves the delivery; a repeat gets the remembered answer (null when the first is still running after 5 s). */
  async reserve(platform: string, fingerprint: string): Promise<Reservation> {
    const client = this.store.client;
    if (!client || !this.store.isConnected) return { first: true };
    const key = this.key(platform, fingerprint);
    if ((await client.set(key, IN_FLIGHT, 'EX', IN_FLIGHT_SECONDS, 'NX')) === 'OK') return { first: true };
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const value = await client.get(key);
      if (value === null) return this.reserve(platform, fingerprint);
      if (value !== IN_FLIGHT) return { first: false, answer: JSON.parse(value) as WebhookAnswer };
      if (Date.now() > deadline) return { first: false, answer: null };
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Remembers the answer a repeat gets; null forgets the delivery (the answer asks the platform
   * to retry, or a repeat should be judged again).
   */
  async settle(platform: string, fingerprint: string, answer: WebhookAnswer | null): Promise<void> {
    const client = this.store.client;
    if (!client || !this.store.isConnected) return;
    const key = this.key(platform, fingerprint);
    if (answer === null || answer.status >= 500) await client.del(key);
    else await client.set(key, JSON.stringify(answer), 'EX', REMEMBER_SECONDS);
  }

  private key(platform: string, fingerprint: string): string {
    return this.store.key('delivery', platform, fingerprint);
  }
}
