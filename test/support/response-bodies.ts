/** The spec's response bodies as tests read them: the server's own types, so they cannot drift apart. */
export type { HealthResponse as HealthBody } from '../../src/health/health-responses.js';
export type { FindingsResponse as FindingsBody } from '../../src/findings/findings.service.js';
export type { Finding as FindingBody } from '../../src/findings/finding.js';
