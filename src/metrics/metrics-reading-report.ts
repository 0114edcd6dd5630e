import type { Logger } from '@nestjs/common';
import type { ReadingReport } from './guarded-reading.js';
import type { MetricsService } from './metrics.service.js';

/**
 * How a scrape-time collector reports its readings: each failure is counted
 * (`metrics_collection_failures_total`, in the scrape during which it happened), a failure
 * streak is logged once when it starts and once when it ends, so a dependency that is down
 * does not write a line per scrape.
 */
export function readingReport(collector: string, metrics: MetricsService, logger: Logger): ReadingReport {
  return {
    started(reading) {
      metrics.readingStarted(reading);
    },
    failed(error, firstOfStreak) {
      metrics.collectionFailed(collector);
      if (firstOfStreak) logger.warn(`metrics: ${collector} not collected (${error.message}); left out of scrapes until it answers`);
    },
    recovered() {
      logger.log(`metrics: ${collector} collected again`);
    },
  };
}
