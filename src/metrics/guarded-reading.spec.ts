import { describe, expect, it } from 'vitest';
import { GuardedReading, type ReadingReport } from './guarded-reading.js';

function recorder(): ReadingReport & { failures: [string, boolean][]; recoveries: number } {
  const seen = { failures: [] as [string, boolean][], recoveries: 0 };
  return Object.assign(seen, {
    failed(error: Error, first: boolean) {
      seen.failures.push([error.message, first]);
    },
    recovered() {
      seen.recoveries += 1;
    },
  });
}

describe('GuardedReading', () => {
  it('returns what the reading returns', async () => {
    const report = recorder();
    expect(await new GuardedReading('depth', report).read(async () => 7)).toBe(7);
    expect(report.failures).toEqual([]);
  });

  it('resolves null, never throws, when the reading rejects or throws synchronously', async () => {
    const report = recorder();
    const guarded = new GuardedReading('depth', report);
    expect(await guarded.read(() => Promise.reject(new Error('connection refused')))).toBeNull();
    expect(await guarded.read(() => {
      throw new Error('not connected');
    })).toBeNull();
    expect(report.failures).toEqual([['connection refused', true], ['not connected', false]]);
  });

  it('gives up on a reading that outlives its timeout', async () => {
    const report = recorder();
    const started = performance.now();
    const never = new Promise<number>(() => undefined);
    expect(await new GuardedReading('capacity', report, 50).read(() => never)).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(report.failures).toEqual([['capacity not read within 50 ms', true]]);
  });

  it('reports the end of a failure streak once, and a new streak as a first failure again', async () => {
    const report = recorder();
    const guarded = new GuardedReading('depth', report);
    await guarded.read(() => Promise.reject(new Error('down')));
    await guarded.read(async () => 1);
    await guarded.read(async () => 2);
    await guarded.read(() => Promise.reject(new Error('down again')));
    expect(report.recoveries).toBe(1);
    expect(report.failures).toEqual([['down', true], ['down again', true]]);
  });

  it('hands each reading to the report as it starts, settling only once its failure is reported', async () => {
    const report = recorder();
    const started: Promise<unknown>[] = [];
    report.started = (reading) => started.push(reading);
    const result = new GuardedReading('depth', report).read(() => Promise.reject(new Error('down')));
    expect(started).toHaveLength(1);
    expect(report.failures).toEqual([]);
    await started[0];
    expect(report.failures).toEqual([['down', true]]);
    expect(await result).toBeNull();
  });

  it('does not let a late rejection of a timed-out reading escape', async () => {
    const report = recorder();
    const late = new Promise<number>((_, reject) => setTimeout(() => reject(new Error('late')), 80));
    expect(await new GuardedReading('depth', report, 20).read(() => late)).toBeNull();
    await new Promise((done) => setTimeout(done, 120)); // an unhandled rejection would fail the run
    expect(report.failures).toHaveLength(1);
  });
});
