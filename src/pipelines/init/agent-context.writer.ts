import { type AgentObserver, AgentToolset } from '../../agent/agent-types.js';
import { loadAgentRuntime } from '../../agent/agent-runtime.js';
import { oneLine, untrustedSection } from '../../agent/prompt/prompt-text.js';
import { systemPromptFor } from '../../agent/prompt/system-prompts.js';
import { UNTRUSTED_DATA_NOTICE } from '../../agent/untrusted-text.js';
import { type ProviderGate, providerGateKey } from '../../agent/provider-gate.js';
import type { AgentConfig, ProjectConfig } from '../../config/service-config.js';
import { shellQuote } from '../../common/shell-quote.js';
import { contextFilePath } from '../contexts/context-files.js';
import type { MissingContextFiles } from '../contexts/missing-context-files.js';
import type { ContextWriter, ContextWriterTree, ContextWriters, WrittenContextFiles } from './context-writer.js';
import { TemplateContextWriter } from './template-context.writer.js';

/** What the agent writer needs besides the project's agent block. */
export interface AgentWriterSupport {
  gate: ProviderGate;
  /** False while model-driven commands may not run on the configured backend (in-process without the opt-in). */
  agentsAllowed: () => boolean;
  secrets: () => readonly string[];
  /** Told of each model and tool call (the server logs them; the CLI prints them). */
  log(line: string): void;
  fetch?: typeof fetch;
}

/** An initialisation is smaller than a ticket: a tighter bound than the agent's own. */
const INIT_MAX_STEPS = 40;
const INIT_TIMEOUT_MS = 10 * 60_000;
/** An existing context file shown to the model is cut beyond this. */
const EXISTING_FILE_CHARS = 16_000;

/**
 * The model reads the repository and writes the missing context files. Whatever it leaves
 * unwritten (it stopped, a budget ran out, the provider failed) gets the template, so
 * initialisation always proposes every missing file. Whatever else it changes is dropped by the
 * initializer, which checks the tree after the writer (and fills from the template what the model
 * left unusable: a link, a folder).
 */
export class AgentContextWriter implements ContextWriter {
  readonly kind = 'agent';
  private readonly fallback = new TemplateContextWriter();

  constructor(private readonly agent: AgentConfig, private readonly support: AgentWriterSupport) {}

