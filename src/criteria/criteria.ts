import { clipText } from '../common/clip-text.js';

/**
 * A ticket's acceptance criteria (contract "Acceptance criteria and judging"): the items of the
 * task list under a heading named "Acceptance criteria" in the ticket's description, or Azure
 * DevOps's own acceptance-criteria field, numbered `c1`, `c2`, … in order. Pure: no platform, no
 * database. Each tracker's form lives in its platform folder (`src/platforms/<name>/*-criteria.ts`).
 */

/** What the model reports per criterion (`report_criterion`) and what a person may judge. */
export const CriterionVerdict = { Met: 'met', Unmet: 'unmet', NotApplicable: 'not_applicable' } as const;
export type CriterionVerdict = (typeof CriterionVerdict)[keyof typeof CriterionVerdict];
export const CRITERION_VERDICTS: readonly CriterionVerdict[] = Object.values(CriterionVerdict);

export function isCriterionVerdict(value: unknown): value is CriterionVerdict {
  return typeof value === 'string' && (CRITERION_VERDICTS as readonly string[]).includes(value);
}

/** Criteria taken from one ticket; the rest are dropped and the run says so in an event. */
export const MAX_CRITERIA = 100;
/** Characters of one criterion's text kept; a longer one is cut with "…". */
export const MAX_CRITERION_CHARS = 500;
/** Characters of the agent's evidence kept per report. */
export const MAX_EVIDENCE_CHARS = 2000;
/** Characters of a person's reason for a judgement. */
export const MAX_REASON_CHARS = 2000;
/** Characters of a description (or field) read at all: far beyond any real ticket, bounds the work. */
export const MAX_SOURCE_CHARS = 1_000_000;

export interface Criterion {
  /** `c1`, `c2`, … in the ticket's order. */
  id: string;
  text: string;
}

/** What a ticket's criteria were read as. */
export interface CriteriaParse {
  criteria: Criterion[];
  /** Items the ticket lists beyond MAX_CRITERIA (not taken). */
  dropped: number;
  /** Items whose text was cut to MAX_CRITERION_CHARS. */
  clipped: number;
}

export const NO_CRITERIA: CriteriaParse = Object.freeze({ criteria: [], dropped: 0, clipped: 0 }) as CriteriaParse;

/** What a tracker's criteria are read from: its description as stored, and its own field where it has one. */
export interface CriteriaSource {
  description: string | null;
  /** The tracker's own acceptance-criteria field (Azure DevOps `Microsoft.VSTS.Common.AcceptanceCriteria`, HTML). */
  acceptanceCriteria?: string | null;
}

/**
 * One tracker's way of keeping criteria (`src/platforms/<name>/*-criteria.ts`). Writing them into
 * a new ticket is the tracker client's `createTicket` (`*-ticket-creation.ts`); the parsers'
 * tests read those forms back.
 */
export interface TicketCriteriaFormat {
  parse(source: CriteriaSource): CriteriaParse;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One line: control characters and runs of white space become one space. */
export function normaliseCriterionText(text: string): string {
  return text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
}

/** "Acceptance criteria" as a heading's text, in any case, with a trailing colon and emphasis allowed. */
export function isCriteriaHeading(text: string): boolean {
  const bare = text.replace(/^[*_\s]+|[*_\s]+$/g, '').replace(/:$/, '').replace(/^[*_\s]+|[*_\s]+$/g, '');
  return bare.replace(/\s+/g, ' ').toLowerCase() === 'acceptance criteria';
}

/** Numbers item texts `c1…`, dropping empty ones, applying the limits. */
export function numberCriteria(texts: readonly string[]): CriteriaParse {
  const criteria: Criterion[] = [];
  let dropped = 0;
  let clipped = 0;
  for (const raw of texts) {
    const text = normaliseCriterionText(raw);
    if (text === '') continue;
    if (criteria.length >= MAX_CRITERIA) {
      dropped++;
      continue;
    }
    const kept = clipText(text, MAX_CRITERION_CHARS);
    if (kept !== text) clipped++;
    criteria.push({ id: `c${criteria.length + 1}`, text: kept });
  }
  return { criteria, dropped, clipped };
}

/** The part of a source read at all (MAX_SOURCE_CHARS). */
export function boundedSource(text: string | null | undefined): string {
  if (!text) return '';
  return text.length > MAX_SOURCE_CHARS ? text.slice(0, MAX_SOURCE_CHARS) : text;
}
