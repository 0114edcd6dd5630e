import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TicketLifecycleService } from '../tickets/ticket-lifecycle.service.js';
import { MetricsService } from './metrics.service.js';

/** Counts each committed lifecycle transition (`ticket_transitions_total{from, to}`) through the lifecycle's own listener hook. */
@Injectable()
export class TransitionMetricsListener implements OnModuleInit, OnModuleDestroy {
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly metrics: MetricsService,
    private readonly lifecycle: TicketLifecycleService,
  ) {}

  onModuleInit(): void {
    if (!this.metrics.enabled) return;
    this.unsubscribe = this.lifecycle.onTransition((event) => this.metrics.transitioned(event.from, event.to));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }
}
