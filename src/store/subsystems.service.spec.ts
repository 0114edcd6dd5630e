import { Logger } from '@nestjs/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { BackgroundSubsystem, type SubsystemState } from './subsystem.js';
import { SubsystemsService } from './subsystems.service.js';

const ALL = Object.values(BackgroundSubsystem);

beforeAll(() => {
  Logger.overrideLogger(false); // state changes are logged; not wanted in the test output
});

function withStates(states: SubsystemState[]): SubsystemsService {
  const service = new SubsystemsService();
  ALL.forEach((name, i) => service.set(name, states[i % states.length] as SubsystemState, 'test'));
  return service;
}

describe('SubsystemsService', () => {
  it('lists the five background subsystems of the spec, each starting degraded', () => {
    const service = new SubsystemsService();
    expect(service.list().map((s) => s.name).sort()).toEqual(['capacity_queue', 'housekeeping', 'poller', 'queue_consumer', 'redis']);
    for (const s of service.list()) {
      expect(s).toEqual({ name: s.name, state: 'degraded', reason: 'starting', last_changed_utc: expect.any(String) });
      expect(new Date(s.last_changed_utc).toISOString()).toBe(s.last_changed_utc);
    }
    expect(service.overall()).toBe('degraded');
  });

  describe('overall()', () => {
    it('all up → ok', () => {
      expect(withStates(['up']).overall()).toBe('ok');
    });

    it('all disabled → ok (disabled does not count)', () => {
      expect(withStates(['disabled']).overall()).toBe('ok');
    });

    it('up and disabled mixed → ok', () => {
      expect(withStates(['up', 'disabled']).overall()).toBe('ok');
    });

    it.each(['degraded', 'down'] as const)('one %s subsystem → degraded', (state) => {
      const service = withStates(['up']);
      service.set('poller', state, 'broken');
      expect(service.overall()).toBe('degraded');
      const disabled = withStates(['disabled']);
      disabled.set('redis', state, 'broken');
      expect(disabled.overall()).toBe('degraded');
    });
  });

  it('set() changes last_changed_utc only when state or reason changes', async () => {
    const service = new SubsystemsService();
    service.set('redis', 'up', 'connected');
    const first = service.get('redis');
    await new Promise((done) => setTimeout(done, 5));
    service.set('redis', 'up', 'connected');
    expect(service.get('redis')).toBe(first);
    service.set('redis', 'degraded', 'lost');
    expect(service.get('redis')).toMatchObject({ state: 'degraded', reason: 'lost' });
    expect(service.get('redis').last_changed_utc > first.last_changed_utc).toBe(true);
  });
});
