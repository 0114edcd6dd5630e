import type { createTeamsAdapter } from '@chat-adapter/teams';
import type { ChatOrigin, ChatPlatform, ChatPlatformBlock } from '../../chat-platform.js';
import { withTimeout } from '../../../common/with-timeout.js';
import { BOT_FRAMEWORK_DEFAULT_TENANT, BotFrameworkClientCredentials } from '../../outbound-auth/bot-framework-client-credentials.js';
import { BOT_FRAMEWORK_OPENID_METADATA_URL, BotFrameworkTokenVerifier } from '../../verification/bot-framework-token.js';
import { isSet, jsonObject, obj, str } from '../raw-fields.js';

/** The scope of the bot's own Bot Connector tokens. */
const CONNECTOR_SCOPE = 'https://api.botframework.com/.default';

/**
 * One verifier and one credentials client per block as configured: their keys and tokens are
 * cached inside, so a request does not fetch the OpenID metadata or a token each time.
 */
const verifiers = new Map<string, BotFrameworkTokenVerifier>();
const credentials = new Map<string, BotFrameworkClientCredentials>();

function verifierFor(block: ChatPlatformBlock): BotFrameworkTokenVerifier {
  const appId = block['app_id'] ?? '';
  const openIdMetadataUrl = isSet(block['openid_metadata_url']) ? block['openid_metadata_url'] : BOT_FRAMEWORK_OPENID_METADATA_URL;
  const key = JSON.stringify([appId, openIdMetadataUrl]);
  let verifier = verifiers.get(key);
  if (!verifier) verifiers.set(key, (verifier = new BotFrameworkTokenVerifier({ appId, openIdMetadataUrl })));
  return verifier;
}

function credentialsFor(block: ChatPlatformBlock): BotFrameworkClientCredentials {
  const options = {
    appId: block['app_id'] ?? '', appPassword: block['app_password'] ?? '',
    tenantId: isSet(block['tenant_id']) ? block['tenant_id'] : null, tokenUrl: isSet(block['token_url']) ? block['token_url'] : null,
  };
  const key = JSON.stringify(options);
  let client = credentials.get(key);
  if (!client) credentials.set(key, (client = new BotFrameworkClientCredentials(options)));
  return client;
}

/**
 * Microsoft Teams through an Azure Bot (Bot Framework; messaging endpoint `/chat/teams`): every
 * activity carries a Bot Framework token, checked against the OpenID metadata at
 * `openid_metadata_url` (and its `serviceurl` claim against the activity's `serviceUrl`); replies
 * go to the activity's `serviceUrl` with a token from `token_url`.
 */
export const teamsChatPlatform: ChatPlatform = {
  name: 'teams',
  title: 'Microsoft Teams',

  problems(block) {
    const out = [];
    if (!isSet(block['app_id'])) out.push({ key: 'app_id', reason: 'without the Microsoft App ID no Teams activity can be verified (it is the tokens\' audience), so /chat/teams is not served' });
    if (!isSet(block['app_password'])) out.push({ key: 'app_password', reason: 'without the app password (client secret) the service cannot reply, so /chat/teams is not served' });
    return out;
  },

  async verify(block, headers, rawBody) {
    const verdict = await verifierFor(block).verify(str(headers['authorization']), jsonObject(rawBody));
    return verdict.ok ? { ok: true } : { ok: false, reason: verdict.reason };
  },

  deliveryId(_headers, rawBody) {
    // The Bot Framework retries an activity it got no answer for with the same id.
    return str(jsonObject(rawBody)['id']);
  },

  apiTarget(block) {
    // Replies go to each activity's serviceUrl; what the service itself calls is the token endpoint.
    return credentialsFor(block).tokenUrlFor(isSet(block['tenant_id']) ? block['tenant_id'] : BOT_FRAMEWORK_DEFAULT_TENANT);
  },

  async probe(block, timeoutMs) {
    // A client-credentials token: proves the app id and password, writes nothing.
    await withTimeout(credentialsFor(block).token(CONNECTOR_SCOPE), timeoutMs, `no token within ${timeoutMs} ms`);
  },

  // The adapter (and the Teams SDK under it) loads only when Teams is configured.
  async createAdapter(block, logger) {
    const { createTeamsAdapter: create } = await import('@chat-adapter/teams');
    const tenant = isSet(block['tenant_id']) ? { appTenantId: block['tenant_id'], appType: 'SingleTenant' } : { appType: 'MultiTenant' };
    return create({
      appId: block['app_id'] ?? '',
      ...tenant,
      logger,
      // The SDK's own checks and token path cannot be pointed at configured URLs (docs/chat-platform-adapters.md).
      webhookVerifier: verifierFor(block).asWebhookVerifier(),
      token: credentialsFor(block).asTokenFactory(),
    } as Parameters<typeof createTeamsAdapter>[0]);
  },

  originOf(raw) {
    // An activity: conversation.tenantId (or channelData.tenant.id), from.aadObjectId (or from.id), conversation.id.
    const activity = obj(raw);
    const conversation = obj(activity['conversation']);
    const from = obj(activity['from']);
    const workspace = str(conversation['tenantId']) ?? str(obj(obj(activity['channelData'])['tenant'])['id']);
    const user = str(from['aadObjectId']) ?? str(from['id']);
    // A channel thread's conversation id ends in `;messageid=…`: the channel is what comes before.
    const channel = str(conversation['id'])?.split(';')[0] ?? null;
    return workspace && user && channel ? ({ workspace, user, channel } satisfies ChatOrigin) : null;
  },
};
