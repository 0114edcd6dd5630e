import { describe, expect, it } from 'vitest';
import { isUnloggedPath } from './logger.options.js';

describe('isUnloggedPath', () => {
  it('skips health probes and metrics scrapes, with or without a query', () => {
    for (const url of ['/health', '/health/ready', '/health?verbose=1', '/metrics', '/metrics?name[]=x']) {
      expect(isUnloggedPath(url), url).toBe(true);
    }
  });

  it('logs everything else, including paths that merely start with the same letters', () => {
    for (const url of ['/', '/webhook/platform-a', '/api/runs', '/metricsx', '/healthz', '/api/metrics']) {
      expect(isUnloggedPath(url), url).toBe(false);
    }
  });
});