  async write(tree: ContextWriterTree, missing: MissingContextFiles): Promise<WrittenContextFiles> {
    const wanted = missing.contexts.flatMap((c) => c.files.map((file) => contextFilePath(c.name, file)));
    const secrets = this.support.secrets();
    const { createAgentSession, languageModelFor } = await loadAgentRuntime();
    const session = createAgentSession({
      model: languageModelFor(this.agent, { fetch: this.support.fetch }),
      modelLabel: `${this.agent.provider}/${this.agent.model}`,
      system: await systemPromptFor('init'),
      trees: [{ prefix: null, sandbox: tree.sandbox }],
      toolset: AgentToolset.Code,
      limits: {
        maxSteps: Math.min(this.agent.max_steps, INIT_MAX_STEPS),
        maxTokens: this.agent.max_tokens,
        maxCostUsd: this.agent.prices ? this.agent.max_cost_usd : null,
        stepTimeoutMs: Math.min(this.agent.step_timeout_seconds * 1000, INIT_TIMEOUT_MS),
      },
      prices: this.agent.prices,
      observer: this.observer(tree.repo.name),
      signal: AbortSignal.timeout(INIT_TIMEOUT_MS),
      secrets,
      gate: this.support.gate,
      gateKey: providerGateKey(this.agent),
    });
    const outcome = await session.send(taskOf(tree.repo.name, missing, wanted, secrets));
    const left = await this.unwritten(tree, wanted);
    const remaining: MissingContextFiles = {
      repo: missing.repo,
      contexts: missing.contexts
        .map((c) => ({ ...c, files: c.files.filter((file) => left.includes(contextFilePath(c.name, file))) }))
        .filter((c) => c.files.length > 0),
    };
    const byModel = wanted.filter((path) => !left.includes(path));
    const ended = outcome.kind === 'finished' ? '' : ` (the model stopped early: ${outcome.kind === 'failed' ? outcome.error : outcome.kind === 'asked' ? outcome.question : outcome.reason})`;
    if (remaining.contexts.length === 0) {
      return { files: byModel, how: `Written by the model (${this.agent.provider}/${this.agent.model}) from what it read in the repository: review them before merging.` };
    }
    const template = await this.fallback.write(tree, remaining).catch((error: unknown) => {
      // The model left something in the way (a folder where a file belongs, a link above it): the
      // initializer drops it and fills the file from the template in a clean tree.
      this.support.log(`init ${tree.repo.name}: the template could not write ${missingList(remaining)} in the model's tree: ${(error as Error).message}`);
      return null;
    });
    if (!template) {
      return { files: byModel, how: `Written by the model (${this.agent.provider}/${this.agent.model}) from what it read in the repository${ended}: review them before merging.` };
    }
    return {
      files: [...byModel, ...template.files],
      how: `${byModel.length > 0 ? `${byModel.map((f) => `\`${f}\``).join(', ')} written by the model; ` : ''}${template.files.map((f) => `\`${f}\``).join(', ')} from the template${ended}. ${template.how}`,
    };
  }

  /** The wanted files the model did not write (checked in the sandbox: it may be a container). */
  private async unwritten(tree: ContextWriterTree, wanted: readonly string[]): Promise<string[]> {
    const left: string[] = [];
    for (const path of wanted) {
      const result = await tree.sandbox.exec(`test -f ${shellQuote(path)} && test -s ${shellQuote(path)}`, { timeoutMs: 10_000, onLine: () => undefined });
      if (result.exitCode !== 0) left.push(path);
    }
    return left;
  }

  private observer(repo: string): AgentObserver {
    const { log } = this.support;
    return {
      modelCall: (c) => log(`init ${repo}: ${c.model} ${c.inputTokens}+${c.outputTokens} tokens, ${c.finishReason}`),
      toolCall: (c) => log(`init ${repo}: ${c.brief}${c.exitCode === null ? '' : ` (exit ${c.exitCode})`}`),
      narration: () => undefined,
      usage: async () => undefined,
    };
  }
}

function missingList(missing: MissingContextFiles): string {
  return missing.contexts.flatMap((c) => c.files.map((file) => contextFilePath(c.name, file))).join(', ');
}

/** The files that exist come from the repository: data for the model, delimited like ticket text. */
function taskOf(repo: string, missing: MissingContextFiles, wanted: readonly string[], secrets: readonly string[]): string {
  const lines = [
    `Repository ${oneLine(repo, secrets)} lacks these context files: ${wanted.map((w) => `\`${oneLine(w, secrets, 200)}\``).join(', ')}.`,
    'Explore the repository (its build files, lock files, README, tests), then write exactly these files with write_file and nothing else, and call finish.',
    UNTRUSTED_DATA_NOTICE,
  ];
  for (const context of missing.contexts) {
    for (const [file, text] of Object.entries(context.existing)) {
      lines.push('', `Context ${oneLine(context.name, secrets)} already has ${file} (keep it as it is; your files must agree with it):`,
        untrustedSection('repository-context', text ?? '', secrets, EXISTING_FILE_CHARS).block);
    }
  }
  return lines.join('\n');
}

function hasModel(agent: AgentConfig): boolean {
  return agent.provider !== null && agent.model !== null && agent.api_key !== null;
}

/** A project with a usable agent gets the model's files (where agents may run); any other the template's. */
export class AgentContextWriters implements ContextWriters {
  private readonly template = new TemplateContextWriter();

  constructor(private readonly support: AgentWriterSupport) {}

  forProject(project: ProjectConfig): ContextWriter {
    return hasModel(project.agent) && this.support.agentsAllowed() ? new AgentContextWriter(project.agent, this.support) : this.template;
  }
}
