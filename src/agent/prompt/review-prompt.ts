import { UNTRUSTED_DATA_NOTICE } from '../untrusted-text.js';
import { cutNote, oneLine, untrustedSection } from './prompt-text.js';

/**
 * One changed file as the review prompt shows it. The agent's own shape (a platform's pull-request
 * file satisfies it): arrows run from pipelines to the agent and the platforms, never from the
 * agent to a platform.
 */
export interface ReviewedFile {
  path: string;
  previousPath: string | null;
  status: string;
  /** New-side lines the change adds or modifies (where findings may be anchored). */
  changedLines: readonly number[];
  /** Unified diff hunks; null for a binary or too large file. */
  patch: string | null;
}

/** One pull request under review, as the prompt shows it. */
export interface ReviewedPullRequest {
  /** The tree's prefix in a multi-repository run (the repository's name), else null. */
  prefix: string | null;
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  files: readonly ReviewedFile[];
  /** The host listed fewer files than changed. */
  truncated: boolean;
}

export interface ReviewPromptLimits {
  bodyChars: number;
  /** All patches of one pull request together. */
  patchChars: number;
}

/** About 80k characters at most: the model reads what it needs of the rest with its tools. */
export const REVIEW_PROMPT_LIMITS: ReviewPromptLimits = Object.freeze({ bodyChars: 10_000, patchChars: 60_000 });

/**
 * The first user message of a `pr-review` run: which pull requests, their changed files (with
 * the new-side lines a comment can be anchored on) and their diffs, then the contexts. Title,
 * description and the diff are written by the pull request's author: each sits in its own
 * untrusted-data block.
 */
export function buildReviewPrompt(pulls: readonly ReviewedPullRequest[], contextsBrief: string, secrets: readonly string[], limits: ReviewPromptLimits = REVIEW_PROMPT_LIMITS): string {
  const out = ['# Task', '', `Review ${pulls.length === 1 ? 'this pull request' : `these ${pulls.length} pull requests`}. The working tree is each pull request's head.`];
  if (pulls.some((p) => p.prefix !== null)) out.push('Every path you give a tool, and every finding\'s `path`, starts with the repository\'s name as listed below.');
  out.push(
    '',
    'What to do:',
    '1. Read the description and the diff, then the code around each change.',
    '2. Report each real problem with `report_finding`, on a changed line of the new side where you can (the lines are listed per file). A finding elsewhere is still welcome: it goes into the review\'s summary.',
    '3. Call `finish` with a one-paragraph assessment. The server posts your findings as one review; you post nothing yourself.',
    '',
    UNTRUSTED_DATA_NOTICE,
    '',
  );
  for (const pull of pulls) out.push(...pullRequestSection(pull, secrets, limits));
  out.push(contextsBrief.trim());
  return out.join('\n');
}

function pullRequestSection(pull: ReviewedPullRequest, secrets: readonly string[], limits: ReviewPromptLimits): string[] {
  const where = pull.prefix === null ? '' : ` in \`${oneLine(pull.prefix, secrets)}\``;
  const out = [`## Pull request #${pull.number}${where}: \`${oneLine(pull.head, secrets)}\` into \`${oneLine(pull.base, secrets)}\``, ''];
  const title = untrustedSection('pull-request-title', pull.title, secrets, 500);
  const body = untrustedSection('pull-request-description', pull.body, secrets, limits.bodyChars);
  out.push('### Title', '', title.block, '', '### Description', '', cutNote('The description', body) + body.block, '');
  out.push('### Changed files (path: status, new-side lines a comment can be anchored on)', '');
  for (const file of pull.files) {
    const path = pull.prefix === null ? file.path : `${pull.prefix}/${file.path}`;
    const renamed = file.previousPath ? ` from \`${oneLine(file.previousPath, secrets, 200)}\`` : '';
    out.push(`- \`${oneLine(path, secrets, 300)}\`: ${file.status}${renamed}; lines ${describeLines(file.changedLines)}`);
  }
  if (pull.truncated) out.push('- (the host lists no more files: the pull request changes others too, which are in the tree but not listed here)');
  const patches = pull.files.filter((f) => f.patch !== null).map((f) => `--- ${f.previousPath ?? f.path}\n+++ ${f.path}\n${f.patch}`).join('\n');
  const diff = untrustedSection('pull-request-diff', patches, secrets, limits.patchChars);
  out.push('', '### Diff', '', cutNote('The diff', diff) + diff.block, '');
  return out;
}

/** `3-7, 12, 40-41`, or `none` (a deleted or binary file). */
export function describeLines(lines: readonly number[]): string {
  if (lines.length === 0) return 'none';
  const ranges: string[] = [];
  let start = lines[0]!;
  let previous = start;
  for (const line of [...lines.slice(1), Number.NaN]) {
    if (line === previous + 1) {
      previous = line;
      continue;
    }
    ranges.push(start === previous ? `${start}` : `${start}-${previous}`);
    start = line;
    previous = line;
  }
  return ranges.join(', ');
}
