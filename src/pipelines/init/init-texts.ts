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

/** A list of the writer's dropped changes shown in full up to this many; the API result has them all. */
const LISTED = 20;

/** `a, b and 3 more`: a list for a log line or a body, bounded. */
export function listedForPeople(items: readonly string[], show: (item: string) => string = (item) => item): string {
  const shown = items.slice(0, LISTED).map(show).join(', ');
  return items.length > LISTED ? `${shown} and ${items.length - LISTED} more` : shown;
}

/**
 * The `**Discarded.**` sentence: what the writer changed besides the missing files (`path
 * (status)`, paths already made one line without backticks), dropped from the pull request.
 */
export function discardedParagraph(writer: string, discarded: readonly string[]): string {
  const show = (item: string) => item.replace(/^(.*) \(([a-z-]+)\)$/, '`$1` ($2)');
  return `The ${writer} writer also changed ${listedForPeople(discarded, show)}; those changes were dropped and are not in this pull request: initialisation only adds the missing context files, and never overwrites, removes or adds anything else.`;
}

/** The `**<name>.**` paragraph (one line) of an earlier body, kept when a run writes nothing new. */
export function paragraphOf(name: 'How' | 'Discarded', body: string | null): string | null {
  const found = body ? new RegExp(`^\\*\\*${name}\\.\\*\\* (.+)$`, 'm').exec(body) : null;
  return found?.[1] ?? null;
}

/**
 * The pull request's body: the service marker, the files it adds, why (the bootstrap gate), how
 * they were written and what the writer changed besides them, dropped. `files` are the files the
 * base branch lacks, all of which the branch adds.
 */
export function initPullRequestBody(project: string, files: readonly string[], how: string | null, discarded: string | null = null): string {
  return [
    SERVICE_MARKER,
    `pipeline-service project initialisation (project \`${project}\`) adds the context files this repository lacks:`,
    '',
    ...files.map((f) => `- \`${f}\``),
    '',
    `**Why.** The \`code\`, \`security-scan\` and \`pr-review\` pipelines run only on a repository whose every context under \`${CONTEXTS_DIR}/<name>/\` holds both \`context.yaml\` (the part of the repository it covers, its toolchain image and its setup, build and test commands) and \`principles.md\` (what the model must know and respect here). Until this is merged, their runs stop at the bootstrap gate.`,
    '',
    ...(how ? [`**How.** ${how}`, ''] : []),
    ...(discarded ? [`**Discarded.** ${discarded}`, ''] : []),
    `Existing files are never overwritten. Running initialisation again (${initialisationCommands(project)}) updates this pull request.`,
    '',
  ].join('\n');
}
