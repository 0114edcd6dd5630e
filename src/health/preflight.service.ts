import { Injectable } from '@nestjs/common';
import { type PreflightCheck, type PreflightReport, reportOf } from './preflight.js';

/** The latest result of each preflight check; `pending` until the startup run finished. */
@Injectable()
export class PreflightService {
  private readonly checks = new Map<string, PreflightCheck>();
  private completedAt: Date | null = null;

  record(check: PreflightCheck): void {
    this.checks.set(check.name, check);
  }

  complete(): void {
    this.completedAt = new Date();
  }

  get isComplete(): boolean {
    return this.completedAt !== null;
  }

  list(): PreflightCheck[] {
    return [...this.checks.values()];
  }

  report(): PreflightReport {
    return reportOf(this.completedAt ? this.list() : null, this.completedAt);
  }
}
