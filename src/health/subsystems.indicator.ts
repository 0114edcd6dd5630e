import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { SubsystemsService } from '../store/subsystems.service.js';
import type { BackgroundSubsystem } from '../store/subsystem.js';

/** Terminus indicators over the subsystem registry: one per background subsystem. */
@Injectable()
export class SubsystemsIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly subsystems: SubsystemsService,
  ) {}

  /** `up` only when the subsystem is up (readiness: a disabled one is not ready either). */
  ready(name: BackgroundSubsystem): HealthIndicatorResult {
    const s = this.subsystems.get(name);
    const session = this.indicators.check(name);
    return s.state === 'up' ? session.up({ state: s.state }) : session.down({ state: s.state, reason: s.reason });
  }

  all(): (() => HealthIndicatorResult)[] {
    return this.subsystems.list().map((s) => () => this.ready(s.name));
  }
}
