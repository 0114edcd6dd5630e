import { Link } from '@tanstack/react-router';
import { useMemo, useRef } from 'react';
import type { Run, RunEvent } from '../../api/types';
import { StateBadge, formatDuration, formatTime } from '../../components/ui';
import type { EventsSnapshot } from './use-batched-events';

interface Marks { started?: number; ended?: number; failure?: string }
const STEP_KINDS = new Set(['step-started', 'step-finished', 'step-failed']);
const LABEL = /^step (\d+)\/\d+: /;

/** Where each step begins and ends in the log (scanned incrementally: only new events are read). */
function useStepMarks(snapshot: EventsSnapshot | null): Map<number, Marks> {
  const state = useRef({ scanned: 0, marks: new Map<number, Marks>() });
  const events: readonly RunEvent[] = snapshot?.events ?? [];
  return useMemo(() => {
    const s = state.current;
    if (events.length < s.scanned) s.scanned = 0;
    for (let i = s.scanned; i < events.length; i += 1) {
      const e = events[i]!;
      if (!STEP_KINDS.has(e.kind)) continue;
      const position = Number(LABEL.exec(e.text)?.[1]);
      if (!position) continue;
      const m = s.marks.get(position) ?? {};
      if (e.kind === 'step-started') m.started = e.seq;
      else m.ended = e.seq;
      if (e.kind === 'step-failed') m.failure = e.text.replace(LABEL, '').replace(/^[^:]*: /, '');
      s.marks.set(position, m);
    }
    s.scanned = events.length;
    return new Map(s.marks);
  }, [events, snapshot?.revision]); // eslint-disable-line react-hooks/exhaustive-deps
}

/** The steps as a timeline: durations, the running step open, a failed step opened automatically. */
export function RunSteps({ run, snapshot, now }: { run: Run; snapshot: EventsSnapshot | null; now: number }) {
  const marks = useStepMarks(snapshot);
  if (run.steps.length === 0) {
    return <p className="mt-6 text-sm text-slate-600 dark:text-slate-400">{run.state === 'queued' ? 'No step has started yet.' : 'This run recorded no steps.'}</p>;
  }
  const total = run.steps.reduce((sum, s) => sum + stepMs(s, now), 0) || 1;
  return (
    <section aria-labelledby="steps-heading" className="mt-6">
      <h2 id="steps-heading" className="mb-2 text-lg font-semibold">Steps</h2>
      <ol className="space-y-2 border-l-2 border-slate-200 pl-4 dark:border-slate-700">
        {run.steps.map((step, i) => {
          const ms = stepMs(step, now);
          const m = marks.get(i + 1);
          const open = step.state === 'running' || step.state === 'failed';
          return (
            <li key={`${i}-${step.name}`} className="relative">
              <span aria-hidden="true" className={`absolute top-2 -left-[23px] h-3 w-3 rounded-full ${DOT[step.state] ?? 'bg-slate-400'}`} />
              {/* Keyed by state: a step that turns running or failed opens even if it was rendered closed. */}
              <details key={step.state} open={open} className="rounded border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
                <summary className="flex cursor-pointer flex-wrap items-center gap-2 px-3 py-1.5 text-sm">
                  <span className="font-medium">{i + 1}. {step.name}</span>
                  <StateBadge state={step.state as Run['state']} />
                  <span className="ml-auto tabular-nums text-slate-600 dark:text-slate-400">{formatDuration(ms)}</span>
                  <span aria-hidden="true" className="hidden h-1.5 w-24 overflow-hidden rounded bg-slate-200 sm:block dark:bg-slate-700">
                    <span className={`block h-full ${DOT[step.state] ?? 'bg-slate-400'}`} style={{ width: `${Math.max(3, (ms / total) * 100)}%` }} />
                  </span>
                </summary>
                <div className="space-y-1 border-t border-slate-200 px-3 py-2 text-sm dark:border-slate-800">
                  <p>Started {formatTime(step.startedAt)}{step.finishedAt ? `, finished ${formatTime(step.finishedAt)}` : ', still running'}</p>
                  {m?.failure ? <p className="text-red-800 dark:text-red-200"><span className="font-medium">Failed: </span>{m.failure}</p> : null}
                  {m?.started ? (
                    <p>
                      <Link to="/runs/$runId" params={{ runId: run.id }} search={(prev) => ({ ...prev, line: m.started })} className="text-blue-700 underline dark:text-blue-300">
                        Show in the log
                      </Link>
                      {m.ended ? <> (lines {m.started}–{m.ended})</> : null}
                    </p>
                  ) : null}
                </div>
              </details>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

const DOT: Record<string, string> = { running: 'bg-blue-500', succeeded: 'bg-green-600', failed: 'bg-red-600', cancelled: 'bg-slate-400' };

function stepMs(step: Run['steps'][number], now: number): number {
  const end = step.finishedAt ? Date.parse(step.finishedAt) : step.state === 'running' ? now : Date.parse(step.startedAt);
  return Math.max(0, end - Date.parse(step.startedAt));
}
