import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { type AgentObserver, type AgentOutcome, AgentToolset, type AgentTree, type AgentUsage } from '../agent/agent-types.js';
import { loadAgentRuntime } from '../agent/agent-runtime.js';
import { type ProviderGate, providerGateKey } from '../agent/provider-gate.js';
import { systemPromptFor } from '../agent/prompt/system-prompts.js';
import { collectSecrets, scrubSecrets } from '../common/secret-scrubber.js';
import { agentsRefusedBy } from '../config/agent-config.reader.js';
import { ConfigService } from '../config/config.service.js';
import type { AgentConfig, ProjectConfig, RepoConfig } from '../config/service-config.js';
import type { AgentTool } from '../agent/tools/tool-types.js';
import { loadSkillTool, type Skill, SkillCatalogService, skillsPromptSection } from '../catalog/index.js';
import { PROVIDER_GATE } from '../pipelines/pipeline.tokens.js';
import type { Sandbox, SandboxBackend } from '../sandbox/sandbox-backend.js';
import { SANDBOX_BACKEND } from '../sandbox/sandbox.tokens.js';
import { gitCredentialFor } from '../workspaces/git/git-credential.js';
import type { PreparedTree } from '../workspaces/git/workspace-types.js';
import { describeRepositoryFailure } from '../workspaces/publishing/publish-errors.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import { buildDialogPrompt } from './dialog-prompt.js';
import { proposeTicketTool } from './dialog-tools.js';
import type { DialogMessage, StoredDraft, TicketDraft } from './dialog-types.js';

/** The system prompt's file: `prompts/dialog.md`; also the name a skill's `pipelines` lists to be offered to the dialogue. */
export const DIALOG_PROMPT = 'dialog';
/** A person waits for the answer in an open request: a turn gets at most this long, whatever step_timeout_seconds says. */
export const DIALOG_TURN_MAX_MS = 10 * 60_000;

/**
 * Why a turn cannot start: reason `conflict` (the configuration or the budget refuses it: 409) or
 * `upstream` (a repository could not be read: 502). Nothing was sent to a model.
 */
export class DialogUnavailableError extends Error {
  override readonly name = 'DialogUnavailableError';
  constructor(message: string, readonly reason: 'conflict' | 'upstream' = 'conflict') {
    super(message);
  }
}

export interface TurnInput {
  project: ProjectConfig;
  history: readonly DialogMessage[];
  drafts: readonly StoredDraft[];
  message: string;
  /** What the conversation used before this turn (the budgets count it, as a run's sessions do). */
  used: AgentUsage;
}

export interface TurnResult {
  outcome: AgentOutcome;
  drafts: TicketDraft[];
  usage: AgentUsage;
}

/**
 * One turn of the design dialogue: the project's repositories, read from the server's mirrors,
 * go into fresh sandboxes (no credential, no `.git`), the model reads them with the read-only
 * tools plus `propose_ticket` and `load_skill`, and the sandboxes are destroyed afterwards, so
 * nothing it runs is kept. Budgets are the project's agent block, counted over the conversation.
 */
@Injectable()
export class DialogTurnService {
  private readonly logger = new Logger('Dialog');

  constructor(
    private readonly config: ConfigService,
    private readonly workspaces: WorkspacesService,
    @Inject(SANDBOX_BACKEND) private readonly backend: SandboxBackend,
    @Inject(PROVIDER_GATE) private readonly gate: ProviderGate,
    private readonly catalog: SkillCatalogService,
  ) {}

  /** What stops a conversation about `project` before any model call, or null. */
  unavailable(project: ProjectConfig, used: AgentUsage): string | null {
    const { agent } = project;
    if (agentsRefusedBy(this.config.config.sandbox)) {
      return 'the design dialogue runs a model on the repositories, which the in-process sandbox backend does not isolate: use container-engine or container-orchestrator (or sandbox.allow_agents_in_process: true, for development only)';
    }
    const missing = (['provider', 'model', 'api_key'] as const).filter((k) => agent[k] === null);
    if (missing.length > 0) return `project ${project.name} has no model: its agent lacks ${missing.join(', ')} (set agent.${missing[0]}, or the project's own)`;
    if (used.inputTokens + used.outputTokens >= agent.max_tokens) {
      return `this conversation used ${used.inputTokens + used.outputTokens} tokens, reaching max_tokens ${agent.max_tokens}: start a new conversation`;
    }
    if (agent.prices && agent.max_cost_usd !== null && used.costUsd >= agent.max_cost_usd) {
      return `this conversation spent $${used.costUsd.toFixed(4)}, reaching max_cost_usd ${agent.max_cost_usd}: start a new conversation`;
    }
    return null;
  }

