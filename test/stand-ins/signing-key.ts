import { createHash, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

/**
 * An RSA signing key a stand-in holds: it signs tokens (RS256) and publishes its public half as a
 * JWK. `foreign()` makes a key nobody publishes, for wrongly signed tokens.
 */
export class SigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;

  private constructor(readonly kid: string) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  static create(kid: string): SigningKey {
    return new SigningKey(kid);
  }

  /** The public JWK, with `extra` members (e.g. the Bot Framework's `endorsements`). */
  jwk(extra: Record<string, unknown> = {}): JsonWebKey & Record<string, unknown> {
    const { n, e, kty } = this.publicKey.export({ format: 'jwk' });
    // x5t stands in for the certificate thumbprint the real key sets carry (no certificate here).
    const x5t = createHash('sha1').update(n ?? '').digest('base64url');
    return { kty, use: 'sig', alg: 'RS256', kid: this.kid, x5t, n, e, ...extra };
  }

  /** PKCS#8 PEM of the private key (a service account key file carries this). */
  privatePem(): string {
    return this.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  }

  /** RS256 JWT; `header` adds to (or, with `kid: null`, removes) header fields. */
  sign(payload: Record<string, unknown>, header: { kid?: string | null; x5t?: boolean } = {}): string {
    const kid = header.kid === undefined ? this.kid : header.kid;
    const extraHeader: Record<string, unknown> = { typ: 'JWT' };
    if (header.x5t) extraHeader['x5t'] = this.jwk()['x5t'];
    return jwt.sign(payload, this.privateKey, {
      algorithm: 'RS256',
      ...(kid === null ? {} : { keyid: kid }),
      header: { alg: 'RS256', ...extraHeader } as jwt.JwtHeader,
    });
  }

  /** Verifies a JWT this key signed; null when it did not (or it is expired). */
  verify(token: string, options: jwt.VerifyOptions = {}): jwt.JwtPayload | null {
    try {
      const claims = jwt.verify(token, this.publicKey, { algorithms: ['RS256'], ...options });
      return typeof claims === 'string' ? null : claims;
    } catch {
      return null;
    }
  }
}
