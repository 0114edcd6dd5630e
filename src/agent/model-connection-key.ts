import { connectionKeyOf } from '../common/connection-calls.js';
import type { AgentConfig } from '../config/service-config.js';

/**
 * The diagnostics' key of a model endpoint (provider, base URL, key). Apart from language-model.ts
 * so that naming a connection does not load the model providers' SDKs at boot.
 */
export function modelConnectionKey(agent: Pick<AgentConfig, 'provider' | 'base_url' | 'api_key'>): string {
  return connectionKeyOf('model', agent.provider, agent.base_url, agent.api_key);
}
