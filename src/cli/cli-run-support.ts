import { dirname, resolve } from 'node:path';
import { readInstallationSkills, skillsOfferedTo } from '../catalog/installation-skills.js';
import type { AgentUsage } from '../agent/agent-types.js';
import { InMemoryProviderGate, requestsPerMinuteFrom } from '../agent/provider-gate.js';
import { collectSecrets } from '../common/secret-scrubber.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { PublishMode, type ProjectConfig, type ServiceConfig } from '../config/service-config.js';
import { builtInHas } from '../pipelines/built-in-pipelines.js';
import type { BuiltInRun } from '../pipelines/pipeline-catalog.js';
import type { PipelineWorkspace, RunEventSink } from '../pipelines/pipeline.js';
import { readTicketText } from '../pipelines/agent-run/ticket-text.js';
import { pullRequestHostFor, pullRequestReviewsFor } from '../platforms/pull-request-hosts.js';
import { DEFAULT_LABEL_PROJECTION_OPTIONS } from '../tickets/label-projection/label-projection.options.js';
import { projectTrackerOf } from '../tickets/label-projection/project-tracker.factory.js';
import { RepositoryWorkspaces } from '../workspaces/git/repository-workspaces.js';
import { RunWorkspace } from '../workspaces/run-workspace.js';

/** What `pipeline-service run` runs a pipeline with, from the configuration alone (no database, no store). */
export interface CliRun {
  runId: string;
  project: ProjectConfig;
  ticket: string | null;
  pipeline: string;
}

function trackerOf(project: ProjectConfig) {
  const tracker = projectTrackerOf(project, DEFAULT_LABEL_PROJECTION_OPTIONS);
  return 'unconfigured' in tracker ? null : tracker.client;
}

/**
 * The agent support of a CLI run: the usage is printed instead of recorded, and the provider
 * gate is this process's own (one CLI run is one caller).
 */
export function cliBuiltInRun(config: ServiceConfig, env: ServiceEnvironment, run: CliRun, out: (line: string) => void): BuiltInRun {
  const client = trackerOf(run.project);
  return {
    project: run.project.name,
    ticket: run.ticket,
    support: {
      agent: run.project.agent,
      secrets: collectSecrets(config, env),
      gate: new InMemoryProviderGate(requestsPerMinuteFrom(() => config)),
      noteUsage: async (usage: AgentUsage) => {
        out(`-- usage: ${usage.modelCalls} model calls, ${usage.inputTokens} input + ${usage.outputTokens} output tokens, $${usage.costUsd.toFixed(4)}`);
      },
      ticketText: async () => {
        if (run.ticket === null) return null;
        if (!client) throw new Error(`project ${run.project.name}: its tracker cannot be reached with the configuration`);
        return readTicketText(client, run.ticket);
      },
      reviewsFor: (repo) => pullRequestReviewsFor(repo),
      // The installation's skills only: a repository's are read from the server's mirror.
      skills: async (pipeline) => skillsOfferedTo((await readInstallationSkills(config.skills.paths, dirname(resolve(env.configPath)))).skills, pipeline),
      commentOnTicket: async (body) => {
        if (run.ticket === null) return;
        if (!client) throw new Error(`project ${run.project.name}: its tracker cannot be reached with the configuration`);
        await client.postComment(run.ticket, body);
      },
    },
  };
}

/**
 * The run's repositories, as the server would handle them: trees in, and for a publishing
 * pipeline the commit, push and pull request. Pull requests are printed, not recorded (there is
 * no database), so a CLI run does not list the ticket's pull requests of earlier server runs.
 */
export function cliWorkspace(config: ServiceConfig, env: ServiceEnvironment, run: CliRun, events: RunEventSink, out: (line: string) => void): PipelineWorkspace | undefined {
  if (run.project.repos.length === 0) return undefined;
  const client = trackerOf(run.project);
  const publishes = builtInHas(run.pipeline, 'writesCode') || config.pipelines[run.pipeline]?.publish === PublishMode.PullRequest;
  return new RunWorkspace(
    {
      git: new RepositoryWorkspaces({ dataDir: resolve(env.dataDir) }),
      hostFor: (repo) => pullRequestHostFor(repo),
      reviewsFor: (repo) => pullRequestReviewsFor(repo),
      record: async (input) => out(`-- pull request: ${input.repo} ${input.pullRequest.url}`),
      openForTicket: async () => [],
      ticketFacts: async () => {
        if (run.ticket === null || !client) return { title: null, url: null };
        const ticket = await client.readTicket(run.ticket);
        return { title: ticket.title, url: ticket.url };
      },
      identity: config.git,
      secrets: collectSecrets(config, env),
    },
    { runId: run.runId, project: run.project.name, ticket: run.ticket, pipeline: run.pipeline, publishes, requiresChange: builtInHas(run.pipeline, 'writesCode'),
      onTicketPullRequests: builtInHas(run.pipeline, 'reviewsTicketPullRequests'), events },
  );
}
