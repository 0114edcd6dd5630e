import type { Finding, TokenRefusal } from '../../api/types';

/** What each refusal reason means: the check that refused, and what to do about it. */
export const REFUSAL_CHECKS: Record<string, { check: string; explain: string }> = {
  missing: { check: 'presence', explain: 'No bearer token was presented. Sign in, or send the token in the Authorization header.' },
  malformed: { check: 'format', explain: 'The token is not a signed JWT the server can read (or it carries no subject).' },
  signature: { check: 'signature', explain: 'The token is not signed by a key the authority publishes: it comes from another authority or tenant, or was altered.' },
  expired: { check: 'expiry', explain: 'The token has expired (or is not valid yet). Signing in again gets a fresh one.' },
  audience: { check: 'audience', explain: 'The token was issued for another resource than this server. Ask for scopes of the API the server\'s audience names, or set SERVICE_AUTH_AUDIENCE to the API this token is for.' },
  issuer: { check: 'issuer', explain: 'The token\'s issuer is not the authority\'s. The issuer follows the authority and the token\'s version: correct SERVICE_AUTH_AUTHORITY together with the audience (one token shape for all of them).' },
  temporarily_unavailable: { check: 'authority reachable', explain: 'The server cannot reach the token authority to check the signature: not the token\'s fault. The findings page names the cause.' },
  not_configured: { check: 'configuration', explain: 'No token authority is configured: nothing authenticates.' },
};

export function refusalCheck(reason: string): { check: string; explain: string } {
  return REFUSAL_CHECKS[reason] ?? { check: reason, explain: 'The server refused the token.' };
}

export interface ComparisonRow {
  label: string;
  /** What the server expects (its settings, or what the authority publishes). */
  expected: string;
  /** What the presented token carried. */
  presented: string;
  /** The values differ (so this row may be why). */
  differs: boolean;
  /** This row is the check that refused the token. */
  refusing: boolean;
}

const NONE = '—';

/** The version a server's issuer implies: the `/v2.0` suffix of version 2, the legacy token service of version 1. */
export function versionOfIssuer(issuer: string | null): '1.0' | '2.0' | null {
  if (!issuer) return null;
  if (/\/v2\.0\/?$/.test(issuer)) return '2.0';
  if (/^https:\/\/sts\.windows\.net\//.test(issuer)) return '1.0';
  return null;
}

/**
 * The identity page's two columns: the expected authority, issuer and audience beside the
 * audience, issuer and token version the refused token carried (spec "Identity response").
 */
export function comparisonRows(refusal: TokenRefusal): ComparisonRow[] {
  const d = refusal.detail;
  if (!d) return [];
  const audiences = d.presentedAudience === null ? [] : Array.isArray(d.presentedAudience) ? d.presentedAudience : [d.presentedAudience];
  const audienceDiffers = d.expectedAudience !== null && audiences.length > 0 && !audiences.includes(d.expectedAudience);
  const issuerDiffers = d.expectedIssuer !== null && d.presentedIssuer !== null && d.presentedIssuer !== d.expectedIssuer;
  // The issuer follows the authority: before the authority was reached, its URL says the shape.
  const expectedVersion = versionOfIssuer(d.expectedIssuer ?? d.expectedAuthority);
  const versionDiffers = expectedVersion !== null && d.presentedVersion !== null && d.presentedVersion !== expectedVersion;
  return [
    { label: 'Authority', expected: d.expectedAuthority ?? 'not configured', presented: NONE, differs: false, refusing: refusal.reason === 'signature' || refusal.reason === 'temporarily_unavailable' },
    { label: 'Audience', expected: d.expectedAudience ?? 'not configured', presented: audiences.length > 0 ? audiences.join(', ') : NONE, differs: audienceDiffers, refusing: refusal.reason === 'audience' },
    { label: 'Issuer', expected: d.expectedIssuer ?? 'the authority was not reached', presented: d.presentedIssuer ?? NONE, differs: issuerDiffers, refusing: refusal.reason === 'issuer' },
    { label: 'Token version', expected: expectedVersion ?? 'not fixed by the issuer', presented: d.presentedVersion ?? NONE, differs: versionDiffers, refusing: false },
  ];
}

/** The refusal to explain: the identity call's own 401, else the identity's `refusal`, else the last one another call met. */
export function refusalToShow(fromError: TokenRefusal | null, fromIdentity: TokenRefusal | undefined, lastSeen: TokenRefusal | null): TokenRefusal | null {
  return fromError ?? fromIdentity ?? lastSeen ?? null;
}

/**
 * Spec "Authentication" item 8: the dashboard's scopes naming another resource than the server's
 * audience get tokens the server refuses on audience. The same rule and sentence as the server's
 * finding, computed here from the public settings so it shows while every token is refused.
 */
export function scopeAudienceFindings(scopes: string, audience: string | null): Finding[] {
  if (!audience) return [];
  const resources = new Set(scopes.split(/\s+/).filter((s) => s.includes('/')).map((s) => s.slice(0, s.lastIndexOf('/'))));
  return [...resources]
    .filter((resource) => resource !== audience && resource !== `api://${audience}`)
    .map((resource) => ({
      subsystem: 'auth', severity: 'advisory' as const, project: null, trigger: null, field: 'SERVICE_AUTH_SCOPES',
      reason: `the dashboard asks for scopes of resource ${resource}, but the server's audience is ${audience}: its tokens will be refused on audience`,
    }));
}

/** Findings from the server and computed here, each sentence once. */
export function mergeFindings(server: readonly Finding[], local: readonly Finding[]): Finding[] {
  const seen = new Set(server.map((f) => f.reason));
  return [...server, ...local.filter((f) => !seen.has(f.reason))];
}
