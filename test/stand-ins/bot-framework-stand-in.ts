import type { IncomingHttpHeaders } from 'node:http';
import { json, notFound, StandInServer, type RecordedRequest, type StandInResponse } from './stand-in-server.js';
import { SigningKey } from './signing-key.js';

/**
 * Plays the Microsoft side of a Teams bot on one local listener, on the real wire formats:
 *
 * - the Bot Framework channel's OpenID metadata (`/v1/.well-known/openidconfiguration`) and keys
 *   (`/v1/.well-known/keys`, each key with its `endorsements`), and `mintActivityToken()` signing the
 *   JWT the channel sends with every activity (`iss` https://api.botframework.com, `aud` the app
 *   id, `serviceurl`, `nbf`/`exp`, header `kid` + `x5t`);
 * - Microsoft Entra ID's token endpoint (`POST /{tenant}/oauth2/v2.0/token`, client-credentials
 *   grant): checks the app id and password and the scope, answers a signed JWT access token
 *   (`aud` https://api.botframework.com, `appid`, `tid`) as Entra does;
 * - the Bot Connector API at `serviceUrl` (`…/amer/`, like `https://smba.trafficmanager.net/amer/`):
 *   `POST /v3/conversations/{id}/activities` (201 `{id}`), `POST …/activities/{replyToId}`,
 *   `PUT …/activities/{id}` (200 `{id}`), `DELETE …/activities/{id}`, and
 *   `GET /v3/conversations/{id}/members/{userId}`; every call needs a bearer token the token
 *   endpoint issued (401 `{message: "Authorization has been denied for this request."}` otherwise).
 *   Activities sent are kept in `activities`, in order, with their later edits.
 *
 * Activity JSON for inbound requests: `bot-framework-activities.ts`.
 */

export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
export const BOT_CONNECTOR_SCOPE = 'https://api.botframework.com/.default';
const GRAPH_SCOPE = 'https://graph.microsoft.com/.default';
const SERVICE_PATH = 'amer';

export interface BotFrameworkStandInOptions {
  appId: string;
  appPassword: string;
  /** The tenant the issued tokens name (`tid`). Default a fixed GUID. */
  tenantId?: string;
  /** The issuer the metadata publishes and tokens carry. Default https://api.botframework.com (a sovereign cloud has its own). */
  issuer?: string;
  /** The channels the signing key is endorsed for. Default `['msteams']`. */
  endorsements?: string[];
}

export interface MintActivityTokenOptions {
  /** Default `serviceUrl`; null → no `serviceurl` claim. */
  serviceUrl?: string | null;
  /** Default the app id. */
  audience?: string;
  /** Default the stand-in's issuer. */
  issuer?: string;
  /** Seconds from now. Default 3600; negative → already expired. */
  expiresIn?: number;
  /** Seconds from now for `nbf`. Default -300 (as the channel back-dates it). */
  notBefore?: number;
  /** Sign with a key the metadata does not publish. */
  foreignKey?: boolean;
}

/** An activity the bot sent to the Connector API (with later edits applied). */
export interface SentActivity {
  id: string;
  conversationId: string;
  /** The activity JSON as last sent (POST, or the PUT that replaced it). */
  activity: Record<string, unknown>;
  /** Every version, in order: the POST first, then each PUT. */
  versions: Record<string, unknown>[];
  replyToId: string | null;
  deleted: boolean;
}

export interface TeamsMember {
  id: string;
  name: string;
  aadObjectId?: string;
  email?: string;
  userPrincipalName?: string;
}

export class BotFrameworkStandIn extends StandInServer {
  readonly activities: SentActivity[] = [];
  /** Client-credentials requests answered with a token. */
  tokensIssued = 0;
  readonly tenantId: string;
  private channelKey = SigningKey.create('bf-channel-key-1');
  private keyGeneration = 1;
  private readonly entraKey = SigningKey.create('entra-key-1');
  private readonly members = new Map<string, TeamsMember>();
  private nextActivity = 1_700_000_000_000;

  constructor(private readonly options: BotFrameworkStandInOptions) {
    super();
    this.tenantId = options.tenantId ?? '72f988bf-86f1-41af-91ab-2d7cd011db47';
  }

  get issuer(): string {
    return this.options.issuer ?? BOT_FRAMEWORK_ISSUER;
  }
  get openIdMetadataUrl(): string {
    return `${this.url}/v1/.well-known/openidconfiguration`;
  }
  get jwksUrl(): string {
    return `${this.url}/v1/.well-known/keys`;
  }
  /** Entra's token endpoint shape, with `{tenant}` for the tenant (as `token_url` is configured). */
  get tokenUrl(): string {
    return `${this.url}/{tenant}/oauth2/v2.0/token`;
  }
  /** The Connector API base an activity names as its `serviceUrl` (trailing slash, as Teams sends it). */
  get serviceUrl(): string {
    return `${this.url}/${SERVICE_PATH}/`;
  }

  /** A member `GET …/members/{id}` answers (otherwise 404 as the real API does for strangers). */
  addMember(member: TeamsMember): void {
    this.members.set(member.id, member);
  }

  /** The JWT the channel puts in `Authorization: Bearer` of an activity it delivers. */
  mintActivityToken(options: MintActivityTokenOptions = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const serviceUrl = options.serviceUrl === undefined ? this.serviceUrl : options.serviceUrl;
    const payload: Record<string, unknown> = {
      ...(serviceUrl === null ? {} : { serviceurl: serviceUrl }),
      nbf: now + (options.notBefore ?? -300),
      exp: now + (options.expiresIn ?? 3600),
      iss: options.issuer ?? this.issuer,
      aud: options.audience ?? this.options.appId,
    };
    const key = options.foreignKey ? SigningKey.create(this.channelKey.kid) : this.channelKey;
    return key.sign(payload, { x5t: true });
  }

