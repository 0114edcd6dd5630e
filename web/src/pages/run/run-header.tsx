import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import type { Run } from '../../api/types';
import { StateBadge, formatCost, formatDuration, formatTime } from '../../components/ui';
import { durationMs } from '../../lib/run-cache';

/** `wrap`: a value that must be read whole (a time) wraps instead of being cut short. */
function Field({ term, children, wide, wrap }: { term: string; children: ReactNode; wide?: boolean; wrap?: boolean }) {
  return (
    <div className={`min-w-0 ${wide ? 'col-span-2' : ''}`}>
      <dt className="text-xs text-slate-600 dark:text-slate-400">{term}</dt>
      <dd className={`text-sm ${wide || wrap ? '' : 'truncate'}`}>{children}</dd>
    </div>
  );
}

/**
 * What the run is and how it went: ticket and pull requests, state, where it ran, its timings
 * (the duration live while it runs) and usage. The Run resource carries no budget (the agent's
 * limits live in the service's configuration), so usage is shown as it is.
 */
export function RunHeader({ run, now }: { run: Run; now: number }) {
  const tokens = run.usage.inputTokens + run.usage.outputTokens;
  const wait = run.startedAt ? Date.parse(run.startedAt) - Date.parse(run.createdAt) : null;
  return (
    <div className="space-y-3">
      <dl className="grid grid-cols-2 gap-x-6 gap-y-3 rounded border border-slate-200 bg-white p-4 sm:grid-cols-3 lg:grid-cols-6 dark:border-slate-800 dark:bg-slate-900">
        <Field term="State"><StateBadge state={run.state} /></Field>
        <Field term="Ticket">
          {run.ticket ? (
            <span className="flex flex-wrap gap-2">
              <Link to="/runs" search={{ ticket: run.ticket, project: run.project }} className="text-blue-700 underline dark:text-blue-300" title="Runs of this ticket">{run.ticket}</Link>
              {run.ticketUrl ? <a href={run.ticketUrl} target="_blank" rel="noreferrer" className="text-blue-700 underline dark:text-blue-300">open in the tracker</a> : null}
            </span>
          ) : run.target ? `${run.target.repo}#${run.target.number}` : '—'}
        </Field>
        <Field term="Project">{run.project}</Field>
        <Field term="Pipeline">{run.pipeline}</Field>
        <Field term="Platform">{run.platform}</Field>
        <Field term="Created" wrap>{formatTime(run.createdAt)}</Field>
        <Field term="Started" wrap>{formatTime(run.startedAt)}</Field>
        <Field term="Finished" wrap>{formatTime(run.finishedAt)}</Field>
        <Field term="Duration"><span className="tabular-nums">{formatDuration(durationMs(run, now))}</span></Field>
        <Field term="Queue wait"><span className="tabular-nums">{formatDuration(wait)}</span></Field>
        <Field term="Usage" wide>
          <span className="tabular-nums" title={`${run.usage.inputTokens.toLocaleString()} input + ${run.usage.outputTokens.toLocaleString()} output tokens`}>
            {run.usage.modelCalls.toLocaleString()} model calls · {tokens.toLocaleString()} tokens · {formatCost(run.usage.costUsd)}
          </span>
        </Field>
        <Field term="Pull requests" wide>
          {run.pullRequests.length === 0 ? '—' : run.pullRequests.map((pr) => (
            <a key={pr.url} href={pr.url} target="_blank" rel="noreferrer" className="mr-2 text-blue-700 underline dark:text-blue-300">{pr.repo}#{pr.number} ({pr.state})</a>
          ))}
        </Field>
      </dl>
      {run.sandboxes.length > 0 ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Sandboxes: {run.sandboxes.map((s) => `${s.repo}${s.pathPrefix ? ` (${s.pathPrefix})` : ''} ${s.state}`).join(' · ')}
        </p>
      ) : null}
      {run.error ? (
        <div className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
          <span className="font-medium">Error: </span>{run.error}
        </div>
      ) : null}
    </div>
  );
}
