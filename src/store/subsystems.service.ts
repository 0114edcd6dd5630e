import { Injectable, Logger } from '@nestjs/common';
import { BackgroundSubsystem, type SubsystemState, type SubsystemStatus } from './subsystem.js';

/**
 * State of every background subsystem, as /health reports it. Whoever runs a subsystem sets its
 * state; a change is logged once, a repeated report of the same state is silent.
 */
@Injectable()
export class SubsystemsService {
  private readonly logger = new Logger('Subsystems');
  private readonly states = new Map<BackgroundSubsystem, SubsystemStatus>();

  constructor() {
    const now = new Date().toISOString();
    for (const name of Object.values(BackgroundSubsystem)) {
      this.states.set(name, { name, state: 'degraded', reason: 'starting', last_changed_utc: now });
    }
  }

  set(name: BackgroundSubsystem, state: SubsystemState, reason: string): void {
    const current = this.states.get(name);
    if (current && current.state === state && current.reason === reason) return;
    this.states.set(name, { name, state, reason, last_changed_utc: new Date().toISOString() });
    if (current?.state !== state) {
      const log = state === 'up' || state === 'disabled' ? 'log' : 'warn';
      this.logger[log](`${name}: ${current?.state ?? 'none'} → ${state} (${reason})`);
    }
  }

  get(name: BackgroundSubsystem): SubsystemStatus {
    return this.states.get(name) as SubsystemStatus;
  }

  list(): SubsystemStatus[] {
    return [...this.states.values()];
  }

  /** Spec: degraded while any subsystem is down or degraded; disabled does not count. */
  overall(): 'ok' | 'degraded' {
    return this.list().some((s) => s.state === 'down' || s.state === 'degraded') ? 'degraded' : 'ok';
  }
}
