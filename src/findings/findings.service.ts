import { Injectable } from '@nestjs/common';
import type { Finding } from './finding.js';

export interface FindingsResponse {
  degraded: boolean;
  blocking: number;
  advisory: number;
  findings: Finding[];
}

/**
 * The findings registry. Each source (a probe, the configuration load, the authority probe…)
 * owns its slot and replaces it whole, so a finding clears itself when its cause goes away.
 */
@Injectable()
export class FindingsService {
  private readonly bySource = new Map<string, Finding[]>();

  set(source: string, findings: Finding[]): void {
    if (findings.length === 0) this.bySource.delete(source);
    else this.bySource.set(source, findings);
  }

  clear(source: string): void {
    this.bySource.delete(source);
  }

  all(): Finding[] {
    return [...this.bySource.values()].flat();
  }

  response(): FindingsResponse {
    return summarize(this.all());
  }
}

export function summarize(findings: Finding[]): FindingsResponse {
  const blocking = findings.filter((f) => f.severity === 'blocking').length;
  return { degraded: blocking > 0, blocking, advisory: findings.length - blocking, findings };
}
