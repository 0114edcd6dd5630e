import { oneLine } from './prompt-text.js';

/**
 * The first user message of a `code` run: where the work happens (the repositories and how
 * paths name them), whether earlier work exists on the branch, what to do, then the contexts
 * and the ticket. The briefs come from buildContextsBrief and buildTicketBrief, which already
 * delimited and scrubbed their third-party text; this message adds only trusted text.
 */
export interface TaskPromptInput {
  ticketBrief: string;
  contextsBrief: string;
  /** The run's working trees (AgentTree): `prefix` is the repository name in a multi-repository run, else null. */
  trees: readonly { prefix: string | null }[];
  /** The work branch already carries an earlier run's commits (a re-run, or rework after review). */
  resumed: boolean;
  /** buildConversationBrief's text (hand-backs, review feedback, instructions), after the ticket; empty or absent: none. */
  conversationBrief?: string;
  /** The hand-back this run resumes from (it was answered, or retried), or null. */
  handBack?: { kind: string; answered: boolean } | null;
  /** The ticket has acceptance criteria (listed in the ticket brief): the model reports each. */
  hasCriteria?: boolean;
}

export function buildTaskPrompt(input: TaskPromptInput): string {
  const out = ['# Task', '', ...whereLines(input.trees), '', ...branchLines(input.resumed), '', ...handBackLines(input.handBack ?? null)];
  out.push(
    'What to do:',
    '1. Read the ticket below, every comment included: the latest comments say what is wanted now.',
    '2. Read the repository contexts and explore the code involved before changing anything.',
    '3. Make the smallest change that implements the ticket, following the contexts\' principles, with tests where the repository has them.',
    '4. Build and run the relevant tests with `bash` while you work. After you finish, the server runs every context\'s build and test commands itself and publishes your changes as a pull request: do not commit, push or open one yourself.',
    ...(input.hasCriteria
      ? ['5. The ticket has acceptance criteria (listed with the ticket below). Before you finish, call `report_criterion` once for each, with its id, `met`, `unmet` or `not_applicable`, and the evidence: the test, command output or code that shows it. Report honestly: a criterion left unmet or unreported fails the run.']
      : []),
    `${input.hasCriteria ? 6 : 5}. Call \`finish\` with a one-paragraph summary of what you changed and why. If the ticket is unclear, contradicts itself or the code, or cannot be implemented here, call \`ask\` with the matching \`kind\` instead of guessing.`,
    '',
    input.contextsBrief.trim(),
    '',
    input.ticketBrief.trim(),
  );
  if (input.conversationBrief?.trim()) out.push('', input.conversationBrief.trim());
  return out.join('\n');
}

/** Said before the steps, so the model reads the answer as the reason for this run. */
function handBackLines(handBack: { kind: string; answered: boolean } | null): string[] {
  if (handBack === null) return [];
  return handBack.answered
    ? [`An earlier run handed this ticket back (${oneLine(handBack.kind)}); it has been answered. The ticket was handed back with the question under "Earlier hand-backs" below; the answer follows it there. Continue the work with that answer.`, '']
    : [`An earlier run handed this ticket back (${oneLine(handBack.kind)}); an operator retried it without an answer. Read the ticket again: it may have been changed since.`, ''];
}

function whereLines(trees: readonly { prefix: string | null }[]): string[] {
  if (trees.length === 0) throw new Error('buildTaskPrompt needs at least one working tree');
  const prefixes = trees.map((t) => t.prefix);
  if (prefixes.every((p) => p === null)) {
    if (trees.length > 1) throw new Error('a multi-repository run names each tree by its prefix');
    return ['You work in one repository; paths are relative to its root.'];
  }
  if (prefixes.some((p) => p === null)) throw new Error('either every tree has a prefix or none does');
  const names = prefixes.map((p) => oneLine(p!));
  const lines = [
    trees.length === 1 ? 'You work in one repository, named by its prefix:' : `You work in ${trees.length} repositories:`,
    ...names.map((name) => `- \`${name}\`: its files are \`${name}/…\``),
    '',
    `Every path you give a tool starts with the repository's name (\`${names[0]}/README.md\`); for \`bash\`, \`cd ${names[0]} && …\`. Change only the repositories the ticket needs.`,
  ];
  return lines;
}

function branchLines(resumed: boolean): string[] {
  return resumed
    ? [
        'This ticket was worked on before: the working tree already holds the earlier run\'s changes, on the same work branch. ' +
          'Look at them first (what changed against the default branch, and why), keep what is right, and change what the ticket ' +
          'and its latest comments now ask for. Do not start over, and do not revert earlier work unless asked to.',
      ]
    : ['The work branch starts from the default branch: no earlier work on this ticket exists.'];
}
