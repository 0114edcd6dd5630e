import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { json, StandInServer, type RecordedRequest, type StandInResponse } from './stand-in-server.js';
import { SigningKey } from './signing-key.js';

/**
 * Plays Google's side of a Google Chat app on one local listener, on the real wire formats:
 *
 * - the Chat service account's published keys (`/service_accounts/v1/jwk/chat@system.gserviceaccount.com`,
 *   a JWKS as Google serves it) and `mintChatToken()` signing the JWT Chat sends with every event
 *   when the app's authentication audience is the project number (`iss`
 *   chat@system.gserviceaccount.com, `aud` the project number, `iat`/`exp`);
 *   `mintEndpointIdToken()` signs the other kind (a Google OIDC ID token for the "HTTP endpoint
 *   URL" audience: `iss` https://accounts.google.com, `aud` the URL, `email`, `email_verified`);
 * - a service account of the app (`serviceAccount`: a key file with `token_uri` pointing here) and
 *   Google's OAuth 2.0 token endpoint (`POST /token`, grant
 *   `urn:ietf:params:oauth:grant-type:jwt-bearer`): the assertion must be signed by that account's
 *   key, `iss` its email, `aud` the token endpoint, one hour at most; answers `{access_token,
 *   expires_in, token_type}` or Google's `{error, error_description}`;
 * - the Chat REST API at `apiUrl` (`rootUrl` of the googleapis client): `POST
 *   /v1/spaces/{space}/messages` (with `messageReplyOption`, a `thread.name` to reply in), `GET`,
 *   `PUT`/`PATCH /v1/spaces/{space}/messages/{message}?updateMask=…`, `DELETE`; every call needs a
 *   token the endpoint issued (401 with Google's `UNAUTHENTICATED` error otherwise). Messages are
 *   kept in `messages` (creation order) with every version in `versions`.
 *
 * Event JSON for inbound requests: `google-chat-events.ts`.
 */

export const GOOGLE_CHAT_ISSUER = 'chat@system.gserviceaccount.com';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

export interface GoogleChatStandInOptions {
  /** The Chat app's Cloud project number (the audience of `mintChatToken`). */
  projectNumber: string;
  /** The app's user resource name in Chat. Default `users/app-1234567890`. */
  appUserName?: string;
}

export interface MintChatTokenOptions {
  /** Default the project number. */
  audience?: string;
  /** Default chat@system.gserviceaccount.com. */
  issuer?: string;
  /** Seconds from now. Default 3600; negative → already expired. */
  expiresIn?: number;
  /** Sign with a key the service account does not publish. */
  foreignKey?: boolean;
}

export interface ChatApiMessage {
  name: string;
  /** The resource as the API last returned it. */
  message: Record<string, unknown>;
  /** Every version: the create, then each update. */
  versions: Record<string, unknown>[];
  /** `messageReplyOption` of the create, if any. */
  replyOption: string | null;
  deleted: boolean;
}

export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  token_uri: string;
}

export class GoogleChatStandIn extends StandInServer {
  readonly messages: ChatApiMessage[] = [];
  tokensIssued = 0;
  private chatKey = SigningKey.create('5d1e3c9b7a2f4e6d8c0b1a3f5e7d9c2b4a6f8e01');
  private readonly accountKey = SigningKey.create('8c2f7e1d3b5a4c6e9f0d2b4a6c8e0f1a3b5d7c9e');
  private readonly accessTokens = new Set<string>();
  private nextId = 1;

  constructor(private readonly options: GoogleChatStandInOptions) {
    super();
  }

  get projectNumber(): string {
    return this.options.projectNumber;
  }
  get appUserName(): string {
    return this.options.appUserName ?? 'users/app-1234567890';
  }
  get jwksUrl(): string {
    return `${this.url}/service_accounts/v1/jwk/${GOOGLE_CHAT_ISSUER}`;
  }
  get tokenUrl(): string {
    return `${this.url}/token`;
  }
  /** The googleapis `rootUrl` (the adapter's `apiUrl`). */
  get apiUrl(): string {
    return `${this.url}/`;
  }

  /** The app's service account key file, as the Cloud console hands it out (`token_uri` → here). */
  get serviceAccount(): ServiceAccountKeyFile {
    return {
      type: 'service_account',
      project_id: 'pipeline-chat-app',
      private_key_id: this.accountKey.kid,
      private_key: this.accountKey.privatePem(),
      client_email: 'pipeline-chat@pipeline-chat-app.iam.gserviceaccount.com',
      client_id: '104857362918273645019',
      token_uri: this.tokenUrl,
    };
  }

  /** The bearer token of an event when the app's authentication audience is the project number. */
  mintChatToken(options: MintChatTokenOptions = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const key = options.foreignKey ? SigningKey.create(this.chatKey.kid) : this.chatKey;
    return key.sign({
      aud: options.audience ?? this.options.projectNumber,
      iss: options.issuer ?? GOOGLE_CHAT_ISSUER,
      iat: now,
      exp: now + (options.expiresIn ?? 3600),
    });
  }

  /** The bearer token of an event when the authentication audience is the endpoint URL (a Google ID token). */
  mintEndpointIdToken(endpointUrl: string, email = GOOGLE_CHAT_ISSUER): string {
    const now = Math.floor(Date.now() / 1000);
    return this.chatKey.sign({
      aud: endpointUrl,
      azp: '113480196257628374261',
      email,
      email_verified: true,
      exp: now + 3600,
      iat: now,
      iss: 'https://accounts.google.com',
      sub: '113480196257628374261',
    });
  }

