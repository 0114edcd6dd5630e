import { createAnthropic } from '@ai-sdk/anthropic';
import { createAzure } from '@ai-sdk/azure';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { reportConnectionCall } from '../common/connection-calls.js';
import { modelConnectionKey } from './model-connection-key.js';
import { scrubSecrets } from '../common/secret-scrubber.js';
import { type AgentConfig, AgentProvider } from '../config/service-config.js';

/** A configuration that cannot make a model: names the field to set. */
export class AgentConfigError extends Error {
  override readonly name = 'AgentConfigError';
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

/**
 * The language model an agent configuration names, always as a provider instance of our own
 * (never the AI SDK's hosted gateway): the key and endpoint come from the configuration, not
 * from the SDK's environment-variable defaults. `fetch` lets a caller route the provider's
 * requests (tests point it at a stand-in through `base_url` instead).
 */
export function languageModelFor(agent: AgentConfig, options: { fetch?: typeof fetch; observe?: boolean } = {}): LanguageModel {
  const { provider, model, api_key: apiKey } = agent;
  if (provider === null) throw new AgentConfigError('provider', 'the agent has no provider');
  if (model === null) throw new AgentConfigError('model', 'the agent has no model');
  if (apiKey === null) throw new AgentConfigError('api_key', 'the agent has no api_key');
  const baseURL = agent.base_url ?? undefined;
  const observed = options.observe === false ? options.fetch : observedFetch(modelConnectionKey(agent), apiKey, options.fetch ?? fetch);
  const common = { apiKey, fetch: observed };
  switch (provider) {
    case AgentProvider.OpenAI:
      return createOpenAI({ ...common, baseURL })(model);
    case AgentProvider.Anthropic:
      return createAnthropic({ ...common, baseURL })(model);
    case AgentProvider.AzureOpenAI:
      if (!baseURL) throw new AgentConfigError('base_url', 'azure-openai needs base_url (https://<resource>.openai.azure.com/openai)');
      return createAzure({ ...common, baseURL })(model);
    case AgentProvider.OpenAICompatible:
      if (!baseURL) throw new AgentConfigError('base_url', 'openai-compatible needs base_url');
      return createOpenAICompatible({ ...common, name: 'openai-compatible', baseURL, includeUsage: true })(model);
  }
}


/**
 * `inner`, reporting each model call's outcome to the diagnostics: the endpoint answered and took
 * the key (anything but 401, 403, 429 and 5xx), or not. A call the caller cancelled says nothing
 * about the endpoint and is not reported.
 */
function observedFetch(key: string, apiKey: string, inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      const res = await inner(input, init);
      const fault = res.status === 401 || res.status === 403 || res.status === 429 || res.status >= 500;
      reportConnectionCall(key, !fault, `HTTP ${res.status}`);
      return res;
    } catch (error) {
      const reason: unknown = init?.signal?.reason;
      const cancelled = init?.signal?.aborted === true && !(reason instanceof Error && reason.name === 'TimeoutError');
      if (!cancelled) reportConnectionCall(key, false, scrubSecrets((error as Error)?.message ?? String(error), [apiKey]));
      throw error;
    }
  };
}

