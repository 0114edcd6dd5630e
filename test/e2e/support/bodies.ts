import type { FindingBody, FindingsBody, HealthBody } from '../../support/response-bodies.js';

export type { FindingBody, FindingsBody, HealthBody };

export function subsystemState(body: HealthBody, name: string): string | undefined {
  return body.subsystems.find((s) => s.name === name)?.state;
}