  /** The Chat account starts signing with a new key and publishes only that one (a rotation). */
  rotateSigningKey(): string {
    this.chatKey = SigningKey.create(randomBytes(20).toString('hex'));
    return this.chatKey.kid;
  }

  /** Every access token issued so far stops working (the API answers 401 to it). */
  revokeAccessTokens(): void {
    this.accessTokens.clear();
  }

  /** Messages in one space (creation order, deleted ones included). */
  messagesIn(space: string): ChatApiMessage[] {
    return this.messages.filter((m) => m.name.startsWith(`${space}/messages/`));
  }

  protected authorized(): boolean {
    return true; // per route: keys and the token endpoint are public, the Chat API is not
  }

  protected unauthorizedBody(): unknown {
    return {
      error: {
        code: 401,
        message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        status: 'UNAUTHENTICATED',
      },
    };
  }

  protected route(req: RecordedRequest, segments: string[]): StandInResponse {
    if (req.method === 'GET' && segments.join('/') === `service_accounts/v1/jwk/${GOOGLE_CHAT_ISSUER}`) {
      return json(200, { keys: [this.chatKey.jwk()] });
    }
    if (req.method === 'POST' && segments.length === 1 && segments[0] === 'token') return this.issueToken(req.body);
    if (segments[0] === 'v1' && segments[1] === 'spaces' && segments[3] === 'messages') {
      if (!this.bearerValid(req.headers)) return json(401, this.unauthorizedBody());
      return this.messagesApi(req, `spaces/${segments[2]}`, segments[4]);
    }
    return googleError(404, 'NOT_FOUND', `Requested entity was not found: ${req.method} ${req.path}`);
  }

  private issueToken(body: unknown): StandInResponse {
    const form = new URLSearchParams(typeof body === 'string' ? body : '');
    const fail = (error: string, description: string): StandInResponse => json(400, { error, error_description: description });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return fail('unsupported_grant_type', 'Invalid grant_type: ' + (form.get('grant_type') ?? ''));
    const assertion = form.get('assertion') ?? '';
    const claims = this.accountKey.verify(assertion, { audience: [this.tokenUrl, GOOGLE_TOKEN_URL], issuer: this.serviceAccount.client_email });
    if (!claims) return fail('invalid_grant', 'Invalid JWT Signature.');
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number' || claims.exp - claims.iat > 3600) return fail('invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    if (typeof claims['scope'] !== 'string' || claims['scope'].trim() === '') return fail('invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const token = `ya29.c.${randomBytes(24).toString('base64url')}`;
    this.accessTokens.add(token);
    this.tokensIssued++;
    return json(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }

  private bearerValid(headers: IncomingHttpHeaders): boolean {
    const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
    return !!match?.[1] && this.accessTokens.has(match[1]);
  }

  private messagesApi(req: RecordedRequest, space: string, messageId: string | undefined): StandInResponse {
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
    if (req.method === 'POST' && messageId === undefined) return this.create(space, body, req.query);
    const name = `${space}/messages/${messageId ?? ''}`;
    const found = this.messages.find((m) => m.name === name && !m.deleted);
    if (!found) return googleError(404, 'NOT_FOUND', `Message not found: ${name}`);
    if (req.method === 'GET') return json(200, found.message);
    if (req.method === 'PUT' || req.method === 'PATCH') {
      const mask = (req.query.get('updateMask') ?? req.query.get('update_mask') ?? '').split(',').map((f) => f.trim()).filter(Boolean);
      if (mask.length === 0) return googleError(400, 'INVALID_ARGUMENT', 'updateMask is required');
      const updated: Record<string, unknown> = { ...found.message, lastUpdateTime: new Date().toISOString() };
      for (const field of mask) {
        if (field in body) updated[field] = body[field];
        else delete updated[field];
      }
      found.message = updated;
      found.versions.push(updated);
      return json(200, updated);
    }
    if (req.method === 'DELETE') {
      found.deleted = true;
      return json(200, {});
    }
    return googleError(405, 'INVALID_ARGUMENT', `method ${req.method} not allowed`);
  }

  private create(space: string, body: Record<string, unknown>, query: URLSearchParams): StandInResponse {
    if (typeof body['text'] !== 'string' && !Array.isArray(body['cardsV2'])) return googleError(400, 'INVALID_ARGUMENT', 'Message must contain text or cardsV2');
    const id = `${randomBytes(6).toString('hex')}.${randomBytes(6).toString('hex')}`;
    const name = `${space}/messages/${id}`;
    const replyOption = query.get('messageReplyOption');
    const requested = (body['thread'] as { name?: unknown } | undefined)?.name;
    const threadName = typeof requested === 'string' && requested.startsWith(`${space}/threads/`) && replyOption ? requested : `${space}/threads/${randomBytes(6).toString('hex')}`;
    const message: Record<string, unknown> = {
      name,
      sender: { name: this.appUserName, type: 'BOT', displayName: 'pipeline' },
      createTime: new Date(Date.now() + this.nextId++).toISOString(),
      ...(typeof body['text'] === 'string' ? { text: body['text'], formattedText: body['text'], argumentText: body['text'] } : {}),
      ...(Array.isArray(body['cardsV2']) ? { cardsV2: body['cardsV2'] } : {}),
      thread: { name: threadName },
      space: { name: space, type: 'ROOM', spaceType: 'SPACE' },
    };
    this.messages.push({ name, message, versions: [message], replyOption, deleted: false });
    return json(200, message);
  }
}

function googleError(code: number, status: string, message: string): StandInResponse {
  return json(code, { error: { code, message, status } });
}