  /** The channel starts signing with a new key and publishes only that one (a rotation). */
  rotateSigningKey(): string {
    this.channelKey = SigningKey.create(`bf-channel-key-${++this.keyGeneration}`);
    return this.channelKey.kid;
  }

  /** Activities sent to one conversation (creation order). */
  sentTo(conversationId: string): SentActivity[] {
    return this.activities.filter((a) => a.conversationId === conversationId);
  }

  protected authorized(): boolean {
    return true; // per route: discovery and the token endpoint are public, the Connector API is not
  }

  protected unauthorizedBody(): unknown {
    return { message: 'Authorization has been denied for this request.' };
  }

  protected route(req: RecordedRequest, segments: string[]): StandInResponse {
    const [first, second, third] = segments;
    if (req.method === 'GET' && first === 'v1' && second === '.well-known') {
      if (third === 'openidconfiguration') return json(200, this.metadata());
      if (third === 'keys') return json(200, { keys: [this.channelKey.jwk({ endorsements: this.options.endorsements ?? ['msteams'] })] });
    }
    if (req.method === 'POST' && segments.length === 4 && second === 'oauth2' && third === 'v2.0' && segments[3] === 'token') {
      return this.issueToken(first!, req.body);
    }
    if (first === SERVICE_PATH && second === 'v3' && third === 'conversations' && segments.length >= 5) {
      if (!this.bearerValid(req.headers)) return json(401, this.unauthorizedBody());
      return this.connector(req, segments.slice(3));
    }
    return notFound({ error: { code: 'NotFound', message: `no route for ${req.method} ${req.path}` } });
  }

  private metadata(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      authorization_endpoint: 'https://invalid.botframework.com',
      jwks_uri: this.jwksUrl,
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
    };
  }

  /** Entra ID's client-credentials grant (form body), with Entra's error shapes. */
  private issueToken(tenant: string, body: unknown): StandInResponse {
    const form = new URLSearchParams(typeof body === 'string' ? body : '');
    const fail = (status: number, error: string, description: string): StandInResponse =>
      json(status, { error, error_description: description, error_codes: [], timestamp: new Date().toISOString() });
    if (form.get('grant_type') !== 'client_credentials') return fail(400, 'unsupported_grant_type', 'AADSTS70003: The app requested an unsupported grant type.');
    if (form.get('client_id') !== this.options.appId) return fail(400, 'unauthorized_client', `AADSTS700016: Application with identifier '${form.get('client_id') ?? ''}' was not found in the directory '${tenant}'.`);
    if (form.get('client_secret') !== this.options.appPassword) return fail(401, 'invalid_client', 'AADSTS7000215: Invalid client secret provided.');
    const scope = form.get('scope');
    if (scope !== BOT_CONNECTOR_SCOPE && scope !== GRAPH_SCOPE) return fail(400, 'invalid_scope', `AADSTS1002012: The provided value for scope ${scope ?? ''} is not valid.`);
    const now = Math.floor(Date.now() / 1000);
    const token = this.entraKey.sign({
      aud: scope.replace('/.default', ''),
      iss: `https://sts.windows.net/${this.tenantId}/`,
      iat: now,
      nbf: now,
      exp: now + 3600,
      appid: this.options.appId,
      appidacr: '1',
      idtyp: 'app',
      tid: this.tenantId,
      ver: '1.0',
    });
    this.tokensIssued++;
    return json(200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
  }

  private bearerValid(headers: IncomingHttpHeaders): boolean {
    const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
    if (!match?.[1]) return false;
    return this.entraKey.verify(match[1], { audience: 'https://api.botframework.com' }) !== null;
  }

  /** `rest` = [conversationId, 'activities' | 'members', id?]. */
  private connector(req: RecordedRequest, rest: string[]): StandInResponse {
    const [conversationId, collection, id] = rest;
    if (!conversationId) return notFound();
    if (collection === 'members' && id && req.method === 'GET') {
      const member = this.members.get(id);
      return member ? json(200, { ...member, tenantId: this.tenantId, userRole: 'user' }) : json(404, { error: { code: 'MemberNotFoundInConversation', message: 'Member not found' } });
    }
    if (collection !== 'activities') return notFound();
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
    if (req.method === 'POST') {
      if (typeof body['type'] !== 'string') return json(400, { error: { code: 'BadArgument', message: 'Activity type is required' } });
      const newId = String(this.nextActivity++);
      const replyToId = id ?? (typeof body['replyToId'] === 'string' ? body['replyToId'] : null);
      this.activities.push({ id: newId, conversationId, activity: body, versions: [body], replyToId, deleted: false });
      return json(201, { id: newId });
    }
    const existing = this.activities.find((a) => a.conversationId === conversationId && a.id === id && !a.deleted);
    if (!existing) return json(404, { error: { code: 'ActivityNotFoundInConversation', message: 'Unknown activity' } });
    if (req.method === 'PUT') {
      existing.activity = body;
      existing.versions.push(body);
      return json(200, { id: existing.id });
    }
    if (req.method === 'DELETE') {
      existing.deleted = true;
      return json(200, {});
    }
    return json(405, { error: { code: 'MethodNotAllowed', message: req.method } });
  }
}
