import { clip } from '../agent/tools/control.tools.js';
import { type AgentTool, toolError } from '../agent/tools/tool-types.js';
import type { TicketDraft } from './dialog-types.js';

/** Bounds of one draft: a ticket, not a document. */
export const DRAFT_LIMITS = Object.freeze({ titleChars: 200, bodyChars: 20_000, criteria: 30, criterionChars: 500, labels: 10, labelChars: 50 });
/** Drafts one turn may propose. */
export const MAX_DRAFTS_PER_TURN = 10;

/**
 * `propose_ticket {title, body, criteria, labels}`: one ticket draft, collected into `drafts` in
 * the order proposed; the person chooses which to file. Text is scrubbed of secrets like every
 * tool's input that leaves the loop.
 */
export function proposeTicketTool(drafts: TicketDraft[]): AgentTool {
  return {
    name: 'propose_ticket',
    description: 'Propose one ticket draft for the person to review and file: a title, a Markdown body (context, what to change, where), '
      + 'acceptance criteria (each a checkable statement) and labels. Call once per ticket; the person chooses which drafts to file.',
    parameters: {
      properties: {
        title: { type: 'string', description: 'One line.' },
        body: { type: 'string', description: 'Markdown: why, what and where; no acceptance criteria here.' },
        criteria: { type: 'string-list', description: 'Acceptance criteria, one checkable statement each.' },
        labels: { type: 'string-list', description: 'Labels for the ticket (may be empty).' },
      },
      required: ['title', 'body', 'criteria', 'labels'],
    },
    brief: (input) => `propose_ticket: ${clip(String(input.title), 80)}`,
    run: async (input, context) => {
      if (drafts.length >= MAX_DRAFTS_PER_TURN) return toolError(`at most ${MAX_DRAFTS_PER_TURN} drafts per answer`);
      const L = DRAFT_LIMITS;
      const title = context.scrub(String(input.title)).replace(/\s+/g, ' ').trim();
      const body = context.scrub(String(input.body)).trim();
      const criteria = (input.criteria as string[]).map((c) => context.scrub(c).replace(/\s+/g, ' ').trim()).filter((c) => c !== '');
      const labels = [...new Set((input.labels as string[]).map((l) => context.scrub(l).trim()).filter((l) => l !== ''))];
      const problems = [
        title === '' ? 'title must not be empty' : null,
        title.length > L.titleChars ? `title must be at most ${L.titleChars} characters` : null,
        body.length > L.bodyChars ? `body must be at most ${L.bodyChars} characters` : null,
        criteria.length === 0 ? 'give at least one acceptance criterion' : null,
        criteria.length > L.criteria ? `at most ${L.criteria} criteria` : null,
        criteria.some((c) => c.length > L.criterionChars) ? `each criterion at most ${L.criterionChars} characters` : null,
        labels.length > L.labels ? `at most ${L.labels} labels` : null,
        labels.some((l) => l.length > L.labelChars || l.startsWith('service:')) ? `labels at most ${L.labelChars} characters, none starting with service:` : null,
      ].filter((p): p is string => p !== null);
      if (problems.length > 0) return toolError(`draft not recorded: ${problems.join('; ')}`);
      drafts.push({ title, body, criteria, labels });
      return { output: `Recorded draft ${drafts.length} of this answer.`, ok: true, exitCode: null };
    },
  };
}
