import { RunState } from '../database/entities/run.entity.js';
import type { Run } from '../runs/resource/run-resource.js';

/** A button offered under a message (an answer to a parked run's question). */
export interface ChatButton {
  label: string;
  /** The action id (default: the answer action). */
  action?: string;
  /** What the click sends back (the action's value). */
  value: string;
}

/** One message's content, platform-neutral: markdown text and, for a parked run, answer buttons. */
export interface ChatContent {
  text: string;
  buttons: ChatButton[];
}

/** The action id the answer buttons carry. */
export const ANSWER_ACTION = 'pipeline-service-answer';
/** The action id of a design dialogue's "File these tickets" confirmation. */
export const FILE_DRAFTS_ACTION = 'pipeline-service-file-drafts';

const MAX_BUTTONS = 5;
const MAX_LABEL = 70;

/** Links to the dashboard's pages: absolute under `chat.dashboard_url`, else the path alone. */
export class DashboardLinks {
  constructor(private readonly base: string | null) {}

  run(runId: string): string {
    return this.url(`/runs/${runId}`);
  }

  runs(query = ''): string {
    return this.url(`/runs${query}`);
  }

  private url(path: string): string {
    return this.base ? `${this.base.replace(/\/+$/, '')}${path}` : path;
  }
}

/** A markdown link, or the label with the path beside it when there is no absolute address to link. */
export function mdLink(label: string, url: string): string {
  return /^https?:\/\//.test(url) ? `[${label}](${url})` : `${label} (\`${url}\`)`;
}

export interface RunStatusExtras {
  /** Place among runs waiting for capacity (1 = next), when queued. */
  position?: number | null;
  /** The whole question of a parked run. */
  question?: string | null;
  /** A line said above the state (who answered, why a start was refused). */
  note?: string | null;
}

const firstLine = (text: string | null): string => (text ?? '').split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';

/**
 * The one message a followed run keeps: admitted or queued with its position → running with its
 * step → Done with the pull requests / Failed with the one-line reason / parked with the question
 * and answer buttons. The same Run always gives the same text, so an unchanged Run edits nothing.
 */
export function runStatusContent(run: Run, links: DashboardLinks, extras: RunStatusExtras = {}): ChatContent {
  const subject = `**${run.pipeline}** on ${run.ticket ? `${run.project}/${run.ticket}` : run.project}`;
  const link = mdLink(`run ${run.id.slice(0, 8)}`, links.run(run.id));
  const lines: string[] = extras.note ? [extras.note] : [];
  let buttons: ChatButton[] = [];
  switch (run.state) {
    case RunState.Queued:
      lines.push(extras.position ? `⏳ ${subject}: admitted, queued for capacity (position ${extras.position}) — ${link}` : `⏳ ${subject}: admitted, waiting for a worker — ${link}`);
      break;
    case RunState.Running: {
      const step = [...run.steps].reverse().find((s) => s.state === 'running') ?? run.steps.at(-1);
      lines.push(`⚙️ ${subject}: running${step ? ` step **${step.name}**` : ''} — ${link}`);
      break;
    }
    case RunState.Succeeded: {
      const prs = run.pullRequests.map((pr) => mdLink(`${pr.repo}#${pr.number}`, pr.url));
      lines.push(`✅ ${subject}: Done${prs.length ? ` — pull request${prs.length > 1 ? 's' : ''} ${prs.join(', ')}` : ''} — ${link}`);
      break;
    }
    case RunState.Failed:
      lines.push(`❌ ${subject}: Failed — ${firstLine(run.error) || 'no reason given'} — ${link}`);
      break;
    case RunState.Cancelled:
      lines.push(`🚫 ${subject}: cancelled — ${firstLine(run.error)} — ${link}`);
      break;
    case RunState.Parked: {
      const question = extras.question ?? run.error ?? '';
      lines.push(`❓ ${subject}: parked, it asks:`, quote(question), 'Reply in this thread, or choose an answer below, to start the next attempt with it.', link);
      buttons = answerButtons(run.id, question);
      break;
    }
  }
  return { text: lines.join('\n'), buttons };
}

function quote(text: string): string {
  return text.split('\n').map((l) => `> ${l}`).join('\n');
}

/**
 * Answers offered as buttons: the options the question lists (`- a`, `1. b`, `a) c`), else Yes
 * and No. The value carries the run, so a click answers that run and no other.
 */
export function answerButtons(runId: string, question: string): ChatButton[] {
  const options = question.split('\n')
    .map((l) => /^\s*(?:[-*•]|\d+[.)]|[a-z][.)])\s+(.+?)\s*$/i.exec(l)?.[1])
    .filter((o): o is string => o !== undefined && o !== '')
    .slice(0, MAX_BUTTONS);
  const labels = options.length >= 2 ? options : ['Yes', 'No'];
  return labels.map((label) => ({ label: label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label, value: encodeAnswer(runId, label) }));
}

export function encodeAnswer(runId: string, answer: string): string {
  return JSON.stringify({ run: runId, answer });
}

export function decodeAnswer(value: string | undefined): { run: string; answer: string } | null {
  try {
    const v = JSON.parse(value ?? '') as { run?: unknown; answer?: unknown };
    return typeof v.run === 'string' && typeof v.answer === 'string' ? { run: v.run, answer: v.answer } : null;
  } catch {
    return null;
  }
}
