import type { IdentityRefusal } from '../../../src/auth/identity-refusal.js';
import type { IdentityResponse } from '../../../src/auth/principal.js';
import type { UnauthorizedBody } from '../../../src/auth/unauthorized.js';
import type { FindingsResponse } from '../../../src/findings/findings.service.js';

/** Response bodies as the tests read them: the server's own types, so they cannot drift apart. */
export type IdentityBody = IdentityResponse & { authenticated: true };
export type IdentityRefusalBody = IdentityRefusal;
export type UnauthorizedResponse = UnauthorizedBody;
export type FindingsBody = FindingsResponse;
