import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Platform } from '../../platforms/platform.js';
import { traitsOf } from '../../platforms/platform-traits.registry.js';
import { LABEL_PROJECTION_OPTIONS, type LabelProjectionOptions } from './label-projection.options.js';
import { TokenBucket } from './token-bucket.js';

/**
 * One write budget per tracker API host (GitHub ≈ 80 content-creating requests a minute): every
 * label write, status change and comment takes a token first, and a 429 / secondary-limit answer
 * pauses the whole host for the wait it asked for. In memory, per process.
 */
@Injectable()
export class HostRateLimiter {
  private readonly logger = new Logger('LabelProjection');
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(@Inject(LABEL_PROJECTION_OPTIONS) private readonly options: LabelProjectionOptions) {}

  /** Waits for a write token for `host` (an API origin). */
  take(platform: Platform, host: string): Promise<void> {
    return this.bucket(platform, host).take();
  }

  /** The host told us to wait (Retry-After, rate-limit reset): hold every write to it. */
  backOff(platform: Platform, host: string, ms: number): void {
    this.logger.warn(`${platform} host ${host} asked to wait ${ms} ms: its writes are held`);
    this.bucket(platform, host).pauseFor(ms);
  }

  /** How long writes to `host` are still held by a wait it asked for (0: not held). */
  heldForMs(platform: Platform, host: string): number {
    return this.buckets.get(`${platform} ${host}`)?.pausedForMs ?? 0;
  }

  private bucket(platform: Platform, host: string): TokenBucket {
    const id = `${platform} ${host}`;
    let bucket = this.buckets.get(id);
    if (!bucket) {
      const limit = this.options.rateLimits[platform] ?? traitsOf(platform).writeRate;
      bucket = new TokenBucket(Math.max(1, limit.burst), limit.perMinute / 60_000);
      this.buckets.set(id, bucket);
    }
    return bucket;
  }
}
