import { SERVICE_MARKER } from '../platforms/service-marker.js';
import type { MissingOnBranch } from './branch-contexts.js';

/**
 * What the service answers on a pull request to a command or review act (spec rule 4, "every
 * refusal is visible"). Each reply carries the service marker (so it never starts anything
 * itself) and a marker naming the act it answers, so a redelivered act edits the same reply
 * instead of adding one.
 */
export function replyMarker(actId: string): string {
  return `<!-- pipeline-service:command:${actId.replace(/-->/g, '')} -->`;
}

export function replyBody(actId: string, text: string): string {
  return `${SERVICE_MARKER}\n${replyMarker(actId)}\n${text}`;
}

const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;

export const reply = {
  started: (pipeline: string, subject: string, runId: string): string =>
    `Started ${code(pipeline)} for ${subject}: run ${code(runId)}.`,
  queued: (pipeline: string, subject: string, runId: string): string =>
    `Queued ${code(pipeline)} for ${subject}: run ${code(runId)} waits for capacity and starts in turn.`,
  busy: (subject: string, live: string | null): string =>
    `Nothing new started: ${live ? `run ${code(live)} already works on` : 'another run already works on'} ${subject}.`,
  reviewNotPickedUp: (ticket: string, live: string | null): string =>
    `This review is not picked up: ${live ? `run ${code(live)} is` : 'a run is'} working on ticket ${code(ticket)}. Once it has ended, comment the command again (or request changes again) to start a rework.`,
  resumed: (ticket: string, runId: string): string =>
    `Thanks: your answer resumes ticket ${code(ticket)} as run ${code(runId)}.`,
  reworkStarted: (ticket: string, runId: string, queued: boolean): string =>
    `Rework of ticket ${code(ticket)} ${queued ? 'queued' : 'started'}: run ${code(runId)} reads the unresolved threads and everything written since the previous attempt${queued ? ' once capacity frees up' : ''}.`,
  notImplementable: (ticket: string): string =>
    `Ticket ${code(ticket)} was handed back as not implementable: only a retry from the dashboard (\`POST /api/runs/:id/retry\`) resumes it.`,
  refused: (why: string): string => `Not started: ${why}.`,
  noWriteAccess: (author: string, why: string): string =>
    `Not started: ${author} needs write access to this repository to start work from a comment (${why}).`,
  failed: (error: string): string => `Not started: the service could not claim the work (${error}). Try the command again later.`,
  missingContexts: (branch: string, missing: readonly MissingOnBranch[], project: string): string => [
    `Not started: branch ${code(branch)} lacks context files the pipelines need:`,
    ...missing.map((m) => `- context ${code(m.context)}: ${m.files.map(code).join(', ')}`),
    '',
    `Project initialisation adds them: \`POST /api/projects/${project}/init\` or \`pipeline-service init --project ${project}\`.`,
  ].join('\n'),
};