  async run(input: TurnInput): Promise<TurnResult> {
    const { project } = input;
    const refusal = this.unavailable(project, input.used);
    if (refusal) throw new DialogUnavailableError(refusal);
    const secrets = collectSecrets(this.config.config, this.config.env);
    const scratch = new TurnScratch(this.backend, this.workspaces);
    try {
      const trees = await scratch.trees(project, secrets);
      const skills = await this.skillsFor(project.name);
      const drafts: TicketDraft[] = [];
      const prompt = buildDialogPrompt({
        project: project.name, repositories: project.repos.map((r) => r.name), history: input.history, drafts: input.drafts,
        message: input.message, secrets,
      });
      const system = [await systemPromptFor(DIALOG_PROMPT), skillsPromptSection(skills, secrets)].filter(Boolean).join('\n\n');
      const { outcome, usage } = await this.converse(project.agent, trees, system, prompt, secrets, input.used, [
        proposeTicketTool(drafts), ...(skills.length > 0 ? [loadSkillTool(skills, secrets)] : []),
      ]);
      return { outcome, drafts, usage };
    } finally {
      await scratch.release();
    }
  }

  /** The skills offered to a conversation about `project`; a catalog that cannot be read leaves the turn without skills. */
  private async skillsFor(project: string): Promise<Skill[]> {
    try {
      return await this.catalog.skillsFor({ project, pipeline: DIALOG_PROMPT });
    } catch (error) {
      this.logger.warn(`skills of project ${project} could not be read, the turn goes on without: ${(error as Error).message}`);
      return [];
    }
  }

  private async converse(agent: AgentConfig, trees: AgentTree[], system: string, prompt: string, secrets: readonly string[], used: AgentUsage, extraTools: AgentTool[]): Promise<{ outcome: AgentOutcome; usage: AgentUsage }> {
    const { createAgentSession, languageModelFor } = await loadAgentRuntime();
    const stepTimeoutMs = Math.min(agent.step_timeout_seconds * 1000, DIALOG_TURN_MAX_MS);
    const session = createAgentSession({
      model: languageModelFor(agent),
      modelLabel: `${agent.provider}/${agent.model}`,
      system,
      trees,
      toolset: AgentToolset.ReadOnly,
      extraTools,
      limits: {
        maxSteps: agent.max_steps,
        maxTokens: Math.max(0, agent.max_tokens - used.inputTokens - used.outputTokens),
        maxCostUsd: agent.prices && agent.max_cost_usd !== null ? Math.max(0, agent.max_cost_usd - used.costUsd) : null,
        stepTimeoutMs,
      },
      prices: agent.prices,
      observer: this.observer(),
      signal: AbortSignal.timeout(stepTimeoutMs + 30_000),
      secrets,
      gate: this.gate,
      gateKey: providerGateKey(agent),
    });
    const outcome = await session.send(scrubSecrets(prompt, secrets));
    return { outcome, usage: session.usage };
  }

  private observer(): AgentObserver {
    return {
      modelCall: (c) => this.logger.debug(`${c.model}: ${c.inputTokens}+${c.outputTokens} tokens, ${c.finishReason}`),
      toolCall: (c) => this.logger.debug(`${c.brief}${c.exitCode === null ? '' : ` (exit ${c.exitCode})`}`),
      narration: () => undefined,
      usage: async () => undefined,
    };
  }
}

/** A turn's sandboxes and prepared trees, released together however the turn ends. */
class TurnScratch {
  private readonly sandboxes: Sandbox[] = [];
  private readonly prepared: PreparedTree[] = [];
  private readonly id = randomUUID();

  constructor(private readonly backend: SandboxBackend, private readonly workspaces: WorkspacesService) {}

  /** One tree per repository at its base branch (a project without repositories gets one empty tree). */
  async trees(project: ProjectConfig, secrets: readonly string[]): Promise<AgentTree[]> {
    if (project.repos.length === 0) return [{ prefix: null, sandbox: await this.sandbox('default') }];
    const trees: AgentTree[] = [];
    for (const repo of project.repos) trees.push({ prefix: project.repos.length > 1 ? repo.name : null, sandbox: await this.tree(repo, project.name, secrets) });
    return trees;
  }

  private async sandbox(name: string): Promise<Sandbox> {
    const sandbox = await this.backend.create({ runId: this.id, name, env: {} });
    this.sandboxes.push(sandbox);
    return sandbox;
  }

  private async tree(repo: RepoConfig, project: string, secrets: readonly string[]): Promise<Sandbox> {
    const credential = gitCredentialFor(repo);
    if (!credential) throw new DialogUnavailableError(`repository ${repo.name} has no auth_secret: the server cannot read it; set auth_secret for it in project ${project}`);
    try {
      const baseBranch = repo.branch ?? await this.workspaces.hostFor(repo).defaultBranch();
      const sandbox = await this.sandbox(repo.name);
      this.prepared.push(await this.workspaces.repositories.prepare({ repo, credential, workBranch: baseBranch, baseBranch }, sandbox, undefined, undefined, { collect: false }));
      return sandbox;
    } catch (error) {
      if (error instanceof DialogUnavailableError) throw error;
      throw new DialogUnavailableError(scrubSecrets(describeRepositoryFailure(repo.name, 'reading the repository for the design dialogue', error), secrets), 'upstream');
    }
  }

  async release(): Promise<void> {
    for (const tree of this.prepared.splice(0)) await this.workspaces.repositories.release(tree).catch(() => undefined);
    for (const sandbox of this.sandboxes.splice(0)) await sandbox.destroy().catch(() => undefined);
  }
}
