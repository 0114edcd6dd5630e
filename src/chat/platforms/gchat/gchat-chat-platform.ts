import type { createGoogleChatAdapter } from '@chat-adapter/gchat';
import type { ChatOrigin, ChatPlatform, ChatPlatformBlock } from '../../chat-platform.js';
import type { ServiceAccountKey } from '../../outbound-auth/google-service-account-token.js';
import { withTimeout } from '../../../common/with-timeout.js';
import { GOOGLE_CHAT_JWKS_URL, GoogleChatTokenVerifier } from '../../verification/google-chat-token.js';
import { isSet, jsonObject, obj, str } from '../raw-fields.js';

/** Google Chat's API when `chat.gchat.api_url` is unset. */
export const GOOGLE_CHAT_PUBLIC_API_URL = 'https://chat.googleapis.com';

/** One verifier per audience and key source: the keys are cached inside it. */
const verifiers = new Map<string, GoogleChatTokenVerifier>();

function verifierFor(block: ChatPlatformBlock): GoogleChatTokenVerifier {
  const projectNumber = block['project_number'] ?? '';
  const jwksUrl = isSet(block['jwks_url']) ? block['jwks_url'] : GOOGLE_CHAT_JWKS_URL;
  const key = JSON.stringify([projectNumber, jwksUrl]);
  let verifier = verifiers.get(key);
  if (!verifier) verifiers.set(key, (verifier = new GoogleChatTokenVerifier({ projectNumber, jwksUrl })));
  return verifier;
}

const apiUrlOf = (block: ChatPlatformBlock) => (isSet(block['api_url']) ? block['api_url'] : GOOGLE_CHAT_PUBLIC_API_URL).replace(/\/+$/, '');

/** The service account key (JSON) of `credentials`, or why it cannot be used. */
function keyOf(block: ChatPlatformBlock): ServiceAccountKey | string {
  if (!isSet(block['credentials'])) return 'not set';
  try {
    const key = obj(JSON.parse(block['credentials']));
    if (!str(key['client_email']) || !str(key['private_key'])) return 'is not a service account key (no client_email or private_key)';
    return key as unknown as ServiceAccountKey;
  } catch {
    return 'is not JSON (the service account key file\'s contents)';
  }
}

async function tokensFor(block: ChatPlatformBlock) {
  const key = keyOf(block);
  if (typeof key === 'string') throw new Error(`chat.gchat.credentials ${key}`);
  // google-auth-library loads only when Google Chat is configured.
  const { GoogleServiceAccountTokens } = await import('../../outbound-auth/google-service-account-token.js');
  return new GoogleServiceAccountTokens({ credentials: key });
}

/** The add-on event's payload that names the space and the message (a message, or a card click). */
function payloadOf(event: Record<string, unknown>): Record<string, unknown> {
  const chat = obj(event['chat']);
  return obj(chat['messagePayload'] ?? chat['buttonClickedPayload']);
}

/**
 * Google Chat (an app whose HTTP endpoint is `/chat/gchat`, authentication audience the project
 * number): every event carries a token signed by Chat's service account, checked against
 * `jwks_url`; replies go to the Chat API at `api_url` as the service account of `credentials`,
 * whose token comes from the key file's `token_uri`.
 */
export const gchatChatPlatform: ChatPlatform = {
  name: 'gchat',
  title: 'Google Chat',

  problems(block) {
    const out = [];
    if (!isSet(block['project_number'])) out.push({ key: 'project_number', reason: 'without the project number no Google Chat event can be verified (it is the tokens\' audience), so /chat/gchat is not served' });
    const key = keyOf(block);
    if (typeof key === 'string') out.push({ key: 'credentials', reason: `the service account key ${key}: the service cannot reply, so /chat/gchat is not served` });
    return out;
  },

  async verify(block, headers) {
    const verdict = await verifierFor(block).verify(str(headers['authorization']));
    return verdict.ok ? { ok: true } : { ok: false, reason: verdict.reason };
  },

  deliveryId(_headers, rawBody) {
    // A message's resource name is unique; a card click has none to repeat (not redelivered).
    const event = jsonObject(rawBody);
    return obj(event['chat'])['messagePayload'] ? str(obj(payloadOf(event)['message'])['name']) : null;
  },

  apiTarget(block) {
    return apiUrlOf(block);
  },

  async probe(block, timeoutMs) {
    // A service account token for the Chat scope: proves the key, writes nothing.
    const tokens = await tokensFor(block);
    await withTimeout(tokens.fetchToken(), timeoutMs, `no token within ${timeoutMs} ms`);
  },

  // The adapter (and the googleapis client under it) loads only when Google Chat is configured.
  async createAdapter(block, logger) {
    const [{ createGoogleChatAdapter: create }, tokens] = await Promise.all([import('@chat-adapter/gchat'), tokensFor(block)]);
    return create({
      auth: tokens.authClient(),
      apiUrl: apiUrlOf(block),
      ...(isSet(block['bot_user_id']) ? { botUserId: block['bot_user_id'] } : {}),
      logger,
      // verify() above decided already: the adapter's own check fetches Google's certificates from a
      // fixed URL. The empty strings keep it from reading GOOGLE_CHAT_* variables, which would switch it back on.
      disableSignatureVerification: true,
      googleChatProjectNumber: '',
      pubsubAudience: '',
    } as Parameters<typeof createGoogleChatAdapter>[0]);
  },

  originOf(raw) {
    // The add-on event: chat.user (users/…), the payload's space (spaces/…); a user's workspace is their email's domain.
    const event = obj(raw);
    const user = obj(obj(event['chat'])['user']);
    const id = str(user['name']);
    const channel = str(obj(payloadOf(event)['space'])['name']);
    const email = str(user['email']);
    const workspace = email?.includes('@') ? email.slice(email.lastIndexOf('@') + 1).toLowerCase() : '-';
    return id && channel ? ({ workspace, user: id, channel } satisfies ChatOrigin) : null;
  },
};
