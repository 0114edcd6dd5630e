import { Inject, Injectable, Logger } from '@nestjs/common';
import { providerGateKey, type ProviderGate } from '../agent/provider-gate.js';
import { untrustedSection } from '../agent/prompt/prompt-text.js';
import { UNTRUSTED_DATA_NOTICE } from '../agent/untrusted-text.js';
import { collectSecrets } from '../common/secret-scrubber.js';
import { ConfigService } from '../config/config.service.js';
import type { ProjectConfig } from '../config/service-config.js';
import { PROVIDER_GATE } from '../pipelines/pipeline.tokens.js';
import { COMMAND_PIPELINES, ticketReference } from './command-text.js';

/** Longest command text handed to the model; a command is a sentence, not a document. */
const MAX_COMMAND_CHARS = 2_000;
/** One short answer: the call must not hold a webhook for long. */
const CALL_TIMEOUT_MS = 20_000;

export type Interpretation =
  | { pipeline: string; ticket: string | null }
  | { pipeline: null; why: string };

/**
 * Reads a free-text command with the project's model (spec rule 1: deterministic parsing first,
 * the model only for free text). Called only after the author's write access is established,
 * never on a service pull request. The text is an untrusted-data block; the model can only call
 * `resolve_command` with one of the three command pipelines (or none) and a ticket, which is
 * checked again here, so a hostile comment can at most pick among what a plain command could.
 */
@Injectable()
export class CommandInterpreter {
  private readonly logger = new Logger('PullRequestCommands');

  constructor(private readonly config: ConfigService, @Inject(PROVIDER_GATE) private readonly gate: ProviderGate) {}

  /** Whether the project has a model to ask. */
  canInterpret(project: ProjectConfig): boolean {
    const { provider, model, api_key: key } = project.agent;
    return provider !== null && model !== null && key !== null;
  }

  async interpret(project: ProjectConfig, text: string): Promise<Interpretation> {
    const agent = project.agent;
    const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
    try {
      const [{ languageModelFor }, { callModel }, { jsonSchema, tool }] = await Promise.all([
        import('../agent/language-model.js'), import('../agent/model-call.js'), import('ai'),
      ]);
      await this.gate.acquire(providerGateKey(agent), signal);
      const secrets = collectSecrets(this.config.config, this.config.env);
      const answer = await callModel({
        model: languageModelFor(agent),
        instructions: [
          'You route a comment left on a pull request to one of the pipelines of a code-automation service.',
          `Pipelines: \`code\` (implement a ticket), \`security-scan\` (scan the code for vulnerabilities and secrets), \`pr-review\` (review the pull request).`,
          'Call resolve_command once with the pipeline the comment asks for and the ticket it names, if any; use pipeline "none" when it asks for none of them.',
          UNTRUSTED_DATA_NOTICE,
        ].join('\n'),
        messages: [{ role: 'user', content: untrustedSection('pull-request-comment', text, secrets, MAX_COMMAND_CHARS).block }],
        tools: {
          resolve_command: tool({
            description: 'Names the pipeline the comment asks for, and the ticket it names.',
            inputSchema: jsonSchema<{ pipeline: string; ticket?: string }>({
              type: 'object',
              properties: { pipeline: { type: 'string', enum: [...COMMAND_PIPELINES, 'none'] }, ticket: { type: 'string' } },
              required: ['pipeline'],
              additionalProperties: false,
            }),
          }),
        },
        signal,
      });
      const call = answer.toolCalls.find((c) => c.name === 'resolve_command' && c.invalid === null);
      const input = (call?.input ?? {}) as { pipeline?: unknown; ticket?: unknown };
      const pipeline = typeof input.pipeline === 'string' && COMMAND_PIPELINES.includes(input.pipeline) ? input.pipeline : null;
      if (pipeline === null) return { pipeline: null, why: 'the model found no pipeline in it' };
      const ticket = typeof input.ticket === 'string' ? ticketReference(input.ticket.trim(), project.tracker) : null;
      return { pipeline, ticket };
    } catch (error) {
      this.logger.warn(`a free-text command of project ${project.name} could not be read by the model: ${(error as Error).message}`);
      return { pipeline: null, why: 'the model could not be asked' };
    }
  }
}
