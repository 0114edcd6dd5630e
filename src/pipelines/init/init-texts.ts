import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import { initialisationCommands } from '../contexts/bootstrap-gate.js';
import { CONTEXTS_DIR } from '../contexts/context-files.js';

/** The branch project initialisation works on (contract "Contexts and the bootstrap gate"). */
export const INIT_BRANCH = 'service/init';

/** The `Pipeline:` trailer's value of initialisation commits. */
export const INIT_PIPELINE = 'init';

export const INIT_PULL_REQUEST_TITLE = 'Add pipeline-service contexts';

export function initCommitMessage(): string {
  return `init: add service contexts\n\nPipeline: ${INIT_PIPELINE}\n`;
}

/**
 * The pull request's body: the service marker, the files it adds, why (the bootstrap gate) and
 * how they were written. `files` are the files the base branch lacks, all of which the branch adds.
 */
export function initPullRequestBody(project: string, files: readonly string[], how: string | null): string {
  return [
    SERVICE_MARKER,
    `pipeline-service project initialisation (project \`${project}\`) adds the context files this repository lacks:`,
    '',
    ...files.map((f) => `- \`${f}\``),
    '',
    `**Why.** The \`code\`, \`security-scan\` and \`pr-review\` pipelines run only on a repository whose every context under \`${CONTEXTS_DIR}/<name>/\` holds both \`context.yaml\` (the part of the repository it covers, its toolchain image and its setup, build and test commands) and \`principles.md\` (what the model must know and respect here). Until this is merged, their runs stop at the bootstrap gate.`,
    '',
    ...(how ? [`**How.** ${how}`, ''] : []),
    `Existing files are never overwritten. Running initialisation again (${initialisationCommands(project)}) updates this pull request.`,
    '',
  ].join('\n');
}
