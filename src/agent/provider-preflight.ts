import { APICallError, generateText } from 'ai';
import { scrubSecrets } from '../common/secret-scrubber.js';
import type { AgentConfig } from '../config/service-config.js';
import { AgentConfigError, languageModelFor } from './language-model.js';

/**
 * What a provider said to the smallest possible call. `blocking`: runs would fail the same way
 * (a refused key, an unknown model or endpoint); not blocking: the provider could not be reached
 * or was busy just now, which may pass by itself.
 */
export type ProviderCheck =
  | { ok: true; detail: string }
  | { ok: false; blocking: boolean; field: string; reason: string };

/**
 * The OpenAI Responses API refuses `max_output_tokens` below 16; every provider accepts 16, so the
 * check costs a few tokens at most.
 */
const PROBE_OUTPUT_TOKENS = 16;

/**
 * Reaches the configured provider with one tiny generation: it proves the endpoint, the key and
 * the model name together, on every provider alike (a models listing would not prove the model,
 * and Azure OpenAI lists deployments differently). Never throws; the key never reaches the result.
 */
export async function checkModelProvider(agent: AgentConfig, options: { timeoutMs: number; fetch?: typeof fetch; observe?: boolean }): Promise<ProviderCheck> {
  const label = `${agent.provider}/${agent.model}`;
  const secrets = agent.api_key ? [agent.api_key] : [];
  let model;
  try {
    model = languageModelFor(agent, { fetch: options.fetch, observe: options.observe });
  } catch (error) {
    if (error instanceof AgentConfigError) return { ok: false, blocking: true, field: error.field, reason: error.message };
    throw error;
  }
  const started = performance.now();
  try {
    await generateText({
      model,
      prompt: 'Reply with the word ok.',
      maxOutputTokens: PROBE_OUTPUT_TOKENS,
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(options.timeoutMs),
    });
    return { ok: true, detail: `${label} answered in ${Math.round(performance.now() - started)} ms` };
  } catch (error) {
    return classify(error, label, options.timeoutMs, secrets);
  }
}

function classify(error: unknown, label: string, timeoutMs: number, secrets: readonly string[]): ProviderCheck {
  const scrub = (text: string) => scrubSecrets(text, secrets).replace(/\s+/g, ' ').slice(0, 300);
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const said = scrub(error.message);
    if (status === 401 || status === 403) {
      return { ok: false, blocking: true, field: 'api_key', reason: `${label} refused the api_key (HTTP ${status}: ${said})` };
    }
    if (status === 404) {
      return { ok: false, blocking: true, field: 'model', reason: `${label}: the model or endpoint does not exist (HTTP 404: ${said}); check model and base_url` };
    }
    if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
      return { ok: false, blocking: true, field: 'model', reason: `${label} refused the call (HTTP ${status}: ${said})` };
    }
    return { ok: false, blocking: false, field: 'base_url', reason: `${label} is not answering now (HTTP ${status ?? 'error'}: ${said}); runs retry with back-off` };
  }
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { ok: false, blocking: false, field: 'base_url', reason: `${label} did not answer within ${timeoutMs / 1000} s` };
  }
  return { ok: false, blocking: false, field: 'base_url', reason: `${label} could not be reached: ${scrub((error as Error)?.message ?? String(error))}` };
}
